import numpy as np
import pytest

from pearl.tables.fellegi_sunter import FellegiSunter, _patterns


def _draw(rng, probs, n):
    return np.stack([rng.choice(len(p), size=n, p=p) for p in probs], axis=1)


def test_patterns_are_the_distinct_comparison_vectors_with_their_counts():
    gamma = np.array([[2, 1], [-1, 0], [2, 1], [0, -1], [2, 1], [-1, 0]])
    patterns, inverse, counts = _patterns(gamma, [3, 2])
    np.testing.assert_array_equal(patterns[inverse], gamma)  # each row is its pattern
    assert len(patterns) == 3 and sorted(counts.tolist()) == [1, 2, 3]
    # too many levels for one integer key: the rows themselves are compared
    wide = np.tile(gamma, (1, 40))
    p, inv, c = _patterns(wide, [3, 2] * 40)
    np.testing.assert_array_equal(p[inv], wide)
    assert sorted(c.tolist()) == [1, 2, 3]
    empty = _patterns(np.zeros((0, 2), dtype=np.int64), [3, 2])
    assert empty[0].shape == (0, 2) and len(empty[1]) == 0


def test_em_on_patterns_gives_each_row_the_probability_of_its_pattern():
    rng = np.random.default_rng(0)
    m = [np.array([0.05, 0.15, 0.8]), np.array([0.1, 0.9])]
    u = [np.array([0.8, 0.15, 0.05]), np.array([0.7, 0.3])]
    gamma = np.concatenate([_draw(rng, m, 500), _draw(rng, u, 2000)])
    random_pairs = _draw(rng, u, 10_000)
    model = FellegiSunter([3, 2]).fit_u(random_pairs).fit(gamma, prior=0.5)
    # the EM of the rows themselves, one weight per row (the model before patterns)
    # EM's start: 0.9 on the top level, the rest halving level by level below it
    ref_m, ref_prior = [np.array([0.1 / 3, 0.2 / 3, 0.9]), np.array([0.1, 0.9])], 0.5
    ratio = lambda: sum(  # noqa: E731
        np.where(gamma[:, f] >= 0, (np.log(ref_m[f]) - np.log(model.u_[f]))[gamma[:, f]], 0)
        for f in range(2)
    )
    for _ in range(model.n_iter_):
        w = 1 / (1 + np.exp(-(np.log(ref_prior) - np.log1p(-ref_prior) + ratio())))
        # counts smoothed: half a pair a level, as much again on agreement
        start = [np.array([0.5, 0.5, 2.0]), np.array([0.5, 1.5])]
        ref_m = [
            (np.bincount(gamma[:, f], weights=w, minlength=n) + start[f])
            / (np.bincount(gamma[:, f], weights=w, minlength=n) + start[f]).sum()
            for f, n in enumerate((3, 2))
        ]
        ref_prior = w.mean()
    assert model.prior_ == pytest.approx(ref_prior, rel=1e-9)
    for a, b in zip(model.m_, ref_m, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9)
    once = model
    p = once.predict_proba(gamma)
    same = (gamma[:, None, :] == gamma[None, :50, :]).all(-1)  # rows equal to the first 50
    for j in range(50):
        assert np.all(p[same[:, j]] == p[j])


def test_a_field_whose_agreement_counts_against_a_match_is_switched_off():
    model = FellegiSunter([3, 2])
    model.u_ = [np.array([0.7, 0.2, 0.1]), np.array([0.5, 0.5])]
    model.m_ = [np.array([0.05, 0.15, 0.8]), np.array([0.6, 0.4])]  # the second: m < u
    with pytest.warns(UserWarning, match="'phone'"):
        assert model.check_sane(["name", "phone"]) == [1]
    np.testing.assert_array_equal(model.m_[1], model.u_[1])  # no evidence either way
    assert model.m_fixed_ == [False, True]
    gamma = np.array([[2, 1], [2, 0]])
    model.prior_ = 0.1
    p = model.predict_proba(gamma)
    assert p[0] == p[1]  # the phone no longer moves the probability


