"""Phrase embeddings at work: scikit-learn embedding, entity retrieval, fuzzy join,
deduplication and clustering."""

from pearl.applications._common import clear_caches
from pearl.applications.dedup import cluster, deduplicate
from pearl.applications.embedder import PhraseEmbedder
from pearl.applications.fuzzy_join import fuzzy_join, match_strings
from pearl.applications.index import EntityIndex, SearchResult

__all__ = ["EntityIndex", "PhraseEmbedder", "SearchResult", "clear_caches", "cluster",
           "deduplicate",
           "fuzzy_join", "match_strings"]
