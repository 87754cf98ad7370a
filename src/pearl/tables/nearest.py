"""Exact nearest-row search in NumPy and SciPy: blocked top-k of unit rows by inner
product, merged across chunks with one tie rule, exact top-k of sparse n-gram rows, and
the random-projection sketch that the approximate n-gram search indexes. The building
blocks of :class:`~pearl.tables.search.ReferenceIndex`. The blocks of an exact search run
on the CPUs' threads (:func:`thread_map`, also record linkage's per-field work)."""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "cpu_threads",
    "block_sketch",
    "for_blocks",
    "largest_columns",
    "merge_top_k",
    "sketch",
    "thread_map",
    "top_k_of",
]

T = TypeVar("T")
R = TypeVar("R")

#: The dimension of the n-gram sketch: 128 gave the same clusters as 256 on 100,000 corpus
#: phrases and their typos (pairwise F1 0.509 both), in 20% less time.
SKETCH_DIM = 128
#: The fewest query rows a thread's block of an exact search holds.
MIN_BLOCK = 64
#: Columns per group whose maxima bound a row's largest values (:func:`largest_columns`).
GROUP = 64


# -- exact search ---------------------------------------------------------------------------
_pool_thread = threading.local()


def cpu_threads() -> int:
    """The CPUs this process may use (at most 8): the threads of :func:`thread_map`."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(8, cpus))


def thread_map(fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """``[fn(x) for x in items]`` on up to :func:`cpu_threads` threads, in the items'
    order: NumPy's partitions and products and SciPy's sparse products release the GIL,
    so the items' work overlaps. Work already on one of these threads runs its own items
    in a loop (no pool inside a pool)."""
    items = list(items)
    workers = min(len(items), cpu_threads())
    if workers < 2 or getattr(_pool_thread, "active", False):
        return [fn(x) for x in items]

    def run(x: T) -> R:
        _pool_thread.active = True
        try:
            return fn(x)
        finally:
            _pool_thread.active = False

    with _one_blas_thread(), ThreadPoolExecutor(workers) as pool:
        return list(pool.map(run, items))


@functools.lru_cache(maxsize=1)
def _blas_controller() -> Any:
    from threadpoolctl import ThreadpoolController  # scikit-learn's dependency

    return ThreadpoolController()


_blas_lock = threading.Lock()
_blas_pools: dict[str, Any] = {"running": 0, "limit": None}


@contextlib.contextmanager
def _one_blas_thread() -> Iterator[None]:
    """BLAS on one thread while :func:`thread_map`'s pools run: a pool spreads the work
    over the CPUs already, and BLAS's own threads on top of it oversubscribe them (AutoFJ
    with pearl-static: 5.9 s with BLAS threads inside the pool, 4.9 s with one). The BLAS
    libraries are those loaded when the first pool ran, NumPy's among them. Pools started
    from several threads at once (Dask's workers) share one limit, undone when the last
    ends, so that the BLAS threads always come back to what they were."""
    with _blas_lock:
        if not _blas_pools["running"]:
            _blas_pools["limit"] = _blas_controller().limit(limits=1, user_api="blas")
        _blas_pools["running"] += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_pools["running"] -= 1
            if not _blas_pools["running"]:
                _blas_pools["limit"].restore_original_limits()
                _blas_pools["limit"] = None


def for_blocks(work: Callable[[int, int], R], n: int, block: int) -> list[R]:
    """``work(start, stop)`` for blocks of at most ``block`` of ``n`` rows, through
    :func:`thread_map`: the same answers as a loop, since no block reads another's. Rows
    are spread so that every thread has a block (at least :data:`MIN_BLOCK` rows each)."""
    block = max(1, min(block, max(MIN_BLOCK, -(-n // cpu_threads()))))
    return thread_map(lambda b: work(*b), [(s, min(s + block, n)) for s in range(0, n, block)])


def merge_top_k(
    best_i: np.ndarray, best_s: np.ndarray, cand_i: np.ndarray, cand_s: np.ndarray, top_k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Merge two top-k lists row by row: higher score first, and on equal scores the
    lower reference id (the earlier reference row), so that the result does not depend
    on how the references were split into chunks or shards."""
    all_s = np.concatenate([best_s, cand_s], axis=1)
    all_i = np.concatenate([best_i, cand_i], axis=1)
    order = np.lexsort((np.where(all_i < 0, np.iinfo(np.int64).max, all_i), -all_s), axis=1)[
        :, :top_k
    ]
    return np.take_along_axis(all_i, order, 1), np.take_along_axis(all_s, order, 1)


def _ranked(ids: np.ndarray, scores: np.ndarray, width: int):
    """Each row's ``width`` best candidates by score, ties to the lower id
    (:func:`merge_top_k` with nothing to merge)."""
    none = np.zeros((len(ids), 0), np.int64)
    return merge_top_k(none, none.astype(scores.dtype), ids, scores, width)


def largest_columns(x: np.ndarray, k: int) -> np.ndarray:
    """Positions of each row's ``k`` largest values (``k`` at most the columns), largest
    first, equal values in increasing position (where more values equal the ``k``-th
    largest than places are left, which of them is a partition's choice).

    The ``k``-th largest of a row's maxima over groups of :data:`GROUP` columns bounds its
    ``k`` largest values from below, so only the groups that reach it are read again:
    on 500 rows of 100,000 cosines, 0.1 s where a partition of every row took 0.35-0.6
    s. Rows of many equal values (or of NaN) are partitioned whole.
    """
    n, m = x.shape
    groups = m // GROUP
    if groups < 2 * k or not n:
        return _sorted_largest(x, k)
    full = groups * GROUP
    blocks = x[:, :full].reshape(n, groups, GROUP)
    maxima = blocks.max(axis=2)
    if m > full:
        maxima = np.concatenate([maxima, x[:, full:].max(axis=1, keepdims=True)], axis=1)
    bound = np.partition(maxima, maxima.shape[1] - k, axis=1)[:, maxima.shape[1] - k]
    reach = maxima >= bound[:, None]
    # a row whose maxima tie (a query that shares no n-gram: zeros) is sorted whole
    whole = (np.count_nonzero(reach, axis=1) > 2 * k + 8) | np.isnan(maxima).any(axis=1)
    reach[whole] = False
    # each reaching group's values that reach the bound (the tail's columns as a group)
    rows, group = np.nonzero(reach[:, :groups])
    values = blocks[rows, group]
    columns = group[:, None] * GROUP + np.arange(GROUP)
    parts = [(np.broadcast_to(rows[:, None], values.shape), columns, values)]
    if m > full:
        tail_rows = np.flatnonzero(reach[:, groups])
        tail = x[tail_rows, full:]
        parts.append(
            (
                np.broadcast_to(tail_rows[:, None], tail.shape),
                np.broadcast_to(np.arange(full, m), tail.shape),
                tail,
            )
        )
    reached = [v >= bound[r] for r, _, v in parts]
    rows, columns, values = (
        np.concatenate([p[i][m] for p, m in zip(parts, reached, strict=True)]) for i in range(3)
    )
    counts = np.bincount(rows, minlength=n)
    whole |= (counts < k) | (counts > 8 * k + GROUP)
    out = np.empty((n, k), dtype=np.int64)
    out[whole] = _sorted_largest(x[whole], k)
    take = ~whole[rows]
    rows, columns, values = rows[take], columns[take], values[take]
    counts[whole] = 0
    order = np.lexsort((columns, -values, rows))
    rank = np.arange(len(rows)) - (np.cumsum(counts) - counts)[rows[order]]
    out[~whole] = columns[order[rank < k]].reshape(-1, k)
    return out


def _sorted_largest(x: np.ndarray, k: int) -> np.ndarray:
    """:func:`largest_columns` by a partition of every row (of values equal to the
    ``k``-th largest, the partition's choice), sorted."""
    if not k or not len(x):
        return np.zeros((len(x), k), dtype=np.int64)
    neg = -x
    j = np.argpartition(neg, k - 1, axis=1)[:, :k]
    return np.take_along_axis(j, np.lexsort((j, np.take_along_axis(neg, j, 1)), axis=1), 1)


def _block_rows(n_ref: int, cap: int, cells: int = 1 << 24) -> int:
    """Query rows per block, so that a block of similarities holds about ``cells`` floats
    (64 MB): small blocks are reused instead of page-faulting gigabytes in and out."""
    return max(1, min(cap, cells // max(n_ref, 1)))


def top_k_of(
    q: np.ndarray, r: np.ndarray, ids: np.ndarray, top_k: int, block: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-k cosine of unit query rows ``q`` against unit reference rows ``r``.

    Parameters
    ----------
    q, r : ndarray of float32, unit rows
    ids : ndarray of int64, shape (len(r),)
        The id reported for each reference row (increasing).
    top_k : int

    Returns
    -------
    ids : ndarray of int64, shape (len(q), min(top_k, len(r)))
    scores : ndarray of float32, the same shape
    """
    kk = min(top_k, len(r))  # no room is set aside for answers that cannot exist
    best_s = np.full((len(q), kk), -np.inf, dtype=np.float32)
    best_i = np.full((len(q), kk), -1, dtype=np.int64)
    if not len(r) or not len(q):
        return best_i, best_s
    block = block or _block_rows(len(r), 4096)
    buffers = threading.local()  # one block of similarities per thread, reused

    def one(s: int, e: int) -> None:
        qb = q[s:e]
        sims = getattr(buffers, "sims", None)
        if sims is None or len(sims) < len(qb):  # as large as the blocks for_blocks cut
            sims = buffers.sims = np.empty((len(qb), len(r)), dtype=np.float32)
        sims = sims[: len(qb)]
        np.matmul(qb, r.T, out=sims)
        if kk == 1:  # argmax keeps the first (lowest id) of equal scores, as the merge does
            j = sims.argmax(axis=1)[:, None]
            top = np.take_along_axis(sims, j, 1)
        else:
            j = largest_columns(sims, kk)
            top = np.take_along_axis(sims, j, 1)
        best_i[s:e], best_s[s:e] = merge_top_k(best_i[s:e], best_s[s:e], ids[j], top, kk)

    for_blocks(one, len(q), block)
    return best_i, best_s


def _shared_columns(q_ng, r_ng):
    """``q_ng`` and the transpose of ``r_ng`` (CSR) on the columns ``r_ng`` uses, in
    order: the same products, without the two million hashed columns' bookkeeping."""
    from scipy.sparse import csr_matrix

    from pearl.tables.ngrams import distinct_columns, positions_in

    n_columns = r_ng.shape[1]
    used = distinct_columns(r_ng.indices, n_columns)
    # both sides' columns looked up at once (one dense table when there are many)
    at, keep = positions_in(used, np.concatenate([r_ng.indices, q_ng.indices]), n_columns)
    k = len(r_ng.indices)
    r_columns, at, keep = at[:k], at[k:], keep[k:]
    r = csr_matrix((r_ng.data, r_columns, r_ng.indptr), shape=(r_ng.shape[0], len(used)))
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

    def one(s: int, e: int) -> None:
        sims = (q_ng[s:e] @ r_t).toarray()
        if same_rows:
            sims[np.arange(len(sims)), np.arange(s, s + len(sims))] = -np.inf
        out[s:e] = largest_columns(sims, k)

    for_blocks(one, nq, block)
    return out


def _drop_own(ids: np.ndarray, k: int) -> np.ndarray:
    """Each row's neighbour list without the row itself (or without its last column when
    the row was not found itself), cut to ``k``."""
    n = len(ids)
    own = ids == np.arange(n)[:, None]
    drop = np.where(own.any(axis=1), own.argmax(axis=1), ids.shape[1] - 1)
    keep = np.ones(ids.shape, dtype=bool)
    keep[np.arange(n), drop] = False
    return ids[keep].reshape(n, ids.shape[1] - 1)[:, :k]


def _mix(keys: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: well-mixed 64-bit hashes of uint64 keys (wrapping)."""
    x = keys + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _projection(columns: np.ndarray, dim: int, per_feature: int = 4):
    """The rows of a sparse random projection to ``dim`` for the given n-gram columns: each
    column lands on ``per_feature`` dimensions with signs drawn from a hash of the column
    (a sparse Johnson-Lindenstrauss transform), float32 CSR of shape ``(len(columns),
    dim)``. A column's row depends on the column alone, so sketches of different matrices
    agree, and only the columns a matrix uses are made (the full table for 2^21 columns
    took 0.3 s and 67 MB). (scikit-learn's ``SparseRandomProjection`` defaults to a
    density of ``1/sqrt(n_features)``, which put most n-grams on no dimension at all.)"""
    from scipy.sparse import csr_matrix

    cols, signs = _landing(columns, dim, per_feature)
    indptr = np.arange(0, cols.size + 1, per_feature, dtype=np.int64)
    values = signs.astype(np.float32) / np.float32(np.sqrt(per_feature))
    return csr_matrix((values, cols.astype(np.int32), indptr), shape=(len(columns), dim))


def _landing(columns, dim: int, per_feature: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``per_feature`` dimensions (int64) and signs (float64, +-1) of each n-gram
    column in the sparse projection, column after column: a hash of the column alone."""
    keys = np.asarray(columns, dtype=np.uint64)[:, None] * np.uint64(per_feature)
    h = _mix((keys + np.arange(per_feature, dtype=np.uint64)).ravel())
    return (h % np.uint64(dim)).astype(np.int64), (h >> np.uint64(63)).astype(np.float64) * 2 - 1


#: Entries (used columns x dimensions) up to which :func:`sketch` multiplies by a dense
#: projection table (32 MB): 20,000 names use about 53,000 columns, and the product took
#: 18 ms against 29 ms with the sparse table, which larger inputs keep.
DENSE_PROJECTION = 1 << 23
#: Rows with fewer entries than their width over this are scattered onto the projection's
#: dimensions instead of multiplied by a table of their used columns (:func:`_projected`).
SCATTER_SPARSITY = 16


def sketch(ng, dim: int = SKETCH_DIM, chunk: int = 1 << 16) -> np.ndarray:
    """Unit float32 rows of a hashed sparse random projection of sparse rows to ``dim``
    dimensions (cosines approximately kept; :func:`_projection`), a chunk of rows at a
    time: the projection of a million rows is dense (0.5 GB); its float64 intermediate is
    never whole."""
    return _unit_rows(_projected(ng, dim, chunk=chunk))


def block_sketch(blocks: list, dim: int = SKETCH_DIM) -> np.ndarray:
    """The :func:`sketch` of rows made of column blocks side by side, from each block's
    distinct rows: ``blocks`` holds, for each block, ``(rows, take, weight)``: its
    distinct sparse rows, which of them each row holds, and the row's weight on it (0 for
    a row without that block). The projection is linear, so each distinct row is
    projected once (100,000 company records of three text fields: their 45,000 names'
    and 61,000 streets' rows, where the records' own rows held 12 million entries)."""
    total: np.ndarray | None = None
    offset = 0
    for rows, take, weight in blocks:
        part = _projected(rows, dim, offset)[take]
        part *= np.asarray(weight, dtype=np.float32)[:, None]
        total = part if total is None else np.add(total, part, out=total)
        offset += rows.shape[1]
    if total is None:
        raise ValueError("a block sketch needs at least one block")
    return _unit_rows(total)


def _unit_rows(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return np.divide(x, np.where(norms > 0, norms, 1.0), out=x)


def _projected(ng, dim: int, offset: int = 0, chunk: int = 1 << 16) -> np.ndarray:
    """Sparse rows times the projection of their columns (shifted by ``offset``: a block
    of wider rows), float32, before scaling to unit length. Rows of few entries against
    their width (a block of queries) are scattered onto their dimensions directly
    (:func:`_scattered`; 1.3 ms for 1,024 names where a table of the used columns took
    4.5 ms); otherwise blocks of rows are multiplied by the table on the CPUs' threads."""
    from scipy.sparse import csr_matrix

    ng = csr_matrix(ng)
    if ng.nnz * SCATTER_SPARSITY < ng.shape[1]:
        return _scattered(ng, dim, offset, chunk)
    used = np.zeros(ng.shape[1], dtype=bool)
    used[ng.indices] = True
    columns = np.flatnonzero(used)
    position = (np.cumsum(used) - 1).astype(np.int32)  # each used column's row in the table
    comp_t = _projection(columns + offset, dim)
    if len(columns) * dim <= DENSE_PROJECTION:  # the product with a dense table is faster
        comp_t = comp_t.toarray()
    out = np.empty((ng.shape[0], dim), dtype=np.float32)

    def one(s: int, e: int) -> None:
        rows = ng[s:e]  # its columns renumbered a block at a time (no whole copy)
        rows = csr_matrix(
            (rows.data, position[rows.indices], rows.indptr), shape=(rows.shape[0], len(columns))
        )
        part = rows @ comp_t
        out[s:e] = part if isinstance(part, np.ndarray) else part.toarray()

    for_blocks(one, ng.shape[0], chunk)
    return out


def _scattered(ng, dim: int, offset: int, chunk: int, per_feature: int = 4) -> np.ndarray:
    """:func:`_projected` of CSR rows by adding each entry to its column's ``per_feature``
    dimensions (:func:`_landing`, as :func:`_projection`), a chunk at a time."""
    out = np.empty((ng.shape[0], dim), dtype=np.float32)
    for s in range(0, max(ng.shape[0], 1), chunk):
        part = ng[s : s + chunk]
        n = part.shape[0]
        dims, signs = _landing(part.indices.astype(np.uint64) + np.uint64(offset), dim, per_feature)
        at = np.repeat(np.arange(n, dtype=np.int64), np.diff(part.indptr) * per_feature) * dim
        at += dims
        w = np.repeat(part.data.astype(np.float64) / np.sqrt(per_feature), per_feature) * signs
        out[s : s + n] = np.bincount(at, w, minlength=n * dim).reshape(n, dim)
    return out