def test_a_column_of_one_value_is_said_to_tell_no_record_from_another():
    # a constant column (every row "US") agrees in every random pair: the warning said
    # its agreement "came out no more likely among matches", as if the columns were wrong
    import warnings

    model = FellegiSunter([3, 2, 2])
    model.u_ = [np.array([0.7, 0.2, 0.1]), np.array([0.0, 1.0]), np.array([0.5, 0.5])]
    model.m_ = [np.array([0.05, 0.15, 0.8]), np.array([0.02, 0.98]), np.array([0.6, 0.4])]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert model.check_sane(["name", "country", "phone"]) == [1, 2]
    said = [str(w.message) for w in seen]
    assert len(said) == 2
    assert "'country' holds the same value" in said[0] and "'phone'" not in said[0]
    assert "'phone' came out no more likely" in said[1] and "country" not in said[1]


def test_a_level_seen_neither_by_chance_nor_among_matches_is_no_evidence():
    # u from many random pairs, m from a few sure ones; level 1 of field 0 shows in neither
    model = FellegiSunter([3, 2])
    rng = np.random.default_rng(0)
    field0 = rng.choice([0, 2], 50_000, p=[0.99, 0.01])
    random_pairs = np.stack([field0, rng.integers(0, 2, 50_000)], 1)
    model.fit_u(random_pairs)
    model.fit_m(np.array([[2, 1]] * 300))
    weights = model.log_ratios()
    assert weights[0][1] == 0.0  # smoothing alone gave ln((0.5/301.5) / (0.5/50001.5)) = 5.1
    assert weights[0][2] > 3 and weights[0][0] < -3  # the levels seen keep their evidence
    model.fit(np.array([[2, 1]] * 10 + [[0, 0]] * 90))  # m kept, the prior fitted
    assert model.log_ratios()[0][1] == 0.0
    proba = model.predict_proba(np.array([[1, 1], [2, 1], [0, 1]]))
    assert proba[2] < proba[0] < proba[1]


def test_u_without_the_matches_among_small_tables_random_pairs():
    # in small tables the random pairs hold many matches: a quarter here, so agreement
    # looks common among non-matches; unmixing with the fitted m recovers u
    rng = np.random.default_rng(0)
    m = [np.array([0.05, 0.15, 0.8]), np.array([0.1, 0.9])]
    u = [np.array([0.8, 0.15, 0.05]), np.array([0.7, 0.3])]
    random_pairs = np.concatenate([_draw(rng, m, 25_000), _draw(rng, u, 75_000)])
    model = FellegiSunter([3, 2]).fit_u(random_pairs)
    assert model.u_[0][2] > 0.2  # mixed: the matches' agreement counted as chance
    model.m_ = m
    model.unmix_u(0.25)
    for fitted, true in zip(model.u_, u, strict=True):
        np.testing.assert_allclose(fitted, true, atol=0.01)
    model.unmix_u(0.0)  # no matches among them: u as fit_u gave it
    np.testing.assert_allclose(model.u_[0][2], (random_pairs[:, 0] == 2).mean(), atol=1e-4)


def test_sure_pairs_are_judged_against_the_chance_pairs_of_the_whole_table():
    # two text fields, a strong level (equal or one typo apart) in one random pair in ten
    # each: a strong pair by chance in 1% of all pairs. 200 strong candidates among 100
    # rows: within one table (4,950 pairs: 49.5 by chance) they are sure; counted as
    # n * n pairs (100 by chance) they were not, and EM alone fitted m; nor are they
    # judged by their own levels (equal on both: 81 by chance, more than a third of 200)
    levels = np.array([0] * 9000 + [3] * 100 + [4] * 900)
    random_gamma = np.stack([levels, np.roll(levels, 5000)], axis=1)
    gamma = np.array([[4, 4]] * 200 + [[0, 0]] * 800)
    one_table = FellegiSunter([5, 5]).fit_u(random_gamma)
    assert one_table.fit_m_from_agreement(gamma, 100, 100, n_pairs=100 * 99 // 2) == [True, True]
    two_tables = FellegiSunter([5, 5]).fit_u(random_gamma)
    assert two_tables.fit_m_from_agreement(gamma, 100, 100) == [False, False]
