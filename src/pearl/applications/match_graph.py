"""The sparse match graph of a column: each distinct value linked to its nearest
neighbours by embedding and by character n-grams, every link weighted by the matcher's
probability (or the embedding cosine). What :func:`~pearl.cluster` cuts, at any size."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from pearl.applications.candidates import top_k_of

__all__ = [
    "MatchGraph",
    "abbreviation_apart",
    "match_graph",
    "nearest_neighbours",
    "ngram_candidates",
    "one_edit_apart",
    "pair_cosines",
    "sketch",
    "sketch_index",
]

#: Above this many values the neighbours are searched approximately (a faiss HNSW graph):
#: the exact search is quadratic.
EXACT_MAX = 20_000
#: HNSW links per node, and the candidate list widths when the graph is built and searched.
#: Chosen on corpus phrases and their misspellings (``experiments/dedup_neighbours.py``, no
#: benchmark file): at 300,000 values they find 86% of the exact 6 nearest in 45 s, where
#: the former IVF search (2 sqrt(n) lists, 16 probes) found 85% in 72 s; IVF's cost per
#: query grows with sqrt(n), HNSW's with log(n).
HNSW_LINKS, HNSW_BUILD_WIDTH, HNSW_SEARCH_WIDTH = 16, 32, 32


@dataclass
class MatchGraph:
    """Undirected weighted edges between distinct values ``rows[e] < cols[e]``.

    Attributes
    ----------
    n : int
        Number of values (nodes).
    rows, cols : ndarray of int64
    weights : ndarray of float32
        Match probability (or cosine) of each edge.
    """

    n: int
    rows: np.ndarray
    cols: np.ndarray
    weights: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)


def _approximate_neighbours(x: np.ndarray, top_k: int) -> np.ndarray:
    """faiss HNSW over the rows, each row searched for its ``top_k + 1`` nearest.

    The graph is built on all of faiss's threads, so two runs can differ on a few
    neighbours; ``faiss.omp_set_num_threads(1)`` makes it reproducible (and slower)."""
    import faiss

    index = faiss.IndexHNSWFlat(x.shape[1], HNSW_LINKS, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = HNSW_BUILD_WIDTH
    index.add(x)
    index.hnsw.efSearch = max(HNSW_SEARCH_WIDTH, top_k + 1)
    _, ids = index.search(x, top_k + 1)
    return ids


def nearest_neighbours(
    x: np.ndarray, top_k: int, *, exact_max: int | None = None, block: int | None = None
) -> np.ndarray:
    """The ``top_k`` nearest other rows of each unit row of ``x`` by inner product.

    Exact (blocked matrix products) up to ``exact_max`` rows, approximate above (a faiss
    HNSW graph; default :data:`EXACT_MAX`). Returns int64 ids, shape
    ``(n, top_k)``, -1 where none."""
    exact_max = EXACT_MAX if exact_max is None else exact_max
    x = np.ascontiguousarray(x, dtype=np.float32)
    n = len(x)
    k = min(top_k, n - 1)
    if k <= 0:
        return np.full((n, 0), -1, dtype=np.int64)
    if n <= exact_max:
        ids, _ = top_k_of(x, x, np.arange(n, dtype=np.int64), k + 1, block)
    else:
        ids = _approximate_neighbours(x, k).astype(np.int64)
    own = ids == np.arange(n)[:, None]
    # drop each row's own id (or its last column when the row was not found itself)
    drop = np.where(own.any(axis=1), own.argmax(axis=1), ids.shape[1] - 1)
    keep = np.ones(ids.shape, dtype=bool)
    keep[np.arange(n), drop] = False
    return ids[keep].reshape(n, ids.shape[1] - 1)[:, :k]


@functools.lru_cache(maxsize=4)
def _projection(n_features: int, dim: int, per_feature: int = 4):
    """A seeded sparse random projection of ``n_features`` columns to ``dim``: each column
    lands on ``per_feature`` random dimensions with random signs (a sparse
    Johnson-Lindenstrauss transform), float32 CSR of shape ``(n_features, dim)``, made in
    well under a second for the 2^21 n-gram columns. (scikit-learn's
    ``SparseRandomProjection`` defaults to a density of ``1/sqrt(n_features)``, which put
    most n-grams on no dimension at all.)"""
    from scipy.sparse import csr_matrix

    rng = np.random.default_rng(0)
    size = n_features * per_feature
    cols = rng.integers(0, dim, size=size, dtype=np.int32)
    signs = rng.integers(0, 2, size=size, dtype=np.int8).astype(np.float32) * 2 - 1
    indptr = np.arange(0, size + 1, per_feature, dtype=np.int64)
    return csr_matrix((signs / np.sqrt(per_feature), cols, indptr), shape=(n_features, dim))


def sketch(ng, dim: int = 128, chunk: int = 1 << 16) -> np.ndarray:
    """Unit float32 rows of a seeded sparse random projection of sparse rows to ``dim``
    dimensions (cosines approximately kept), a chunk of rows at a time: the projection of
    a million rows is dense (0.5 GB); its float64 intermediate is never whole."""
    comp_t = _projection(ng.shape[1], dim)
    out = np.empty((ng.shape[0], dim), dtype=np.float32)
    for s in range(0, ng.shape[0], chunk):
        part = (ng[s : s + chunk] @ comp_t).toarray()
        norms = np.linalg.norm(part, axis=1, keepdims=True)
        out[s : s + chunk] = part / np.where(norms > 0, norms, 1.0)
    return out


def _ngram_neighbours(ng, top_k: int, exact_max: int, dim: int = 128) -> np.ndarray:
    """Nearest rows by n-gram cosine: exact sparse products in blocks up to
    ``exact_max // 4`` rows (a sparse product of n-gram rows costs more than a dense one:
    7.6 s against 2.0 s at 20,000 corpus phrases), else the nearest rows of a random
    projection of the rows (to ``dim`` dims; see :func:`nearest_neighbours`). 128 dims
    gave the same clusters as 256 on 100,000 corpus phrases and their typos (pairwise F1
    0.509 both), in 20% less time."""
    n = ng.shape[0]
    k = min(top_k, n - 1)
    if k <= 0:
        return np.full((n, 0), -1, dtype=np.int64)
    if n > exact_max // 4:
        return nearest_neighbours(sketch(ng, dim), k, exact_max=exact_max)
    return _exact_ngram_top_k(ng, ng, k, same_rows=True)


def _shared_columns(q_ng, r_ng):
    """``q_ng`` and the transpose of ``r_ng`` (CSR) on the columns ``r_ng`` uses, in
    order: the same products, without the two million hashed columns' bookkeeping."""
    from scipy.sparse import csr_matrix

    from pearl.applications.ngrams import positions_in

    used = np.unique(r_ng.indices)
    r = csr_matrix(
        (r_ng.data, np.searchsorted(used, r_ng.indices), r_ng.indptr),
        shape=(r_ng.shape[0], len(used)),
    )
    at, keep = positions_in(used, q_ng.indices)
    rows = np.repeat(np.arange(q_ng.shape[0]), np.diff(q_ng.indptr))
    q = csr_matrix((q_ng.data[keep], (rows[keep], at[keep])), shape=(q_ng.shape[0], len(used)))
    return q, r.T.tocsr()


