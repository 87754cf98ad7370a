"""Queries known to have no partner, for the decision estimated on the tables
(:mod:`pearl.tables.decision`): keys of one side ranked against the other keys of that
side, copies of their own name left out.

Two sides give two null distributions: the reference's own keys (:func:`reference_decoys`)
and the queries' (:func:`query_decoys`: distinct queries indexed as the reference is,
as many as it has keys, at most :data:`QUERY_INDEX_MAX`). The samples are the texts with
the smallest content hashes (:func:`hash_sample`), so that the Dask join, which sees
its tables in partitions, draws the same ones as one process.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pearl.tables.decision import DECOYS, TableDecision, cautious, fit_decision
from pearl.tables.encoding import query_vectors
from pearl.tables.matcher import name_ids
from pearl.tables.reference import Reference, rank_evidence
from pearl.tables.search import ReferenceIndex

__all__ = [
    "QUERY_INDEX_MAX",
    "hash_sample",
    "first_rows",
    "text_hashes",
    "decoy_evidence",
    "index_decoys",
    "reference_decoys",
    "query_decoys",
    "distinct_query_decoys",
    "sample_decoys",
    "table_decision",
    "decision_of",
    "query_sample_size",
    "EXTRA",
]

#: At most this many distinct queries are indexed for the queries' decoys.
QUERY_INDEX_MAX = 50_000
#: Candidates searched beyond a query's usual ones: room for copies of its own name.
EXTRA = 2


def text_hashes(texts: Sequence[str]) -> np.ndarray:
    """A stable 64-bit content hash of each text (the same in every process)."""
    digest = (
        hashlib.blake2b(t.encode("utf-8", "surrogatepass"), digest_size=8).digest() for t in texts
    )
    return np.fromiter(
        (int.from_bytes(d, "little") for d in digest), dtype=np.uint64, count=len(texts)
    )


def first_rows(texts: Sequence[str]) -> dict[str, int]:
    """Each distinct text and the position of its first row, in the order first seen."""
    first: dict[str, int] = {}
    for i, t in enumerate(texts):
        first.setdefault(t, i)
    return first


def hash_sample(texts: Sequence[str], k: int) -> np.ndarray:
    """Positions of the ``k`` texts with the smallest :func:`text_hashes` (ties: the first
    position), in that order: a sample of the texts that any partitioning draws alike."""
    order = np.lexsort((np.arange(len(texts)), text_hashes(texts)))
    return order[: max(0, k)]


def decoy_evidence(
    scorer: Any,
    texts: list[str],
    ids: np.ndarray,
    raw: np.ndarray,
    keys: Sequence[str],
    values: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Each decoy's best candidate among ``ids`` (positions in ``keys``, best first by the
    raw scores ``raw``) that is not a copy of its own name: its probability (uncapped,
    -inf where none) and whether its numbers differ (:func:`rank_evidence`)."""
    if not len(texts) or not ids.shape[1]:
        return np.zeros(0), np.zeros(0, bool)
    own = name_ids(list(texts) + [keys[i] for i in ids[ids >= 0]])
    names = np.full(ids.shape, -1, np.int64)
    names[ids >= 0] = own[len(texts) :]
    same = (names == own[: len(texts), None]) & (ids >= 0)
    ids, raw = np.where(same, -1, ids), np.where(same, -np.inf, raw)
    order = np.argsort(-raw, axis=1, kind="stable")
    ids, raw = np.take_along_axis(ids, order, 1), np.take_along_axis(raw, order, 1)
    top_i, top_s, apart = rank_evidence(scorer, texts, ids, raw, 1, keys, values=values)
    if not top_i.shape[1]:
        return np.zeros(0), np.zeros(0, bool)
    best = np.where(top_i[:, 0] >= 0, top_s[:, 0], -np.inf)
    return best.astype(np.float64), apart[:, 0]


