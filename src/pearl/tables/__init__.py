"""Phrase embeddings at work: scikit-learn embedding, entity retrieval, fuzzy join,
deduplication and clustering."""

# ``import pearl`` does not import this package: pearl's lazy names map straight to the
# modules (join, dedup, index...). The names here are lazy too, so that importing one tool
# (``pearl.tables.dedup``) does not import every other one's dependencies
# (scikit-learn for ``PhraseEmbedder``: about 1 s).

from pearl._lazy import lazy_exports

__all__ = [
    "EntityIndex",
    "PhraseEmbedder",
    "SearchResult",
    "clear_caches",
    "cluster",
    "deduplicate",
    "fuzzy_join",
    "Joiner",
    "Reference",
    "join_report",
    "JoinReport",
    "match_strings",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "match_strings": "pearl.tables.join",
        "cluster": "pearl.tables.dedup",
        "deduplicate": "pearl.tables.dedup",
        "PhraseEmbedder": "pearl.tables.embedder",
        "clear_caches": "pearl.tables.encoding",
        "EntityIndex": "pearl.tables.index",
        "SearchResult": "pearl.tables.index",
        "fuzzy_join": "pearl.tables.join",
        "Joiner": "pearl.tables.joiner",
        "Reference": "pearl.tables.reference",
        "join_report": "pearl.tables.report",
        "JoinReport": "pearl.tables.report",
    },
)
