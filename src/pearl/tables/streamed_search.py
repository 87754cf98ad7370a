"""Each query's top-k over a stream of reference chunks (:func:`match_strings`): the search
of the single-key :func:`~pearl.tables.join.fuzzy_join`, whose right table may be larger
than memory."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pearl.encoders import TABLE_BATCH_SIZE
from pearl.tables.decision import DECOYS, decided
from pearl.tables.decoys import (
    EXTRA,
    decision_of,
    decoy_evidence,
    distinct_query_decoys,
    hash_sample,
)
from pearl.tables.encoding import query_vectors, reference_vectors
from pearl.tables.nearest import merge_top_k
from pearl.tables.reference import rank_candidates, rank_evidence
from pearl.tables.search import ReferenceIndex

__all__ = ["match_strings", "StreamedCandidates", "stream_candidates", "decided_search"]


@dataclass
class StreamedCandidates:
    """What a search over a stream of reference chunks gathered (:func:`stream_candidates`).

    Attributes
    ----------
    ids, raw : ndarray
        Each query's merged candidates (positions in the concatenated stream, -1 padding)
        and the scorer's raw scores (cosines without a scorer), best first.
    extra_ids, extra_raw : ndarray
        Likewise for the extra queries (reference keys searched as decoys).
    texts : list of str
        The reference keys read, in stream order (with a scorer; else empty).
    ngrams : NgramVectorizer or None
        The n-gram vectoriser the search used (with a scorer).
    """

    ids: np.ndarray
    raw: np.ndarray
    extra_ids: np.ndarray
    extra_raw: np.ndarray
    texts: list[str]
    ngrams: Any


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
    found = stream_candidates(
        queries,
        chunks,
        encoder,
        top_k=top_k,
        batch_size=batch_size,
        block=block,
        scorer=scorer,
        candidates=candidates,
        idf_texts=idf_texts,
        exact_max=exact_max,
        ngram_exact_max=ngram_exact_max,
    )
    best_i, best_s = found.ids, found.raw
    if scorer is not None:  # the ranking rules, over every chunk's candidates
        best_i, best_s = rank_candidates(
            scorer, queries, best_i, best_s, top_k, found.texts, values=values
        )
    return best_i, best_s


def stream_candidates(
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
    extra: list[str] | None = None,
    extra_width: int = 1,
    extra_candidates: int = 10,
) -> StreamedCandidates:
    """Each query's merged candidates over a stream of reference chunks, before the
    ranking rules (:func:`match_strings`' search, the same parameters). ``extra``: more
    texts searched alike in the same pass, embedded as reference keys, each keeping
    ``extra_width`` candidates among ``extra_candidates`` per signal (with a scorer: the
    reference's own keys as decoys, :mod:`pearl.tables.decoys`)."""
    n, extra = len(queries), list(extra or [])
    q = query_vectors(queries, encoder, batch_size) if n else np.zeros((0, 1), np.float32)
    e = reference_vectors(extra, encoder, batch_size) if extra and scorer is not None else None
    ngrams = q_ng = e_ng = whole = None
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
        e_ng = ngrams.transform(extra) if e is not None else None
    width = scorer.width(top_k) if scorer is not None else top_k  # + the rivals
    # the lists grow with the references seen, up to ``width`` (a huge top_k costs no more)
    best_s, best_i = np.zeros((n, 0), dtype=np.float32), np.zeros((n, 0), dtype=np.int64)
    m = len(extra) if e is not None else 0
    extra_s, extra_i = np.zeros((m, 0), dtype=np.float32), np.zeros((m, 0), dtype=np.int64)
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
        if m:
            ci, cs = index.best(e, e_ng, scorer, extra_width, extra_candidates, block=block)
            extra_i, extra_s = merge_top_k(extra_i, extra_s, ci, cs, extra_width)
        offset += len(chunk)
    return StreamedCandidates(best_i, best_s, extra_i, extra_s, texts, ngrams)


def decided_search(
    queries: list[str],
    chunks: Iterable[list[str]],
    encoder: Any,
    keys: list[str],
    scorer: Any,
    *,
    top_k: int = 1,
    batch_size: int = TABLE_BATCH_SIZE,
    candidates: int = 10,
    exact_max: float = math.inf,
    values: bool = False,
) -> tuple[np.ndarray, np.ndarray, Any]:
    """The combined search of distinct ``queries`` over a stream of reference chunks
    (``keys``: every reference key, in stream order, as compared), decided as the
    whole-table join decides (:mod:`pearl.tables.decision`): the reference's decoys
    (:data:`~pearl.tables.decision.DECOYS` keys with the smallest hashes) searched in the
    same pass, the queries' decoys indexed in memory (at most
    :data:`~pearl.tables.decoys.QUERY_INDEX_MAX`). Returns the ranked ids, their decided
    probabilities and the :class:`~pearl.tables.decision.TableDecision` (None where it
    could not be fitted: the matcher's probabilities with the numbers rule as a cap)."""
    decoys = [keys[i] for i in hash_sample(keys, DECOYS)] if len(keys) >= 2 else []
    found = stream_candidates(
        queries,
        chunks,
        encoder,
        top_k=top_k,
        batch_size=batch_size,
        scorer=scorer,
        candidates=candidates,
        idf_texts=keys,
        exact_max=exact_max,
        ngram_exact_max=exact_max,
        extra=decoys,
        extra_width=scorer.width(1) + EXTRA,
        extra_candidates=candidates + EXTRA,
    )
    ids, probs, apart = rank_evidence(
        scorer, queries, found.ids, found.raw, top_k, found.texts, values=values
    )
    if not probs.shape[1]:
        return ids, decided(None, probs, apart), None
    reference_side = decoy_evidence(
        scorer, decoys, found.extra_ids, found.extra_raw, found.texts, values
    )
    query_side = distinct_query_decoys(
        scorer,
        queries,
        len(keys),
        lambda texts: query_vectors(texts, encoder, batch_size),
        found.ngrams.transform,
        values=values,
        candidates=candidates,
        exact_max=exact_max,
    )
    decision = decision_of(probs[:, 0], apart[:, 0], reference_side, query_side)
    return ids, decided(decision, probs, apart), decision
