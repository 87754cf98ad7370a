import threading

import numpy as np
import pytest

from pearl.tables import nearest
from pearl.tables.matcher import MatchScorer
from pearl.tables.nearest import (
    _exact_ngram_top_k,
    for_blocks,
    largest_columns,
    thread_map,
    top_k_of,
)
from pearl.tables.ngrams import NgramVectorizer
from pearl.tables.search import ReferenceIndex


def _unit(rng, n, d=16):
    x = rng.normal(size=(n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.fixture
def four_threads(monkeypatch):
    monkeypatch.setattr(nearest, "cpu_threads", lambda: 4)


def test_thread_map_keeps_the_order_and_opens_no_pool_inside_a_pool(four_threads):
    main = threading.get_ident()
    seen = []

    def inner(x):
        seen.append(threading.get_ident())
        return x * x

    def outer(x):
        here = threading.get_ident()
        out = thread_map(inner, range(x))
        assert all(t == here for t in seen[-x:])  # the nested items ran on this thread
        return out

    assert thread_map(outer, range(1, 9)) == [[i * i for i in range(x)] for x in range(1, 9)]
    assert any(t != main for t in seen)
    assert thread_map(str, []) == []


def test_blocks_cover_every_row_once_in_order(four_threads):
    bounds = for_blocks(lambda s, e: (s, e), 1000, 300)
    assert bounds[0][0] == 0 and bounds[-1][1] == 1000
    assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:], strict=False))
    assert len(bounds) >= 4 and all(e - s <= 300 for s, e in bounds)  # every thread has rows
    assert for_blocks(lambda s, e: (s, e), 10, 300) == [(0, 10)]  # too few rows to split
    assert for_blocks(lambda s, e: (s, e), 0, 300) == []


def _names(n, seed):
    rng = np.random.default_rng(seed)
    letters = list("abcdefghijklmnop")  # a small alphabet: many tied n-gram cosines
    return [
        "".join(rng.choice(letters, 6)) + " " + "".join(rng.choice(letters, 4)) for _ in range(n)
    ]


def test_exact_searches_on_threads_give_the_one_thread_answers(monkeypatch):
    rng = np.random.default_rng(0)
    q, r = _unit(rng, 700), _unit(rng, 500)
    q[:50] = r[:50]  # exact ties with their own rows
    refs, queries = _names(500, 1), _names(700, 2)
    v = NgramVectorizer().fit(refs)
    q_ng, r_ng = v.transform(queries), v.transform(refs)
    scorer = MatchScorer((4.0, 3.0, 1.0), -3.0, "test")
    index = ReferenceIndex(r, ngram_rows=r_ng)

    def run():
        return (
            top_k_of(q, r, np.arange(500), 5, block=100),
            top_k_of(q, r, np.arange(500), 1, block=100),
            _exact_ngram_top_k(q_ng, r_ng, 4),
            _exact_ngram_top_k(r_ng, r_ng, 3, same_rows=True),
            index.best(q, q_ng, scorer, 3, block=100),
        )

    monkeypatch.setattr(nearest, "cpu_threads", lambda: 1)
    one = run()
    monkeypatch.setattr(nearest, "cpu_threads", lambda: 4)
    many = run()
    for a, b in zip(one, many, strict=True):
        for x, y in zip(_arrays(a), _arrays(b), strict=True):
            if x.dtype.kind == "f":  # BLAS on one thread or two: the last bit may differ
                np.testing.assert_allclose(x, y, rtol=0, atol=1e-6)
            else:
                np.testing.assert_array_equal(x, y)


def _arrays(result):
    return result if isinstance(result, tuple) else (result,)


def test_blas_runs_on_one_thread_inside_the_pool_only(four_threads):
    # NumPy's BLAS runs the searches' products (faiss brings an OpenMP OpenBLAS whose
    # thread count is per thread: it is not what the pool's products use)
    controller = nearest._blas_controller()
    numpy_blas = [
        c for c in controller.lib_controllers if c.user_api == "blas" and "numpy" in c.filepath
    ]
    if not numpy_blas:  # a BLAS outside NumPy's wheel (conda's MKL): not found by its path
        pytest.skip("NumPy's BLAS not found by its path")

    def blas_threads(_=None):
        return sorted({c.num_threads for c in numpy_blas})

    with controller.limit(limits=2, user_api="blas"):
        assert thread_map(blas_threads, range(4)) == [[1]] * 4
        assert blas_threads() == [2]  # restored when the pool is done


def test_pools_started_from_several_threads_share_one_blas_limit(four_threads, monkeypatch):
    calls = []

    class Limit:
        def restore_original_limits(self):
            calls.append("restore")

    class Controller:
        def limit(self, limits, user_api):
            calls.append(("limit", limits, user_api))
            return Limit()

    monkeypatch.setattr(nearest, "_blas_controller", Controller)
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()

    def first(_):  # its pool starts first and ends while the second one still runs
        first_in.set()
        assert second_in.wait(5)
        return list(calls)

    def second(_):
        assert first_in.wait(5)
        second_in.set()
        assert first_out.wait(5)
        return list(calls)

    a = threading.Thread(target=lambda: thread_map(first, range(2)) and first_out.set())
    b = threading.Thread(target=lambda: thread_map(second, range(2)))
    a.start()
    b.start()
    a.join(10)
    b.join(10)
    # one limit for both pools, undone once, after the last: with a limit per pool, the
    # first pool's end would put the threads back under the second, and the second's end
    # would leave BLAS at one thread
    assert calls == [("limit", 1, "blas"), "restore"]
    assert nearest._blas_pools == {"running": 0, "limit": None}


