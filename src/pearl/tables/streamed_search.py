"""Each query's top-k over a stream of reference chunks (:func:`match_strings`): the search
of the single-key :func:`~pearl.tables.join.fuzzy_join`, whose right table may be larger
than memory."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from pearl.encoders import TABLE_BATCH_SIZE
from pearl.tables.encoding import query_vectors, reference_vectors
from pearl.tables.nearest import merge_top_k
from pearl.tables.reference import rank_candidates
from pearl.tables.search import ReferenceIndex

__all__ = ["match_strings"]


def match_strings(
    queries: list[str],
    chunks: Iterable[list[str]],
    encoder: Any,
    *,
    top_k: int = 1,
    batch_size: int = TABLE_BATCH_SIZE,
    block: int | None = None,
    scorer: Any = None,
    candidates: int = 10,
    idf_texts: list[str] | None = None,
    exact_max: float = math.inf,
    ngram_exact_max: float | None = None,
    values: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Running top-k of each query over a stream of reference chunks.

    Each chunk is indexed (a :class:`ReferenceIndex`, exact up to ``exact_max`` rows, and
    ``ngram_exact_max`` for the n-grams: by default always) and searched; only one chunk of
    reference embeddings is held at a time, so the reference side can be larger than
    memory. With a ``scorer`` (a :class:`~pearl.tables.matcher.MatchScorer`), each chunk's
    best rows are those of :meth:`ReferenceIndex.best`: the n-gram weights (IDF) are
    learned from ``idf_texts`` (the reference keys when known) or else from the queries.
    ``values``: the keys are normalised codes, numbers or dates, so a candidate that is
    not its query's value has at most :data:`~pearl.tables.numbers.NUMBERED_APART` and
    ranks after those that are (:func:`~pearl.tables.reference.rank_candidates`).

    Returns
    -------
    ids : ndarray of int64, shape (n_queries, top_k); positions in the concatenated
        reference stream, -1 where fewer than top_k references exist
    scores : ndarray of float32, shape (n_queries, top_k); cosines, or match
        probabilities with a scorer; -inf where no match
    """
    n = len(queries)
    q = query_vectors(queries, encoder, batch_size) if n else np.zeros((0, 1), np.float32)
    ngrams = q_ng = whole = None
    chunks = iter(chunks)
    first = next(chunks, [])
    if scorer is not None:
        from pearl.tables.ngrams import NgramVectorizer

        ngrams = NgramVectorizer()
        if idf_texts and first == idf_texts:  # one chunk, the IDF's texts: counted once
            whole = ngrams.fit_transform(first)
        else:
            ngrams.fit(idf_texts if idf_texts else queries)
        q_ng = ngrams.transform(queries) if n else None
    width = scorer.width(top_k) if scorer is not None else top_k  # + the rivals
    # the lists grow with the references seen, up to ``width`` (a huge top_k costs no more)
    best_s, best_i = np.zeros((n, 0), dtype=np.float32), np.zeros((n, 0), dtype=np.int64)
    offset = 0
    texts: list[str] = []  # with a scorer, the references: copies of a name are no rivals
    for chunk in itertools.chain([first], chunks):
        if not chunk:
            continue
        texts += chunk if scorer is not None else []
        if whole is not None and offset == 0:
            rows = whole
        else:
            rows = ngrams.transform(chunk) if ngrams is not None else None
        index = ReferenceIndex(
            reference_vectors(chunk, encoder, batch_size),
            ngram_rows=rows,
            ids=np.arange(offset, offset + len(chunk), dtype=np.int64),
            exact_max=exact_max,
            ngram_exact_max=ngram_exact_max,
        )
        if n:
            if scorer is None:
                ci, cs = index.embedding_top_k(q, top_k, block=block)
            else:
                ci, cs = index.best(q, q_ng, scorer, width, candidates, block=block)
            best_i, best_s = merge_top_k(best_i, best_s, ci, cs, width)
        offset += len(chunk)
    if scorer is not None:  # the ranking rules, over every chunk's candidates
        best_i, best_s = rank_candidates(
            scorer, queries, best_i, best_s, top_k, texts, values=values
        )
    return best_i, best_s
