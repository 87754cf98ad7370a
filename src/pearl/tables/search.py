"""The reference index: where every table tool searches.

A :class:`ReferenceIndex` holds reference rows (their unit embeddings and, for the
combined matcher, their unit character n-gram rows) and searches each signal: exactly by
blocked matrix products up to a size, approximately above it (a faiss HNSW graph or a
user's faiss index for the embeddings, a product-quantised sketch for the n-grams).
:meth:`ReferenceIndex.best` rescores both signals' candidates with the one scorer.

- ``fuzzy_join`` indexes each reference chunk, searched by the left keys
  (:func:`~pearl.tables.join.match_strings`);
- ``deduplicate`` and ``cluster`` search the index of a column's values with the values
  themselves (:meth:`ReferenceIndex.neighbours`), then cut the match graph;
- :class:`~pearl.EntityIndex` is this index over a faiss index, saved and loaded;
- record linkage searches one index per text field; the Dask join one index per shard.
The one module of the table tools that imports faiss (a test checks it).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from pearl.tables.nearest import (
    _block_rows,
    _drop_own,
    _exact_ngram_top_k,
    _ranked,
    _shared_columns,
    for_blocks,
    largest_columns,
    merge_top_k,
    sketch,
    top_k_of,
)

__all__ = [
    "EXACT_MAX",
    "ReferenceIndex",
    "exact_ngrams",
    "merge_top_k",
    "sketch",
    "top_k_of",
]

#: Above this many rows, embeddings are searched approximately (a faiss HNSW graph), and
#: above a quarter of it the n-grams (a sparse product costs about four dense ones: 7.6 s
#: against 2.0 s at 20,000 corpus phrases).
EXACT_MAX = 20_000
#: HNSW links per node, and the candidate list widths when the graph is built and searched.
#: Chosen on corpus phrases and their misspellings (``experiments/dedup_neighbours.py``, no
#: benchmark file): at 300,000 values they find 86% of the exact 6 nearest in 45 s, where
#: an IVF search (2 sqrt(n) lists, 16 probes) found 85% in 72 s; IVF's cost per query
#: grows with sqrt(n), HNSW's with log(n).
HNSW_LINKS, HNSW_BUILD_WIDTH, HNSW_SEARCH_WIDTH = 16, 32, 32
#: Queries up to which a search is exact while no graph is built (half its cost at most).
EXACT_QUERIES = 4_000


def exact_ngrams(n_rows: int, exact_max: float = EXACT_MAX) -> bool:
    """Whether a reference index of ``n_rows`` rows searches their n-grams exactly: up to
    a quarter of its size limit ``exact_max``."""
    return n_rows <= exact_max / 4


# -- faiss ----------------------------------------------------------------------------------
def _hnsw(x: np.ndarray, links: int, build_width: int, search_width: int):
    import faiss

    index = faiss.IndexHNSWFlat(x.shape[1], links, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = build_width
    index.hnsw.efSearch = search_width
    if len(x):
        index.add(np.ascontiguousarray(x, dtype=np.float32))
    return index


@contextlib.contextmanager
def _one_openmp_thread() -> Iterator[None]:
    """faiss on one OpenMP thread while a sketch's quantiser is trained: its k-means opens
    thousands of tiny parallel regions, each waiting for every thread (with another busy
    process on the machine, 10,000 rows took 16-41 s on two threads, 0.17 s on one).
    OpenMP's thread count is the calling thread's own, so threads training at once (record
    linkage's fields) each set and restore theirs."""
    import faiss

    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(before)


def _sketch_index(x: np.ndarray):
    """A faiss index of the :func:`sketch` ``x`` of sparse n-gram rows: 4-bit product
    quantisation of its dimensions in pairs, scanned with SIMD lookups
    (``IndexPQFastScan``, 32 bytes a row). On 20,000 corpus phrases it searches 5,000
    queries in 0.11 s where the flat float sketch takes 0.26 s, and the combined search's
    top-1 moves from 87.1 to 87.0 (``experiments/index_candidates.py``)."""
    import faiss

    index = faiss.IndexPQFastScan(x.shape[1], x.shape[1] // 2, 4, faiss.METRIC_INNER_PRODUCT)
    # 16 centroids in 2 dimensions: 5 rounds on 256 sampled rows train in 13 ms where
    # faiss's default (25 rounds on 4,096) took 0.26 s for 10,000 rows and 10 rounds on
    # 1,024 took 40 ms (benchmarks/speed/index_search.py: the same top-1)
    index.pq.cp.niter, index.pq.cp.max_points_per_centroid = 5, 16
    index.pq.train_type = faiss.ProductQuantizer.Train_shared
    with _one_openmp_thread():
        index.train(x)
    index.add(x)
    return index


def new_faiss_index(kind: str, dim: int, train: np.ndarray, *, hnsw_m=32, ef_search=128, nprobe=16):
    """An empty faiss index of unit vectors by inner product: ``"flat"`` (exact), ``"hnsw"``
    (a graph) or ``"ivf"`` (inverted lists trained on ``train``, ``nlist = 4 sqrt(n)``)."""
    import faiss

    if kind == "flat":
        return faiss.IndexFlatIP(dim)
    if kind == "hnsw":  # faiss's default build width (40)
        return _hnsw(np.zeros((0, dim), np.float32), hnsw_m, 40, ef_search)
    nlist = max(1, min(int(4 * np.sqrt(len(train))), len(train) // 39 or 1))
    index = faiss.IndexIVFFlat(faiss.IndexFlatIP(dim), dim, nlist, faiss.METRIC_INNER_PRODUCT)
    index.cp.seed = 0
    index.train(train)
    index.nprobe = nprobe
    return index


def hnsw_bytes(x: np.ndarray, links: int = 32, search_width: int = 128) -> np.ndarray:
    """A faiss HNSW graph over unit rows ``x``, serialised (a Dask shard ships it)."""
    import faiss

    return faiss.serialize_index(_hnsw(x, links, 40, search_width))


def index_from_bytes(data: np.ndarray):
    import faiss

    return faiss.deserialize_index(data)


def write_faiss(index, path: Path) -> None:
    import faiss

    faiss.write_index(index, str(path))


def read_faiss(path: Path):
    import faiss

    return faiss.read_index(str(path))


def ivf_ids_out_of_range(index) -> int | None:
    """The first inverted list of an IVF index holding an id outside ``0..ntotal-1``, or
    None (also for any other kind of index); an IVF index whose ids are all valid gets its
    direct map, so that its stored vectors can be read back."""
    import faiss

    ivf: Any = faiss.try_extract_index_ivf(index)
    if ivf is None:
        return None
    for i in range(ivf.invlists.nlist):
        n = ivf.invlists.list_size(i)
        if n:
            ids = faiss.rev_swig_ptr(ivf.invlists.get_ids(i), n)
            if ids.min() < 0 or ids.max() >= index.ntotal:
                return i
    ivf.make_direct_map()
    return None


def _stored_vectors(index, ids: np.ndarray) -> np.ndarray:
    """Rows ``ids`` of the vectors a faiss index holds, read in place where stored flat."""
    import faiss

    if isinstance(index, faiss.IndexIVF):
        index.make_direct_map()  # lets the list-stored vectors be read back
        return index.reconstruct_batch(ids)
    store = getattr(index, "storage", None)
    flat: Any = faiss.downcast_index(store) if store is not None else index
    stored = faiss.rev_swig_ptr(flat.get_xb(), flat.ntotal * flat.d)
    return stored.reshape(flat.ntotal, flat.d)[ids]


# -- the index ------------------------------------------------------------------------------
class ReferenceIndex:
    """Reference rows searched by embedding and by character n-grams.

    Parameters
    ----------
    vectors : ndarray of float32, shape (n, dim), optional
        The references' unit embeddings (held by ``faiss_index`` instead, when given).
    ngram_rows : sparse matrix, shape (n, n_features), optional
        The references' unit n-gram rows (:class:`~pearl.tables.ngrams.NgramVectorizer`):
        the n-gram signal of the combined matcher.
    ids : ndarray of int64, shape (n,), optional
        The id reported for each row, increasing (default: the row positions): a chunk or
        shard of a larger reference table reports its rows' places in the whole table.
    exact_max : int or float, optional
        Up to this many rows the embeddings are searched exactly, and up to a quarter of it
        the n-grams; above, approximately (a faiss HNSW graph and a product-quantised
        n-gram sketch, each made on its first search; the embeddings exactly for at most
        :data:`EXACT_QUERIES` queries). Default :data:`EXACT_MAX`; ``math.inf``: exact.
    faiss_index : faiss index, optional
        A faiss index that holds the embeddings and answers their searches (flat, HNSW or
        IVF: :class:`~pearl.EntityIndex`'s choice).
    ngram_exact_max : int or float, optional
        The n-grams' own size limit (default: a quarter of ``exact_max``).
    ngram_sketch : ndarray of float32, shape (n, SKETCH_DIM), optional
        The n-gram rows' sketch made beforehand (:func:`~pearl.tables.nearest.block_sketch`
        of rows made of blocks), indexed by the approximate search instead of a sketch of
        ``ngram_rows``; without ``ngram_rows``, the n-grams are searched approximately at
        any size, and queries come as sketches too.
    """

    def __init__(
        self,
        vectors: np.ndarray | None = None,
        *,
        ngram_rows=None,
        ids: np.ndarray | None = None,
        exact_max: float | None = None,
        faiss_index=None,
        ngram_exact_max: float | None = None,
        ngram_sketch: np.ndarray | None = None,
    ) -> None:
        self.vectors: Any = vectors
        self.ngram_rows = ngram_rows
        self.ngram_sketch = ngram_sketch
        self.faiss_index = faiss_index
        self.exact_max = EXACT_MAX if exact_max is None else exact_max
        self.ngram_exact_max = ngram_exact_max
        self.ids = np.arange(len(self), dtype=np.int64) if ids is None else ids
        self._hnsw: Any = None  # approximate structures, made on first use
        self._sketch: Any = None

    def __len__(self) -> int:
        if self.faiss_index is not None:
            return int(self.faiss_index.ntotal)
        if self.vectors is not None:
            return len(self.vectors)
        if self.ngram_rows is not None:
            return self.ngram_rows.shape[0]
        return 0 if self.ngram_sketch is None else len(self.ngram_sketch)

    def _exact_embeddings(self, n_queries: float = math.inf) -> bool:
        return len(self) <= self.exact_max or (n_queries <= EXACT_QUERIES and self._hnsw is None)

    def _exact_ngrams(self) -> bool:
        if self.ngram_rows is None:
            return False
        if self.ngram_exact_max is None:
            return exact_ngrams(len(self), self.exact_max)
        return len(self) <= self.ngram_exact_max

    def _ids_at(self, positions: np.ndarray) -> np.ndarray:
        """The reported ids of row positions (-1 stays -1)."""
        return np.where(positions >= 0, self.ids[np.maximum(positions, 0)], -1)

    def vectors_at(self, positions: np.ndarray) -> np.ndarray:
        """The embeddings of rows ``positions`` (any shape of non-negative positions)."""
        flat = np.asarray(positions).ravel()
        if self.faiss_index is not None:
            vecs = _stored_vectors(self.faiss_index, flat)
        else:
            vecs = self.vectors[flat]
        return vecs.reshape(*np.shape(positions), -1)

    # -- one signal -----------------------------------------------------------------------
    def _embedding_search(self, q: np.ndarray, k: int, block=None, n_queries=None):
        """Positions and cosines of each query's ``k`` nearest rows (of ``n_queries``)."""
        k = min(k, len(self))
        if self.faiss_index is None and self._exact_embeddings(n_queries or len(q)):
            return top_k_of(q, self.vectors, np.arange(len(self), dtype=np.int64), k, block)
        index = self.faiss_index
        if index is None:
            if self._hnsw is None:
                self._hnsw = _hnsw(self.vectors, HNSW_LINKS, HNSW_BUILD_WIDTH, HNSW_SEARCH_WIDTH)
            index = self._hnsw
            index.hnsw.efSearch = max(HNSW_SEARCH_WIDTH, k)
        scores, pos = index.search(np.ascontiguousarray(q, dtype=np.float32), k)
        return pos.astype(np.int64), scores.astype(np.float32)

    def embedding_top_k(self, q: np.ndarray, k: int, *, block: int | None = None):
        """Each unit query row's ``k`` nearest rows by embedding cosine.

        Returns
        -------
        ids : ndarray of int64, shape (len(q), min(k, len(self))); -1 where an approximate
            search finds fewer
        scores : ndarray of float32, the same shape
        """
        pos, scores = self._embedding_search(q, k, block)
        ids = self._ids_at(pos)
        if self.faiss_index is None and self._hnsw is None:
            return ids, scores
        return _ranked(ids, scores, ids.shape[1])  # the one tie rule

    def _ngram_search(self, q_ng, k: int) -> np.ndarray:
        """Positions of each query row's ``k`` nearest rows by n-gram cosine."""
        nq, nr = q_ng.shape[0], len(self)
        k = min(k, nr)
        if k <= 0 or nq == 0:
            return np.full((nq, max(k, 0)), -1, dtype=np.int64)
        if self._exact_ngrams():
            return _exact_ngram_top_k(q_ng, self.ngram_rows, k)
        if self._sketch is None:
            x = sketch(self.ngram_rows) if self.ngram_sketch is None else self.ngram_sketch
            self._sketch = _sketch_index(x)
        q = q_ng if isinstance(q_ng, np.ndarray) else sketch(q_ng, self._sketch.d)
        return self._sketch.search(q, k)[1].astype(np.int64)

    def ngram_top_k(self, q_ng, k: int) -> np.ndarray:
        """Each query's ``k`` nearest rows by n-gram cosine (unit sparse rows ``q_ng``, or
        their sketch where the search is approximate):
        ids, shape ``(n_queries, min(k, len(self)))``, -1 where none was found."""
        return self._ids_at(self._ngram_search(q_ng, k))

    # -- both signals, one scorer ---------------------------------------------------------
    def candidates(self, q: np.ndarray, q_ng, per_signal: int, n_queries=None):
        """Each query's ``per_signal`` nearest rows by embedding and ``per_signal`` nearest
        by n-gram cosine, merged (each row once, -1 padding, in increasing position).

        Returns
        -------
        positions : ndarray of int64, shape (len(q), 2 * per_signal at most)
        emb_cos, ngram_cos : ndarray, the same shape; the two cosines (-inf / 0 at padding)
        """
        emb_pos, emb_s = self._embedding_search(q, per_signal, n_queries=n_queries)
        ng_pos = self._ngram_search(q_ng, per_signal)
        safe = np.maximum(ng_pos, 0)
        ng_emb = np.einsum("nd,ncd->nc", q, self.vectors_at(safe)).astype(np.float32)
        ng_emb[ng_pos < 0] = -np.inf
        pos = np.concatenate([emb_pos, ng_pos], axis=1)
        emb = np.concatenate([emb_s, ng_emb], axis=1)
        order = np.argsort(pos, axis=1, kind="stable")
        pos, emb = np.take_along_axis(pos, order, 1), np.take_along_axis(emb, order, 1)
        pos[:, 1:][pos[:, 1:] == pos[:, :-1]] = -1  # each row once
        emb[pos < 0] = -np.inf
        ng = np.zeros(pos.shape)
        at = np.nonzero(pos >= 0)  # the padding's n-gram cosines are never read
        rows, queries = pos[at], at[0]

        def cosines(s: int, e: int) -> np.ndarray:
            pairs = self.ngram_rows[rows[s:e]].multiply(q_ng[queries[s:e]])
            return np.asarray(pairs.sum(axis=1)).ravel()

        if len(rows):  # SciPy's products on the CPUs' threads
            ng[at] = np.concatenate(for_blocks(cosines, len(rows), len(rows)))
        return pos, emb, ng

    def best(self, q, q_ng, scorer, width: int, per_signal: int = 10, *, block=None):
        """Each query's ``width`` best rows by the scorer's raw score (which ranks without
        the calibration's flat steps;
        :func:`~pearl.tables.matcher.keep_top` makes probabilities), among the
        ``per_signal`` nearest by embedding and by n-grams.

        An exact index scores the candidates from the blocked products that found them;
        an approximate one (or one over a faiss index) gathers their cosines.

        Returns
        -------
        ids : ndarray of int64, shape (len(q), min(width, len(self))), -1 padding
        scores : ndarray, the same shape, -inf at padding
        """
        if self.faiss_index is None and self._exact_ngrams():
            return self._exact_best(q, q_ng, scorer, width, per_signal, block)
        out_i, out_s = [], []
        step = block or 1024  # queries at a time: their candidates' vectors stay small
        for s in range(0, max(len(q), 1), step):
            pos, emb, ng = self.candidates(q[s : s + step], q_ng[s : s + step], per_signal, len(q))
            raw = scorer.score(np.where(pos >= 0, emb, 0.0), ng)
            raw[pos < 0] = -np.inf
            top_i, top_s = _ranked(self._ids_at(pos), raw, width)
            out_i.append(top_i)
            out_s.append(top_s)
        return np.concatenate(out_i), np.concatenate(out_s)

    def _exact_best(self, q, q_ng, scorer, width, per_signal, block):
        r, r_ng = self.vectors, self.ngram_rows
        width = min(width, len(r))
        best_s = np.full((len(q), width), -np.inf, dtype=np.float32)
        best_i = np.full((len(q), width), -1, dtype=np.int64)
        if not len(r):
            return best_i, best_s
        c = min(per_signal, len(r))
        block = block or _block_rows(len(r), 1024, 1 << 23)
        q_ng, r_t = _shared_columns(q_ng, r_ng)  # the same products, on r_ng's columns only

        def one(s: int, e: int) -> None:
            emb = q[s:e] @ r.T
            ng = (q_ng[s:e] @ r_t).toarray()
            cand = np.concatenate([largest_columns(x, c) for x in (emb, ng)], axis=1)
            cand.sort(axis=1)
            prob = scorer.score(np.take_along_axis(emb, cand, 1), np.take_along_axis(ng, cand, 1))
            prob[:, 1:][cand[:, 1:] == cand[:, :-1]] = -np.inf  # each candidate once
            best_i[s:e], best_s[s:e] = merge_top_k(
                best_i[s:e], best_s[s:e], self.ids[cand], prob, width
            )

        for_blocks(one, len(q), block)
        return best_i, best_s

    # -- the rows searched with themselves ------------------------------------------------
    def neighbours(self, top_k: int) -> tuple[Any, np.ndarray | None]:
        """Each row's ``top_k`` nearest other rows (positions) by embedding and, when the
        index holds n-gram rows, by n-gram cosine (else None); -1 where none."""
        emb = None if self.vectors is None else _self_top_k(self.vectors, top_k, self.exact_max)
        ng = None
        if self.ngram_rows is not None:
            n, k = self.ngram_rows.shape[0], min(top_k, self.ngram_rows.shape[0] - 1)
            if k <= 0:
                ng = np.full((n, 0), -1, dtype=np.int64)
            elif not self._exact_ngrams():
                ng = _self_top_k(sketch(self.ngram_rows), k, self.exact_max)
            else:
                ng = _exact_ngram_top_k(self.ngram_rows, self.ngram_rows, k, same_rows=True)
        return emb, ng


def _self_top_k(x: np.ndarray, top_k: int, exact_max: float) -> np.ndarray:
    """The ``top_k`` nearest other rows of each unit row of ``x`` by inner product: exact
    up to ``exact_max`` rows, else a faiss HNSW graph (built on all of
    faiss's threads, so two runs can differ on a few neighbours;
    ``faiss.omp_set_num_threads(1)`` makes it reproducible, and slower)."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    n = len(x)
    k = min(top_k, n - 1)
    if k <= 0:
        return np.full((n, 0), -1, dtype=np.int64)
    if n <= exact_max:
        ids, _ = top_k_of(x, x, np.arange(n, dtype=np.int64), k + 1)
    else:
        index = _hnsw(x, HNSW_LINKS, HNSW_BUILD_WIDTH, max(HNSW_SEARCH_WIDTH, k + 1))
        ids = index.search(x, k + 1)[1].astype(np.int64)
    return _drop_own(ids, k)
