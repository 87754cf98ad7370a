"""Phrases in context, for Phrase-BERT's context objective.

``pearl build-corpus --contexts N`` keeps, for each phrase of the corpus seen in the running
text, the first sentence window it occurs in: up to ``N`` words either side, the phrase
itself replaced by ``[MASK]`` (Phrase-BERT's positive context). They are written to
``contexts.tsv`` beside ``corpus.tsv``; list phrases, never seen in text, have none.
"""

from __future__ import annotations

import csv
from pathlib import Path

from pearl._io import atomic_tsv

__all__ = ["MASK", "masked_context", "read_contexts", "write_contexts"]

MASK = "[MASK]"


def masked_context(doc, start: int, end: int, window: int) -> str:
    """The words of ``doc``'s sentence around tokens ``start:end``, at most ``window`` either
    side, with the span replaced by :data:`MASK`."""
    sent = doc[start].sent
    left = doc[max(sent.start, start - window) : start]
    right = doc[end : min(sent.end, end + window)]
    words = [t.text for t in left] + [MASK] + [t.text for t in right]
    return " ".join(" ".join(words).split())


def write_contexts(path: str | Path, contexts: dict[str, str], phrases) -> int:
    """Write the contexts of ``phrases`` (those that have one); returns how many."""
    n = 0
    with atomic_tsv(path, ["phrase", "context"]) as w:
        for p in phrases:
            if p in contexts:
                w.writerow([p, contexts[p]])
                n += 1
    return n


def read_contexts(path: str | Path) -> dict[str, str]:
    """``contexts.tsv`` as {phrase: masked context}.

    Raises
    ------
    FileNotFoundError, ValueError
        A missing file, or one without the ``phrase`` and ``context`` columns.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"no contexts file {path} (write one with pearl build-corpus --contexts N)"
        )
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f, delimiter="\t")
        if not {"phrase", "context"} <= set(reader.fieldnames or ()):
            raise ValueError(f"{path} needs the columns phrase and context")
        return {row["phrase"]: row["context"] for row in reader if row["phrase"] and row["context"]}
