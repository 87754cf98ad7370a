"""Phrase embeddings at work: scikit-learn embedding, entity retrieval, fuzzy join,
deduplication and clustering."""

# ``import pearl`` does not import this package: pearl's lazy names map straight to the
# modules (join, dedup, index...). The names here are lazy too, so that importing one tool
# (``pearl.applications.dedup``) does not import every other one's dependencies
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
    "join_report",
    "JoinReport",
    "match_strings",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "match_strings": "pearl.applications.search",
        "cluster": "pearl.applications.dedup",
        "deduplicate": "pearl.applications.dedup",
        "PhraseEmbedder": "pearl.applications.embedder",
        "clear_caches": "pearl.applications.encoding",
        "EntityIndex": "pearl.applications.index",
        "SearchResult": "pearl.applications.index",
        "fuzzy_join": "pearl.applications.join",
        "join_report": "pearl.applications.report",
        "JoinReport": "pearl.applications.report",
    },
)
