import math
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from pearl.tables import search
from pearl.tables.join import match_strings
from pearl.tables.ngrams import NgramVectorizer
from pearl.tables.search import ReferenceIndex


def _unit(rng, n, d=16):
    x = rng.normal(size=(n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def nearest_neighbours(x, k, exact_max=None):
    return ReferenceIndex(x, exact_max=exact_max).neighbours(k)[0]


def test_exact_neighbours_exclude_self_and_rank_by_similarity():
    x = _unit(np.random.default_rng(0), 30)
    ids = nearest_neighbours(x, 5)
    assert ids.shape == (30, 5) and not (ids == np.arange(30)[:, None]).any()
    sims = x @ x.T
    np.fill_diagonal(sims, -np.inf)
    np.testing.assert_array_equal(ids[:, 0], sims.argmax(axis=1))
    assert nearest_neighbours(x[:1], 5).shape == (1, 0)
    assert nearest_neighbours(x[:3], 5).shape == (3, 2)


def test_approximate_neighbours_find_most_exact_ones():
    x = _unit(np.random.default_rng(1), 2000)
    exact = nearest_neighbours(x, 5)
    approx = nearest_neighbours(x, 5, exact_max=100)
    hits = np.mean([len(set(a) & set(e)) / 5 for a, e in zip(approx, exact, strict=True)])
    assert hits > 0.8 and not (approx == np.arange(2000)[:, None]).any()


def test_ngram_candidates_are_the_exact_top_n_gram_cosines():
    refs = ["acme corp", "acme corporation", "globex", "initech", "wonka industries", ""]
    queries = ["acme corp.", "globx", "zzz qqq", "", "industries wonka"]  # unseen n-grams too
    v = NgramVectorizer().fit(refs)
    q, r = v.transform(queries), v.transform(refs)
    ids = ReferenceIndex(ngram_rows=r).ngram_top_k(q, 2)
    sims = (q @ r.T).toarray()
    for i, row in enumerate(ids):
        # the two best cosines, whichever of tied names comes first
        np.testing.assert_allclose(sims[i, row], np.sort(sims[i])[::-1][:2], atol=1e-6)
    assert ids[0, 0] == 0 and ids[1, 0] == 2 and ids[4, 0] == 4


def test_ngram_candidates_above_the_exact_size_come_from_the_sketch_index():
    rng = np.random.default_rng(0)
    letters = list("abcdefghijklmnopqrstuvwxyz")
    refs = [
        "".join(rng.choice(letters, 12)) + " " + "".join(rng.choice(letters, 8)) for _ in range(300)
    ]
    queries = [r[:5] + r[6:] for r in refs[:50]]  # one letter dropped
    v = NgramVectorizer().fit(refs)
    q, r = v.transform(queries), v.transform(refs)
    index = ReferenceIndex(ngram_rows=r, exact_max=40)  # 300 > 40 // 4: approximate
    ids = index.ngram_top_k(q, 5)
    assert ids.shape == (50, 5) and ids.dtype == np.int64
    found = np.mean([i in row for i, row in enumerate(ids)])
    assert found >= 0.9  # each typo finds its own name among its 5 candidates
    sketch_index = index._sketch
    assert sketch_index.ntotal == len(refs) and sketch_index.d == 128
    np.testing.assert_array_equal(index.ngram_top_k(q, 5), ids)  # the same sketch, reused
    assert index._sketch is sketch_index


def test_the_sketch_quantiser_trains_on_one_openmp_thread_and_gives_them_back(monkeypatch):
    # its k-means opens thousands of tiny parallel regions: with another busy process on
    # the machine, training 10,000 rows took 16-41 s on two OpenMP threads, 0.17 s on one
    faiss = pytest.importorskip("faiss")
    seen: list = []
    together: list = []
    real = faiss.IndexPQFastScan

    class Recorded:
        def __init__(self, *args):
            self.index = real(*args)

        def train(self, x):
            if together:  # the threads' trainings overlap
                together[0].wait(5)
            seen.append(faiss.omp_get_max_threads())
            self.index.train(x)

        def __getattr__(self, name):
            return getattr(self.index, name)

    monkeypatch.setattr(faiss, "IndexPQFastScan", Recorded)
    rows = NgramVectorizer().fit_transform([f"name {i} {i * 7}" for i in range(300)])

    def search() -> list:
        index = ReferenceIndex(ngram_rows=rows, exact_max=40)
        return index.ngram_top_k(rows[:5], 1)[:, 0].tolist()

    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(2)
    try:
        assert search() == [0, 1, 2, 3, 4]
        assert seen == [1] and faiss.omp_get_max_threads() == 2
        # OpenMP's count is each thread's own: two threads training at once (record
        # linkage's fields) both train on one thread
        together.append(threading.Barrier(2))
        with ThreadPoolExecutor(2) as pool:
            assert list(pool.map(lambda _: search(), range(2))) == [[0, 1, 2, 3, 4]] * 2
        assert seen == [1, 1, 1] and faiss.omp_get_max_threads() == 2
    finally:
        faiss.omp_set_num_threads(before)


def test_ids_report_a_chunk_s_place_in_the_whole_table(monkeypatch):
    monkeypatch.setattr(search, "EXACT_QUERIES", 10)
    x = _unit(np.random.default_rng(2), 40)
    whole = ReferenceIndex(x).embedding_top_k(x[:5], 3)
    part = ReferenceIndex(x[20:], ids=np.arange(20, 40)).embedding_top_k(x[:5], 3)
    assert (part[0] >= 20).all()
    approx = ReferenceIndex(x, exact_max=10).embedding_top_k(x[:20], 3)  # HNSW above 10 rows
    assert approx[0].shape == (20, 3) and (approx[0][:, 0] == np.arange(20)).all()
    np.testing.assert_array_equal(whole[0][:, 0], np.arange(5))


def test_few_queries_search_a_large_index_exactly_without_a_graph(monkeypatch):
    x = _unit(np.random.default_rng(3), 60)
    exact = ReferenceIndex(x, exact_max=math.inf).embedding_top_k(x[:5], 4)
    index = ReferenceIndex(x, exact_max=10)  # a graph's size
    few = index.embedding_top_k(x[:5], 4)
    assert index._hnsw is None  # five queries: exact products cost less than the graph
    np.testing.assert_array_equal(few[0], exact[0])
    np.testing.assert_allclose(few[1], exact[1], rtol=1e-6)
    monkeypatch.setattr(search, "EXACT_QUERIES", 4)
    index.embedding_top_k(x[:5], 4)
    assert index._hnsw is not None
    index.embedding_top_k(x[:2], 4)  # once made, the graph answers every search


@pytest.mark.parametrize("exact_max", [math.inf, 4])
def test_best_finds_a_typo_by_its_n_grams_exactly_or_through_the_sketch(exact_max):
    from pearl.tables.matcher import MatchScorer

    refs = ["acme north company", "acme south company", "globex corp", "initech", "wonka"]
    refs += [f"filler name {i}" for i in range(40)]
    rng = np.random.default_rng(3)
    emb = _unit(rng, len(refs))  # embeddings that know nothing of the strings
    v = NgramVectorizer().fit(refs)
    index = ReferenceIndex(emb, ngram_rows=v.transform(refs), exact_max=exact_max)
    by_ngrams = MatchScorer((0.0, 5.0, 0.0), -2.0)
    q = _unit(rng, 2)
    ids, raw = index.best(q, v.transform(["acme nrth company", "globx corp"]), by_ngrams, 2, 5)
    assert ids[:, 0].tolist() == [0, 2]
    assert ids.shape == (2, 2) and np.isfinite(raw).all()


def test_match_strings_over_chunks_equals_one_chunk(hash_encoder):
    refs = ["acme corp", "globex", "initech", "acme corp", "wonka", "globex inc"]
    queries = ["acme", "globex", "nothing like it"]
    one = match_strings(queries, [refs], hash_encoder, top_k=3)
    chunked = match_strings(queries, [refs[:2], [], refs[2:5], refs[5:]], hash_encoder, top_k=3)
    np.testing.assert_array_equal(one[0], chunked[0])
    np.testing.assert_allclose(one[1], chunked[1], rtol=1e-6)


def test_the_search_module_is_the_one_table_module_that_imports_faiss():
    from pathlib import Path

    import pearl

    src = Path(pearl.__file__).parent
    importing = sorted(
        str(p.relative_to(src))
        for folder in ("tables", "distributed")
        for p in (src / folder).glob("*.py")
        if "import faiss" in p.read_text(encoding="utf-8")
    )
    assert importing == ["tables/search.py"]


def test_shared_columns_keep_the_products_for_sparse_and_dense_maps():
    from pearl.tables.nearest import _shared_columns

    names = ["Washington", "Beijing", "Paris", "New York", "Washingtno", "Pekin"]
    for width in (2**20, 2**6):  # few entries for the width (sorted maps) and many (dense)
        v = NgramVectorizer(n_features=width).fit(names)
        r_ng, q_ng = v.transform(names[:4]), v.transform(names[2:] + ["Zürich"])
        q, r_t = _shared_columns(q_ng, r_ng)
        assert q.shape[1] == r_t.shape[0] == len(np.unique(r_ng.indices))
        np.testing.assert_allclose((q @ r_t).toarray(), (q_ng @ r_ng.T).toarray(), atol=1e-6)
