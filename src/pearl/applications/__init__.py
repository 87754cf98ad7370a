"""Phrase embeddings at work: scikit-learn embedding, entity retrieval, fuzzy join,
deduplication and clustering."""

# ``import pearl`` does not import this package: pearl's lazy names map straight to the
# modules (join, dedup, index...).

from pearl.applications.candidates import match_strings
from pearl.applications.dedup import cluster, deduplicate
from pearl.applications.embedder import PhraseEmbedder
from pearl.applications.encoding import clear_caches
from pearl.applications.index import EntityIndex, SearchResult
from pearl.applications.join import fuzzy_join

__all__ = [
    "EntityIndex",
    "PhraseEmbedder",
    "SearchResult",
    "clear_caches",
    "cluster",
    "deduplicate",
    "fuzzy_join",
    "match_strings",
]
