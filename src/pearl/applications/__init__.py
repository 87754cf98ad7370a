"""Phrase embeddings at work: scikit-learn embedding, entity retrieval, fuzzy join,
deduplication and clustering."""

# Eager on purpose: ``fuzzy_join`` is both a function and the name of its module, and a
# lazy name would be shadowed by the module once imported. ``import pearl`` does not
# import this package (its names map straight to the modules).

from pearl.applications._common import clear_caches
from pearl.applications.dedup import cluster, deduplicate
from pearl.applications.embedder import PhraseEmbedder
from pearl.applications.fuzzy_join import fuzzy_join, match_strings
from pearl.applications.index import EntityIndex, SearchResult

__all__ = ["EntityIndex", "PhraseEmbedder", "SearchResult", "clear_caches", "cluster",
           "deduplicate",
           "fuzzy_join", "match_strings"]
