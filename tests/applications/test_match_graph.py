import numpy as np

from pearl.applications.match_graph import (
    abbreviation_apart,
    match_graph,
    nearest_neighbours,
    one_edit_apart,
)


def _unit(rng, n, d=16):
    x = rng.normal(size=(n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


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


def test_graph_edges_are_unique_pairs_weighted_by_the_scorer(hash_encoder):
    from pearl.applications.matcher import MatchScorer

    texts = ["acme corp", "acme corpp", "globex", "globx", "initech", "initek"]
    emb = hash_encoder.encode(texts)
    emb = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    g = match_graph(texts, emb, top_k=2)
    assert (g.rows < g.cols).all() and len(set(zip(g.rows, g.cols, strict=True))) == len(g)
    np.testing.assert_allclose(g.weights, np.einsum("ij,ij->i", emb[g.rows], emb[g.cols]), 1e-5)
    scorer = MatchScorer((1.0, 1.0, 0.0), -1.0)
    gs = match_graph(texts, emb, scorer, top_k=2)
    assert len(gs) >= len(g) and ((gs.weights > 0) & (gs.weights < 1)).all()


def test_one_edit_apart():
    pairs = [
        ("The Army", "The Amry", True),  # two adjacent letters swapped
        ("The Army", "the aRMY", False),  # case aside, the same: not a typo pair
        ("The Army", "The Arm", True),  # a deletion
        ("The Army", "The Srmy", True),  # a substitution
        ("abc", "abxc", True),  # an insertion
        ("abcd", "badc", False),  # two swaps
        ("Kent", "Kern", False),  # two substitutions
        ("The Court", "The Co.", False),
        ("ab", "ba", True),
    ]
    texts = [t for a, b, _ in pairs for t in (a, b)]
    rows = np.arange(0, len(texts), 2)
    got = one_edit_apart(texts, rows, rows + 1)
    assert got.tolist() == [want for *_, want in pairs]
    assert one_edit_apart(texts, rows, rows + 1, min_length=3).tolist()[-1] is False


def test_links_one_typo_apart_get_the_boost(hash_encoder):
    from pearl.applications.matcher import MatchScorer

    texts = ["washington", "washingtno", "wxshingtxn", "boston"]
    emb = hash_encoder.encode(texts)
    emb = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    scorer = MatchScorer.for_encoder(hash_encoder)
    plain = match_graph(texts, emb, scorer, top_k=3)
    boosted = match_graph(texts, emb, scorer, top_k=3, one_edit=(0.95, 4))
    assert plain.rows.tolist() == boosted.rows.tolist()
    for i, j, w0, w1 in zip(plain.rows, plain.cols, plain.weights, boosted.weights, strict=True):
        if {texts[i], texts[j]} == {"washington", "washingtno"}:
            assert w1 >= 0.95 > w0
        else:
            assert w1 == w0


def test_abbreviation_apart():
    pairs = [
        ("Cam. Corp.", "Campeau Corp.", True),
        ("Cam. Corp.", "Con. Corp.", False),  # neither abbreviates the other
        ("Intl Paper", "International Paper", True),  # letters in order, not a prefix
        ("Arthur D. Lit.", "arthur d. little", True),
        ("Bank of Boston", "Bank of Austin", False),
        ("Bank of A", "Bank of America", False),  # one letter is not an abbreviation
        ("Scott Paper", "Scott Paper", False),  # nothing abbreviated
        ("Union Pac.", "Union Pacific Railroad", False),  # not as many words
    ]
    texts = [t for a, b, _ in pairs for t in (a, b)]
    rows = np.arange(0, len(texts), 2)
    assert abbreviation_apart(texts, rows, rows + 1).tolist() == [w for *_, w in pairs]


def test_ngram_candidates_are_the_exact_top_n_gram_cosines():
    from pearl.applications.match_graph import ngram_candidates
    from pearl.applications.ngrams import NgramVectorizer

    refs = ["acme corp", "acme corporation", "globex", "initech", "wonka industries", ""]
    queries = ["acme corp.", "globx", "zzz qqq", "", "industries wonka"]  # unseen n-grams too
    v = NgramVectorizer().fit(refs)
    q, r = v.transform(queries), v.transform(refs)
    ids = ngram_candidates(q, r, 2)
    sims = (q @ r.T).toarray()
    for i, row in enumerate(ids):
        # the two best cosines, whichever of tied names comes first
        np.testing.assert_allclose(sims[i, row], np.sort(sims[i])[::-1][:2], atol=1e-6)
    assert ids[0, 0] == 0 and ids[1, 0] == 2 and ids[4, 0] == 4


def test_ngram_candidates_above_the_exact_size_come_from_the_sketch_index():
    from pearl.applications.match_graph import ngram_candidates, sketch_index
    from pearl.applications.ngrams import NgramVectorizer

    rng = np.random.default_rng(0)
    letters = list("abcdefghijklmnopqrstuvwxyz")
    refs = [
        "".join(rng.choice(letters, 12)) + " " + "".join(rng.choice(letters, 8)) for _ in range(300)
    ]
    queries = [r[:5] + r[6:] for r in refs[:50]]  # one letter dropped
    v = NgramVectorizer().fit(refs)
    q, r = v.transform(queries), v.transform(refs)
    index = sketch_index(r)
    assert index.ntotal == len(refs) and index.d == 128
    ids = ngram_candidates(q, r, 5, exact_max=40, r_index=index)  # 300 > 40 // 4: approximate
    assert ids.shape == (50, 5) and ids.dtype == np.int64
    found = np.mean([i in row for i, row in enumerate(ids)])
    assert found >= 0.9  # each typo finds its own name among its 5 candidates
    np.testing.assert_array_equal(ngram_candidates(q, r, 5, exact_max=40), ids)  # same index made