def index_decoys(
    scorer: Any,
    index: ReferenceIndex,
    keys: list[str],
    *,
    values: bool = False,
    candidates: int = 10,
    sample: int = DECOYS,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`decoy_evidence` of up to ``sample`` of the keys an ``index`` holds (``keys``:
    every key as compared, at the index's ids; ``values``: codes, numbers or dates), each
    ranked against the index (``candidates`` per signal, and :data:`EXTRA` more)."""
    n = len(index)
    if n < 2 or index.vectors is None or index.ngram_rows is None:
        return np.zeros(0), np.zeros(0, bool)
    pos = hash_sample([keys[i] for i in index.ids], sample)
    texts = [keys[i] for i in index.ids[pos]]
    q, q_ng = index.vectors[pos], index.ngram_rows[pos]
    ids, raw = index.best(q, q_ng, scorer, scorer.width(1) + EXTRA, candidates + EXTRA)
    return decoy_evidence(scorer, texts, ids, raw, keys, values)


def reference_decoys(ref: Reference) -> tuple[np.ndarray, np.ndarray]:
    """The reference's own keys as decoys (:func:`index_decoys`), made once per fitted
    reference."""
    if ref.scorer_ is None:
        return np.zeros(0), np.zeros(0, bool)
    if getattr(ref, "decoys_", None) is None:
        values = ref.value_rule_ is not None
        ref.decoys_ = index_decoys(
            ref.scorer_, ref.index_, ref.keys_, values=values, candidates=ref.candidates
        )
    cached = ref.decoys_
    assert cached is not None
    return cached


def query_sample_size(distinct: int, keys: int) -> int:
    """How many distinct queries the queries' decoys index: as many as the reference has
    keys, at most :data:`QUERY_INDEX_MAX`."""
    return min(distinct, keys, QUERY_INDEX_MAX)


def query_decoys(
    ref: Reference, queries: list[str], ngram_rows: Any = None
) -> tuple[np.ndarray, np.ndarray]:
    """The queries as decoys: a :func:`hash_sample` of the distinct (normalised) queries
    (:func:`query_sample_size`), indexed as the reference is, ranked against each other.
    Queries written otherwise than the keys (clean names against noisy ones, OCR'd
    against clean) find other scores among non-matches than the keys among themselves.
    ``ngram_rows``: the queries' n-gram rows when made beforehand (one per query)."""
    if ref.scorer_ is None:
        return np.zeros(0), np.zeros(0, bool)
    first = first_rows(queries)

    def rows_of(texts: list[str]) -> Any:
        assert ref.ngrams_ is not None  # a reference with a scorer has its n-grams
        if ngram_rows is None:
            return ref.ngrams_.transform(texts)
        return ngram_rows[[first[t] for t in texts]]

    return distinct_query_decoys(
        ref.scorer_,
        list(first),
        len(ref.index_),
        lambda texts: query_vectors(texts, ref.encoder_, ref.batch_size),
        rows_of,
        values=ref.value_rule_ is not None,
        candidates=ref.candidates,
        exact_max=ref.exact_max,
    )


def distinct_query_decoys(
    scorer: Any,
    uniq: list[str],
    n_keys: int,
    vectors_of: Callable[[list[str]], np.ndarray],
    rows_of: Callable[[list[str]], Any],
    *,
    values: bool,
    candidates: int,
    exact_max: float,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`query_decoys` of distinct queries ``uniq`` (as compared) against a reference
    of ``n_keys`` keys: a :func:`hash_sample` of them (:func:`query_sample_size`), their
    unit vectors and n-gram rows (``vectors_of``, ``rows_of``), indexed and ranked against
    each other (:func:`sample_decoys`); empty under two."""
    pos = hash_sample(uniq, query_sample_size(len(uniq), n_keys))
    texts = [uniq[i] for i in pos]
    if len(texts) < 2:
        return np.zeros(0), np.zeros(0, bool)
    return sample_decoys(
        scorer, texts, vectors_of(texts), rows_of(texts), values=values,
        candidates=candidates, exact_max=exact_max,
    )  # fmt: skip


def sample_decoys(
    scorer: Any,
    texts: list[str],
    vectors: np.ndarray,
    ngram_rows: Any,
    *,
    values: bool,
    candidates: int,
    exact_max: float,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`index_decoys` of sampled queries (``texts``, their unit ``vectors`` and
    n-gram rows) indexed as the reference is (exact up to ``exact_max`` keys)."""
    index = ReferenceIndex(
        vectors.astype(np.float32, copy=False),
        ngram_rows=ngram_rows,
        exact_max=exact_max,
        ngram_exact_max=exact_max,
    )
    return index_decoys(scorer, index, texts, values=values, candidates=candidates)


def table_decision(
    ref: Reference,
    best: np.ndarray,
    apart: np.ndarray,
    queries: list[str],
    ngram_rows: Any = None,
) -> TableDecision | None:
    """The decision of a one-key join on its rows' best candidates (uncapped
    probabilities, numbers apart), fitted on each side's decoys
    (:func:`decision_of`); ``ngram_rows``: the queries' n-gram rows, made beforehand."""
    return decision_of(best, apart, reference_decoys(ref), query_decoys(ref, queries, ngram_rows))


def decision_of(
    best: np.ndarray, apart: np.ndarray, *decoys: tuple[np.ndarray, np.ndarray]
) -> TableDecision | None:
    """:func:`~pearl.tables.decision.fit_decision` on each side's decoys, each link's
    chance the lower of the fits (:func:`~pearl.tables.decision.cautious`)."""
    return cautious([fit_decision(best, apart, *d) for d in decoys])
