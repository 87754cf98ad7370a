import numpy as np
import pandas as pd
import pytest

from pearl import PearlWarning, fuzzy_join
from pearl.tables.calibration import chance_correct, two_groups
from pearl.tables.matcher import MatchScorer, threshold_for_precision


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _two_groups(n_high=700, n_low=300, seed=0):
    rng = np.random.default_rng(seed)
    x = np.r_[rng.normal(1.2, 0.3, n_high), rng.normal(-0.6, 0.3, n_low)]
    return _sigmoid(x), np.r_[np.ones(n_high, bool), np.zeros(n_low, bool)]


def test_two_groups_apart_are_found_and_read_as_chances():
    p, right = _two_groups()
    fit = two_groups(p)
    assert fit is not None and fit.trusted
    assert fit.share == pytest.approx(0.7, abs=0.03)
    assert fit.high == pytest.approx(1.2, abs=0.05) and fit.low == pytest.approx(-0.6, abs=0.05)
    c = chance_correct(p)
    assert c[right].mean() > 0.99 and c[~right].mean() < 0.02
    order = np.argsort(p)
    assert (np.diff(c[order]) >= 0).all()  # ranks never change
    # the matcher said 0.77 for the right links: precision=0.9 kept none of them
    assert (p[right] < 0.9).mean() > 0.9
    with pytest.warns(PearlWarning, match="cannot be reached"):
        assert (p >= threshold_for_precision(p, 0.9))[right].mean() < 0.1
    kept = p >= threshold_for_precision(p, 0.9, c)
    assert kept[right].mean() > 0.99 and right[kept].mean() >= 0.9


def test_groups_with_long_tails_are_still_found():
    # as on 100,000 people joined on one key: the right links' logits have a long upper
    # tail, the rows without a partner a skewed one; two normal groups collapsed into one
    # there and precision=0.9 kept about 1% of the partners
    rng = np.random.default_rng(0)
    x = np.r_[0.45 + 0.3 * rng.standard_t(3, 7000), -0.75 + 0.2 * rng.gamma(2.0, 1.0, 3000)]
    right = np.r_[np.ones(7000, bool), np.zeros(3000, bool)]
    p = _sigmoid(x)
    fit = two_groups(p)
    assert fit is not None and fit.trusted
    c = chance_correct(p)
    order = np.argsort(p)
    assert (np.diff(c[order]) >= 0).all()  # ranks never change, far out on both sides too
    kept = p >= threshold_for_precision(p, 0.9, c)
    assert kept[right].mean() > 0.85 and right[kept].mean() >= 0.87


def test_a_far_link_keeps_its_rank():
    p, _ = _two_groups()
    p = np.r_[p, _sigmoid(np.array([-12.0, 12.0]))]  # far below and far above both groups
    c = chance_correct(p)
    assert c[-2] <= c[:-2].min() and c[-1] >= c[:-2].max()


@pytest.mark.parametrize(
    "x",
    [
        np.random.default_rng(1).normal(2.0, 0.5, 1000),  # every row with its partner
        np.random.default_rng(2).normal(-1.0, 0.5, 1000),  # no row with a partner
        np.r_[np.random.default_rng(3).normal(-2, 0.3, 500), np.full(500, -0.5)],  # both < .5
        np.random.default_rng(4).normal(0.0, 2.0, 1000),  # one wide group around 0.5
        np.array([0.9, 0.2, 0.8]),  # too few to fit
        np.full(100, 0.7),  # all equal
    ],
)
def test_without_two_trusted_groups_the_probabilities_stay(x):
    p = _sigmoid(x)
    np.testing.assert_array_equal(chance_correct(p), p)


def test_no_match_stays_no_match():
    p, _ = _two_groups()
    p = np.r_[p, -np.inf, np.nan]
    c = chance_correct(p)
    assert np.isneginf(c[-2]) and np.isnan(c[-1]) and np.isfinite(c[:-2]).all()


def test_threshold_for_precision_reads_the_chances_in_the_order_of_the_probabilities():
    p = np.array([0.6, 0.95, 0.7, 0.5])
    assert threshold_for_precision(p, 0.9) == 0.95
    assert threshold_for_precision(p, 0.9, np.array([0.95, 1.0, 0.97, 0.1])) == 0.6
    with pytest.raises(ValueError, match="one entry per probability"):
        threshold_for_precision(p, 0.9, np.ones(3))


def _names(n, rng):
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    return [
        "".join(rng.choice(letters, 7)) + " " + "".join(rng.choice(letters, 6)) for _ in range(n)
    ]


def _variants(titles) -> list[str]:
    """Each title's words swapped, one letter dropped: no typo of it (a typo's match has
    the typo floor, TYPO_FLOOR), found by its n-grams."""
    return [f"{t.split()[1]} {t[:3] + t[4:7]}" for t in titles]


def test_precision_keeps_the_links_an_underconfident_matcher_undersells(hash_encoder):
    rng = np.random.default_rng(0)
    right = pd.DataFrame({"title": _names(150, rng)})
    partners = _variants(right.title[:100])
    left = pd.DataFrame({"name": partners + _names(50, rng)})
    # a matcher whose probabilities are squeezed into 0.4-0.8 (as on long keys of many
    # fields): it ranks well but never says 0.9
    squeezed = MatchScorer((0.6, 1.6, 0.0), -0.5, "test")
    kw = dict(left_on="name", right_on="title", model=hash_encoder, matcher=squeezed)
    from pearl.tables.reference import Reference

    _, alone = Reference(hash_encoder, matcher=squeezed).fit(right.title).rank(left.name)
    assert alone.max() < 0.9  # the matcher's probabilities, before the table's decision
    every = fuzzy_join(left, right, threshold=0, **kw)
    assert (every.title.iloc[:100] == right.title.iloc[:100]).all()  # ranked right
    # the tables' own decision (decision.py) links the partners at its default cut
    linked = fuzzy_join(left, right, how="inner", **kw)
    assert (linked.name.isin(partners)).sum() >= 95 and linked.name.isin(partners).mean() >= 0.9
    out = fuzzy_join(left, right, precision=0.9, how="inner", **kw)
    truth = dict(zip(partners, right.title[:100], strict=True))
    correct = sum(truth.get(n) == t for n, t in zip(out.name, out.title, strict=True))
    assert correct >= 95 and correct / len(out) >= 0.9
