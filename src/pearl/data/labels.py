"""The phrase-type label space: 5 lexical classes x (18 OntoNotes entity types + OTHER)."""

from __future__ import annotations

__all__ = ["LEXICAL_CLASSES", "ENTITY_TYPES", "LABELS", "LABEL_TO_ID", "make_label", "split_label"]

LEXICAL_CLASSES = ("NP", "VP", "PP", "ADVP", "ADJP")
ENTITY_TYPES = (
    "CARDINAL",
    "DATE",
    "EVENT",
    "FAC",
    "GPE",
    "LANGUAGE",
    "LAW",
    "LOC",
    "MONEY",
    "NORP",
    "ORDINAL",
    "ORG",
    "PERCENT",
    "PERSON",
    "PRODUCT",
    "QUANTITY",
    "TIME",
    "WORK_OF_ART",
)
#: 95 labels: ``LEX-TYPE`` for the 90 typed combinations and ``LEX-OTHER`` for the 5 untyped.
LABELS = tuple(f"{lex}-{ent}" for lex in LEXICAL_CLASSES for ent in ENTITY_TYPES + ("OTHER",))
LABEL_TO_ID = {label: i for i, label in enumerate(LABELS)}


def make_label(lexical: str, entity: str | None) -> str:
    """``"NP"``, ``"ORG"`` -> ``"NP-ORG"``; unknown or missing entity types become OTHER."""
    if lexical not in LEXICAL_CLASSES:
        raise ValueError(f"unknown lexical class {lexical!r}")
    return f"{lexical}-{entity if entity in ENTITY_TYPES else 'OTHER'}"


def split_label(label: str) -> tuple[str, str]:
    """``"NP-WORK_OF_ART"`` -> ``("NP", "WORK_OF_ART")``."""
    lex, _, ent = label.partition("-")
    return lex, ent
