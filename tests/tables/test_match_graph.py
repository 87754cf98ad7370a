import numpy as np

from pearl.tables.match_graph import (
    abbreviation_apart,
    edits_apart,
    match_graph,
    one_edit_apart,
    unrivalled_typos,
)


def _unit(rng, n, d=16):
    x = rng.normal(size=(n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_graph_edges_are_unique_pairs_weighted_by_the_scorer(hash_encoder):
    from pearl.tables.matcher import MatchScorer

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
    from pearl.tables.matcher import MatchScorer

    texts = ["washington", "washingtno", "wxshingtxn", "boston"]
    emb = hash_encoder.encode(texts)
    emb = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    scorer = MatchScorer.for_encoder(hash_encoder)
    plain = match_graph(texts, emb, scorer, top_k=3)
    boosted = match_graph(texts, emb, scorer, top_k=3, edits=(0.95, 6))
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


def test_edits_apart_allows_one_edit_per_six_characters():
    pairs = [
        ("example category", "exampze catdgory", True),  # 16 characters: two edits
        ("example category", "exampze catdgorx", False),  # three edits
        ("washington", "washingtno", True),  # 10 characters: one swap
        ("washington", "wxshingtxn", False),  # two edits
        ("paris", "pariss", False),  # under 6 characters: no rule
        ("random word", "random word", False),  # equal
        ("random word", "random wordss", False),  # 11 characters: one edit, not two
    ]
    texts = [t for a, b, _ in pairs for t in (a, b)]
    rows = np.arange(0, len(texts), 2)
    assert edits_apart(texts, rows, rows + 1, 6).tolist() == [w for *_, w in pairs]
    assert edits_apart(texts, rows[:0], rows[:0], 6).shape == (0,)


def test_short_values_one_edit_apart_are_capped(hash_encoder):
    from pearl.tables.matcher import MatchScorer

    texts = ["aaa", "aaab", "aac", "abcdefgh", "abcdefgx"]
    emb = hash_encoder.encode(texts)
    emb = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    scorer = MatchScorer.for_encoder(hash_encoder)
    plain = match_graph(texts, emb, scorer, top_k=4)
    capped = match_graph(texts, emb, scorer, top_k=4, short_edit=(0.01, 4))
    for i, j, w0, w1 in zip(plain.rows, plain.cols, plain.weights, capped.weights, strict=True):
        one_edit_short = {texts[i], texts[j]} in ({"aaa", "aaab"}, {"aaa", "aac"})
        assert w1 == (min(w0, 0.01) if one_edit_short else w0)
    assert any(
        {texts[i], texts[j]} == {"aaa", "aaab"} for i, j in zip(plain.rows, plain.cols, strict=True)
    )


def test_one_edit_pairs_is_the_same_with_and_without_rapidfuzz(monkeypatch):
    import builtins
    import random

    from pearl.tables.match_graph import edit_distances, one_edit_pairs

    rng = random.Random(0)
    alphabet = "abcdé🙂"
    xs = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6))) for _ in range(3000)]
    ys = []
    for x in xs:  # half one random edit away (or none), half unrelated
        if rng.random() < 0.5 and x:
            i, y = rng.randrange(len(x)), list(x)
            op = rng.choice("sidx")
            if op == "s":
                y[i] = rng.choice(alphabet)
            elif op == "i":
                y.insert(i, rng.choice(alphabet))
            elif op == "d":
                del y[i]
            elif i + 1 < len(y):
                y[i], y[i + 1] = y[i + 1], y[i]
            ys.append("".join(y))
        else:
            ys.append("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6))))
    compiled = one_edit_pairs(xs, ys)
    distances = edit_distances(xs, ys, 2)
    real_import = builtins.__import__

    def no_rapidfuzz(name, *args, **kwargs):
        if name.startswith("rapidfuzz"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_rapidfuzz)
    python = one_edit_pairs(xs, ys)
    assert compiled.dtype == python.dtype == bool
    assert (compiled == python).all() and 500 < python.sum() < 2500
    assert one_edit_pairs([], []).shape == (0,)
    slow = edit_distances(xs, ys, 2)
    assert (distances == slow).all() and set(slow.tolist()) == {0, 1, 2, 3}
    assert (slow == 1).tolist() == python.tolist()
    assert edit_distances([], [], 1).shape == (0,)


def test_a_best_candidate_is_an_unrivalled_typo_only_when_no_other_name_is_one():
    refs = ["Microsoft", "Microsoft", "Micrasoft", "Apple Inc", "Amazon", "Apollo 13"]
    queries = ["Microsft", "Micrxsoft", "Amazn", "apple inc", "Apollo 11", "Nothing"]
    ids = np.array(
        [
            [0, 1, 3],  # the rival of another name (Apple Inc) is no typo: yes
            [0, 2, 3],  # Micrasoft, another name, is a typo of the query too: no
            [4, 3, -1],  # under 6 characters: no typo budget
            [3, 0, -1],  # the same text, case aside: no edit, no typo
            [5, 0, -1],  # as ranked: only Apollo 13 is a typo of Apollo 11 ...
            [-1, -1, -1],  # no candidate
        ]
    )
    names = np.array([[0, 0, 3], [0, 2, 3], [4, 3, -1], [3, 0, -1], [5, 0, -1], [-1, -1, -1]])
    got = unrivalled_typos(queries, ids, refs, names)
    assert got.tolist() == [True, False, False, False, True, False]
    # ... but numbered apart it ranks last, and Microsoft (no typo of it) is the best
    apart = np.zeros(ids.shape, dtype=bool)
    apart[4, 0] = True
    assert not unrivalled_typos(queries, ids, refs, names, apart)[4]
    # copies of a name are not its rivals; without names each copy is a name of its own
    assert not unrivalled_typos(queries, ids, refs)[0]
    assert unrivalled_typos([], np.zeros((0, 3), np.int64), refs).shape == (0,)