def _exact_ngram_top_k(q_ng, r_ng, k: int, same_rows: bool = False) -> np.ndarray:
    """The ``k`` reference rows of highest n-gram cosine per query row, by sparse products
    in blocks (ties to the lower id); with ``same_rows`` (queries are the references)
    a row never finds itself."""
    nq, nr = q_ng.shape[0], r_ng.shape[0]
    out = np.empty((nq, k), dtype=np.int64)
    block = max(1, min(nq, (1 << 23) // nr))
    q_ng, r_t = _shared_columns(q_ng, r_ng)
    for s in range(0, nq, block):
        sims = (q_ng[s : s + block] @ r_t).toarray()
        if same_rows:
            sims[np.arange(len(sims)), np.arange(s, s + len(sims))] = -np.inf
        j = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        order = np.lexsort((j, -np.take_along_axis(sims, j, 1)), axis=1)
        out[s : s + block] = np.take_along_axis(j, order, 1)
    return out


def sketch_index(r_ng, dim: int = 128):
    """A faiss index of the :func:`sketch` of sparse n-gram rows for nearest-row searches:
    4-bit product quantisation of its ``dim`` dimensions in pairs, scanned with SIMD
    lookups (``IndexPQFastScan``, 32 bytes a row). On 20,000 corpus phrases it searches
    5,000 queries in 0.11 s where the flat float sketch takes 0.26 s, and the combined
    search's top-1 moves from 87.1 to 87.0 (``experiments/index_candidates.py``)."""
    import faiss

    x = sketch(r_ng, dim)
    index = faiss.IndexPQFastScan(dim, dim // 2, 4, faiss.METRIC_INNER_PRODUCT)
    index.train(x)
    index.add(x)
    return index


def ngram_candidates(
    q_ng, r_ng, top_k: int, *, exact_max: int | None = None, r_index=None
) -> np.ndarray:
    """The ``top_k`` reference rows of each query row by n-gram cosine (unit sparse rows).

    Exact sparse products up to ``exact_max // 4`` reference rows (default
    :data:`EXACT_MAX`); above, the nearest rows by the queries' :func:`sketch` in the
    references' :func:`sketch_index` (pass ``r_index`` to reuse it). Returns int64 ids,
    shape ``(n_queries, min(top_k, n_references))``, -1 where none was found.
    """
    exact_max = EXACT_MAX if exact_max is None else exact_max
    nq, nr = q_ng.shape[0], r_ng.shape[0]
    k = min(top_k, nr)
    if k <= 0 or nq == 0:
        return np.full((nq, max(k, 0)), -1, dtype=np.int64)
    if nr > exact_max // 4:
        index = sketch_index(r_ng) if r_index is None else r_index
        return index.search(sketch(q_ng, index.d), k)[1].astype(np.int64)
    return _exact_ngram_top_k(q_ng, r_ng, k)


def _pairs(*neighbour_lists: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unique undirected pairs ``i < j`` of the neighbour lists."""
    rows, cols = [], []
    for ids in neighbour_lists:
        i = np.repeat(np.arange(len(ids), dtype=np.int64), ids.shape[1])
        j = ids.ravel()
        ok = (j >= 0) & (j != i)
        rows.append(np.minimum(i, j)[ok])
        cols.append(np.maximum(i, j)[ok])
    if not rows:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    key = np.unique(np.concatenate(rows) * (1 << 32) + np.concatenate(cols))
    return key >> 32, key & ((1 << 32) - 1)


def pair_cosines(a, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Cosines of unit rows ``a[rows[e]]`` and ``a[cols[e]]`` (dense or sparse ``a``),
    float32. Pairs are taken in chunks that keep the gathered rows in the CPU cache
    (8,192 dense rows, 32,768 sparse ones): on 220,000 pairs, 2x faster for 256-d
    embeddings and 1.6x for n-gram rows than one gather of every pair."""
    dense = isinstance(a, np.ndarray)
    chunk = 1 << 13 if dense else 1 << 15
    out = np.empty(len(rows), dtype=np.float32)
    for s in range(0, len(rows), chunk):
        r, c = rows[s : s + chunk], cols[s : s + chunk]
        if dense:
            out[s : s + chunk] = np.einsum("ij,ij->i", a[r], a[c])
        else:
            out[s : s + chunk] = np.asarray(a[r].multiply(a[c]).sum(axis=1)).ravel()
    return out


def match_graph(
    texts: list[str],
    embeddings: np.ndarray,
    scorer=None,
    *,
    top_k: int = 10,
    exact_max: int | None = None,
    one_edit: tuple[float, int] | None = None,
    abbreviation: float | None = None,
) -> MatchGraph:
    """Link each value to its ``top_k`` nearest by embedding and, with a ``scorer``, its
    ``top_k`` nearest by n-gram cosine; weigh each link by ``scorer.probability`` of the
    pair's two cosines (without a scorer: the embedding cosine).

    Parameters
    ----------
    texts : list of str
        Distinct values.
    embeddings : ndarray, shape (len(texts), dim)
        Their unit embeddings.
    scorer : MatchScorer, optional
    top_k : int, default=10
        Neighbours per value and per signal.
    exact_max : int, optional
        Up to this many values the neighbours are exact; above, approximate (default
        :data:`EXACT_MAX`).
    one_edit : (float, int), optional
        ``(boost, min_length)``: with a ``scorer``, a link between two values one typo
        apart (:func:`one_edit_apart`, the shorter at least ``min_length`` characters)
        gets the probability ``max(p, boost)``.
    abbreviation : float, optional
        With a ``scorer``, a link between two values that abbreviate each other
        (:func:`abbreviation_apart`) gets at least this probability.

    Returns
    -------
    MatchGraph
    """
    n = len(texts)
    exact_max = EXACT_MAX if exact_max is None else exact_max
    emb_nn = nearest_neighbours(embeddings, top_k, exact_max=exact_max)
    if scorer is None:
        rows, cols = _pairs(emb_nn)
        return MatchGraph(n, rows, cols, pair_cosines(embeddings, rows, cols))
    from pearl.applications.ngrams import NgramVectorizer

    ng = NgramVectorizer().fit_transform(texts)
    rows, cols = _pairs(emb_nn, _ngram_neighbours(ng, top_k, exact_max))
    weights = np.asarray(
        scorer.probability(pair_cosines(embeddings, rows, cols), pair_cosines(ng, rows, cols)),
        dtype=np.float32,
    )
    if one_edit is not None:
        boost, min_length = one_edit
        near = one_edit_apart(texts, rows, cols, min_length)
        weights = np.where(near, np.maximum(weights, boost), weights).astype(np.float32)
    if abbreviation is not None:
        near = abbreviation_apart(texts, rows, cols)
        weights = np.where(near, np.maximum(weights, abbreviation), weights).astype(np.float32)
    return MatchGraph(n, rows, cols, weights)


def _within_one_edit(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with at most one edit: a substitution, an insertion, a
    deletion or a swap of two adjacent characters (optimal string alignment)."""
    if len(a) > len(b):
        a, b = b, a
    if len(b) - len(a) > 1:
        return False
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1 :] == b[i + 1 :] or (
            i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]
        )
    return a[i:] == b[i + 1 :]


def one_edit_apart(
    texts: list[str], rows: np.ndarray, cols: np.ndarray, min_length: int = 1
) -> np.ndarray:
    """For each pair ``(texts[rows[e]], texts[cols[e]])``: whether the two differ, case
    aside, by exactly one edit (a substitution, an insertion, a deletion or a swap of two
    adjacent characters) and the shorter has at least ``min_length`` characters. The
    typos of a keyboard (a slip, a dropped or doubled letter, two letters swapped) are
    one edit.

    Returns
    -------
    ndarray of bool, shape (len(rows),)
    """
    lower = [t.lower() for t in texts]
    length = np.fromiter((len(t) for t in lower), dtype=np.int64, count=len(lower))
    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    out = np.zeros(len(rows), dtype=bool)
    near = np.flatnonzero(
        (np.abs(length[rows] - length[cols]) <= 1)
        & (np.minimum(length[rows], length[cols]) >= min_length)
    )
    pairs = zip(rows[near].tolist(), cols[near].tolist(), strict=True)
    out[near] = [lower[i] != lower[j] and _within_one_edit(lower[i], lower[j]) for i, j in pairs]
    return out


def _abbreviates(short: str, long: str) -> bool:
    """Whether ``short`` (2+ characters) abbreviates ``long``: same first letter, shorter,
    and its letters appear in order in ``long`` ("intl", "corp", "lit" of "little")."""
    if len(short) < 2 or len(short) >= len(long) or short[0] != long[0]:
        return False
    rest = iter(long[1:])
    return all(ch in rest for ch in short[1:])


def _abbreviation_pair(wa: list[str], wb: list[str]) -> bool:
    if wa == wb:
        return False
    return all(
        x == y or _abbreviates(x, y) or _abbreviates(y, x) for x, y in zip(wa, wb, strict=True)
    )


def abbreviation_apart(texts: list[str], rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """For each pair ``(texts[rows[e]], texts[cols[e]])``: whether the two have as many
    words and each word of one equals the other's or abbreviates it (case and a final dot
    aside; an abbreviation has 2+ letters, the same first letter and its letters in order:
    "Corp." of "Corporation", "Intl" of "International", "Lit." of "Little"), at least
    one word being abbreviated.

    Returns
    -------
    ndarray of bool, shape (len(rows),)
    """
    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    words = [[w.rstrip(".") for w in t.lower().split()] for t in texts]
    # word by word, an abbreviation keeps the first letter: pairs whose words' initials
    # differ (most of them) are never compared letter by letter
    initials: dict[str, int] = {}
    key = np.fromiter(
        (
            initials.setdefault("".join(w[:1] for w in ws) + f"|{len(ws)}", len(initials))
            for ws in words
        ),
        dtype=np.int64,
        count=len(words),
    )
    out = np.zeros(len(rows), dtype=bool)
    same = np.flatnonzero(key[rows] == key[cols])
    pairs = zip(rows[same].tolist(), cols[same].tolist(), strict=True)
    out[same] = [_abbreviation_pair(words[i], words[j]) for i, j in pairs]
    return out