def test_the_sketch_is_the_same_with_a_dense_or_a_sparse_projection_table(monkeypatch):
    # small inputs multiply by a dense table (faster), large ones by the sparse one
    rows = NgramVectorizer().fit_transform(_names(200, seed=5))
    monkeypatch.setattr(nearest, "SCATTER_SPARSITY", 1 << 40)  # multiplied, not scattered
    monkeypatch.setattr(nearest, "DENSE_PROJECTION", 0)
    sparse = nearest.sketch(rows)
    monkeypatch.setattr(nearest, "DENSE_PROJECTION", 1 << 40)
    dense = nearest.sketch(rows)
    np.testing.assert_allclose(dense, sparse, atol=1e-6)
    assert np.abs(sparse).max() > 0


def test_a_rows_sketch_is_the_same_in_any_matrix_and_keeps_cosines_roughly():
    # the projection of an n-gram column depends on the column alone, so a query sketched
    # on its own lands where the same row sketched among the references does
    names = _names(300, seed=3)
    vec = NgramVectorizer()
    rows = vec.fit_transform(names)
    whole = nearest.sketch(rows)
    assert whole.shape == (300, nearest.SKETCH_DIM) and whole.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(whole, axis=1), 1.0, atol=1e-5)
    for i in (0, 17, 299):
        np.testing.assert_allclose(nearest.sketch(rows[i]), whole[i : i + 1], atol=1e-6)
    np.testing.assert_allclose(nearest.sketch(rows[5:40]), whole[5:40], atol=1e-6)
    exact = (rows @ rows.T).toarray()
    assert np.abs(whole @ whole.T - exact).mean() < 0.1
    assert np.array_equal(nearest.sketch(rows[:0]), np.zeros((0, nearest.SKETCH_DIM)))


def test_rows_scattered_onto_the_projection_equal_rows_multiplied_by_it(monkeypatch):
    # a block of queries (few entries against 2 million columns) is scattered onto its
    # dimensions, many rows are multiplied by a table of their columns: one projection,
    # also for a block of columns further right (record linkage's fields side by side)
    rows = NgramVectorizer().fit_transform(_names(300, seed=4) + ["", "x y"])
    assert rows.nnz * nearest.SCATTER_SPARSITY < rows.shape[1]  # the scattering path
    take, ones = np.arange(rows.shape[0]), np.ones(rows.shape[0])
    blocks = [(rows[:3], take % 3, ones), (rows, take, ones)]  # the second block shifted
    scattered = [nearest.sketch(rows), nearest.block_sketch(blocks)]
    monkeypatch.setattr(nearest, "SCATTER_SPARSITY", 1 << 40)  # never scattered
    multiplied = [nearest.sketch(rows), nearest.block_sketch(blocks)]
    for got, want in zip(scattered, multiplied, strict=True):
        np.testing.assert_allclose(got, want, atol=1e-6)
    assert not scattered[0][300].any() and np.abs(scattered[0]).max() > 0


@pytest.mark.parametrize("kind", ["distinct", "ties", "zeros", "nan"])
def test_largest_columns_are_a_stable_sorts_first_k(kind):
    # the bound of the groups' maxima leaves the answer of a full sort: the k largest,
    # largest first, equal values in increasing position (a row of many equal values
    # keeps their values, whichever positions a partition takes)
    rng = np.random.default_rng(0)
    for n, m, k in [
        (7, 5000, 10),
        (30, 2500, 3),
        (5, 700, 20),
        (3, 130, 1),
        (4, 9, 9),
        (0, 300, 2),
    ]:
        if kind == "distinct":
            x = rng.permutation(n * m).reshape(n, m).astype(np.float64)
        elif kind == "ties":
            x = rng.integers(0, 4, (n, m)).astype(np.float32)
        elif kind == "zeros":
            x = np.zeros((n, m), np.float32)
            x[:, m // 2] = 1.0
        else:
            x = rng.normal(size=(n, m)).astype(np.float32)
            x[:, rng.integers(0, m, 3)] = np.nan
        got = largest_columns(x, k)
        want = np.argsort(-x, axis=1, kind="stable")[:, :k]
        assert got.shape == (n, k)
        values = np.take_along_axis(x, got, 1)
        assert np.array_equal(values, np.take_along_axis(x, want, 1), equal_nan=True)
        assert all(len(set(row)) == k for row in got)
        if kind == "distinct" or kind == "zeros" and k == 1:
            assert np.array_equal(got, want)


def test_largest_columns_break_ties_to_the_lower_position_where_they_fit():
    # two copies of a reference (equal cosines) straddling the k-th place
    x = np.random.default_rng(0).uniform(0.0, 0.3, (2, 6400)).astype(np.float32)
    x[:, 1000:2000:100] = np.linspace(0.9, 0.5, 10)
    x[:, [3000, 200]] = 0.45
    assert largest_columns(x, 11).tolist() == [[*range(1000, 2000, 100), 200]] * 2
