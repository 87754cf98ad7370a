"""The one-key join's decision estimated on the tables (pearl.tables.decision)."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from pearl import fuzzy_join
from pearl.tables.decision import MIN_ROWS, TableDecision, cautious, decided, fit_decision
from pearl.tables.numbers import NUMBERED_APART


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _table(rng, share=0.3, n=1000, low=-2.0, high=-1.0):
    """Best candidates of a table whose partners score low (logit ``high``) and whose
    rows without a partner score lower (``low``), the decoys as the latter."""
    k = int(share * n)
    x = np.r_[rng.normal(high, 0.3, k), rng.normal(low, 0.3, n - k)]
    truth = np.r_[np.ones(k, bool), np.zeros(n - k, bool)]
    decoys = rng.normal(low, 0.3, 2000)
    return _sigmoid(x), truth, _sigmoid(decoys)


def test_a_table_of_low_scores_links_its_partners():
    rng = np.random.default_rng(0)
    p, truth, d = _table(rng)
    assert (p >= 0.5).sum() <= 2  # a fixed cut at 0.5 links (nearly) nothing
    fit = fit_decision(p, np.zeros(len(p), bool), d, np.zeros(len(d), bool))
    chance = fit.probability(p, np.zeros(len(p), bool))
    linked = chance >= 0.5
    tp = (linked & truth).sum()
    f1 = 2 * tp / (linked.sum() + truth.sum())
    order = np.argsort(-p)
    best_cut = (2 * np.cumsum(truth[order]) / (np.arange(1, len(p) + 1) + truth.sum())).max()
    assert f1 >= best_cut - 0.05 and tp / linked.sum() > 0.95
    assert abs(fit.unmatched - 0.7) < 0.05
    # never over-confident; groups that overlap this much are undersold (by 0.06: the
    # null's count is taken one standard deviation high)
    gap = chance[linked].mean() - truth[linked].mean()
    assert -0.07 < gap < 0.03


@pytest.mark.parametrize("seed", range(5))
def test_every_level_is_monotone(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 3000))
    p = _sigmoid(np.r_[rng.normal(0, 2, n), rng.standard_t(2, n // 3)])
    apart = rng.random(len(p)) < rng.random()
    d = _sigmoid(rng.normal(rng.normal(-1, 1), rng.uniform(0.2, 2), 500))
    fit = fit_decision(p, apart, d, rng.random(len(d)) < 0.5)
    for curve in (fit.agree, fit.apart):
        assert (np.diff(curve) >= -1e-12).all()
        assert curve.min() >= 0.0 and curve.max() <= 1.0
    grid = np.linspace(1e-4, 1 - 1e-4, 400)
    for level in (False, True):
        assert (np.diff(fit.probability(grid, np.full(len(grid), level))) >= -1e-12).all()


def test_numbers_apart_are_evidence_weighed_by_the_table_not_a_veto():
    rng = np.random.default_rng(1)
    n, k = 1000, 400
    # partners score high, a third of them with a digit typo; rows without a partner
    # score low and their numbers nearly always differ (other people, other dates)
    p = _sigmoid(np.r_[rng.normal(2.5, 0.4, k), rng.normal(-1.5, 0.4, n - k)])
    apart = np.r_[rng.random(k) < 0.33, rng.random(n - k) < 0.97]
    d = _sigmoid(rng.normal(-1.5, 0.4, 2000))
    d_apart = rng.random(2000) < 0.97
    fit = fit_decision(p, apart, d, d_apart)
    chance = fit.probability(p, apart)
    typo = np.flatnonzero(apart[:k])
    assert (chance[typo] >= 0.5).mean() > 0.95  # linked, where the cap gave 0.05
    assert (chance[k:] < 0.5).mean() > 0.98


def test_too_few_rows_keep_the_matcher_and_its_cap():
    few = np.full(MIN_ROWS - 1, 0.8)
    assert (
        fit_decision(few, np.zeros(len(few), bool), np.full(100, 0.1), np.zeros(100, bool)) is None
    )
    probs = np.array([[0.9, 0.4]], np.float32)
    out = decided(None, probs, np.array([[True, False]]))
    np.testing.assert_allclose(out, [[NUMBERED_APART, 0.4]])


def test_decided_rows_never_rise_down_the_ranking_and_no_candidate_stays():
    rng = np.random.default_rng(2)
    p, _, d = _table(rng)
    fit = fit_decision(p, np.zeros(len(p), bool), d, np.zeros(len(d), bool))
    probs = np.array([[0.4, 0.45, -np.inf]], np.float32)  # a later candidate apart scoring higher
    out = decided(fit, probs, np.array([[True, False, False]]))
    assert out[0, 0] >= out[0, 1] and np.isneginf(out[0, 2])


def test_cautious_takes_the_lower_chance():
    grid = np.linspace(-14, 14, 5)
    a = TableDecision(0.5, 0.9, grid, np.array([0, 0.2, 0.6, 1, 1.0]), np.zeros(5))
    b = TableDecision(0.7, 0.8, grid, np.array([0, 0.4, 0.5, 0.9, 1.0]), np.ones(5))
    both = cautious([a, None, b])
    np.testing.assert_allclose(both.agree, [0, 0.2, 0.5, 0.9, 1.0])
    np.testing.assert_allclose(both.apart, np.zeros(5))
    assert both.unmatched == 0.7
    assert cautious([None]) is None


def _people(n, share, seed):
    """People (name and date of birth in one key); a partner has one typo, a third of
    them in a digit of the date."""
    rng = random.Random(seed)
    first = "james mary john patricia robert jennifer michael linda william".split()
    last = "smith johnson williams brown jones garcia miller davis wilson".split()

    def person():
        born = f"{rng.randint(1940, 2005)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        return f"{rng.choice(first)} {rng.choice(last)} {born}"

    right = [person() for _ in range(n)]
    left, truth = [], {}
    for i in range(n):
        if rng.random() >= share:
            left.append(person())
            continue
        text = right[i]
        spots = [j for j, c in enumerate(text) if c.isdigit()] if i % 3 == 0 else [1, 2, 3]
        j = rng.choice(spots)
        new = str(rng.randrange(10)) if text[j].isdigit() else "x"
        if new == text[j]:
            new = "9" if text[j] != "9" else "1"
        left.append(text[:j] + new + text[j + 1 :])
        truth[len(left) - 1] = i
    return pd.DataFrame({"key": left}), pd.DataFrame({"key": right}), truth


def test_a_digit_typo_in_a_birth_date_does_not_veto_the_match():
    left, right, truth = _people(400, 0.6, seed=3)
    out = fuzzy_join(left, right, on="key", model="pearl-static")
    digit = [i for i in truth if truth[i] % 3 == 0]
    found = out.loc[digit, "key_right"].tolist()
    right_of = [right.key[truth[i]] for i in digit]
    hits = sum(f == r for f, r in zip(found, right_of, strict=True))
    assert hits / len(digit) > 0.8  # capped at 0.05, none of them was linked
    unmatched = [i for i in range(len(left)) if i not in truth]
    assert out.loc[unmatched, "key_right"].isna().mean() > 0.9


def test_a_matcher_whose_scale_does_not_fit_the_table_still_links(hash_encoder):
    """A matcher that says 0.1-0.4 for right partners (text unlike its training pairs):
    the fixed cut at 0.5 linked nothing; the tables' own decision links the partners."""
    from test_calibration import _names, _variants

    from pearl.tables.matcher import MatchScorer

    rng = np.random.default_rng(0)
    right = pd.DataFrame({"title": _names(300, rng)})
    partners = _variants(right.title[:150])
    left = pd.DataFrame({"name": partners + _names(150, rng)})
    low = MatchScorer((0.6, 1.6, 0.0), -2.5, "test")
    kw = dict(left_on="name", right_on="title", model=hash_encoder, matcher=low)
    every = fuzzy_join(left, right, threshold=0, **kw)
    assert (every.title.iloc[:150] == right.title.iloc[:150]).mean() > 0.95  # ranked right
    out = fuzzy_join(left, right, how="inner", **kw)
    truth = dict(zip(partners, right.title[:150], strict=True))
    correct = sum(truth.get(n) == t for n, t in zip(out.name, out.title, strict=True))
    assert correct >= 140 and correct / len(out) >= 0.95
    assert out.match_score.min() >= 0.5


def test_a_streamed_right_table_is_decided_as_the_whole_one(hash_encoder):
    """A right table read in chunks (a large file) gets the decision estimated on the
    tables, as the whole table does: it kept the matcher's fixed cut and linked nothing."""
    from test_calibration import _names, _variants

    from pearl.tables.matcher import MatchScorer

    rng = np.random.default_rng(0)
    right = pd.DataFrame({"title": _names(300, rng)})
    left = pd.DataFrame({"name": _variants(right.title[:150]) + _names(150, rng)})
    low = MatchScorer((0.6, 1.6, 0.0), -2.5, "test")
    kw = dict(left_on="name", right_on="title", model=hash_encoder, matcher=low)
    whole = fuzzy_join(left, right, **kw)
    assert whole.title.notna().sum() >= 140
    for chunks in ({"right_chunksize": 70}, {}):
        right_in = right if chunks else [right.iloc[s : s + 100] for s in range(0, 300, 100)]
        streamed = fuzzy_join(left, right_in, **chunks, **kw)
        pd.testing.assert_series_equal(streamed.title, whole.title)
        np.testing.assert_allclose(streamed.match_score, whole.match_score, atol=1e-6)
