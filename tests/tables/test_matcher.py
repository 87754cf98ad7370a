import numpy as np
import pandas as pd
import pytest

from pearl import PearlWarning, fuzzy_join
from pearl.tables.matcher import MatchScorer, threshold_for_precision


def test_scorer_fit_separates_and_round_trips():
    rng = np.random.default_rng(0)
    e = np.concatenate([rng.uniform(0.6, 1, 200), rng.uniform(0, 0.7, 200)])
    n = np.concatenate([rng.uniform(0.4, 1, 200), rng.uniform(0, 0.5, 200)])
    y = np.r_[np.ones(200), np.zeros(200)]
    s = MatchScorer.fit(e, n, y, balanced=True, source="test")
    p = s.probability(e, n)
    assert p[:200].mean() > 0.8 > 0.2 > p[200:].mean()
    again = MatchScorer.from_dict(s.to_dict())
    np.testing.assert_allclose(again.probability(e, n), p)
    with pytest.raises(ValueError):
        MatchScorer.from_dict({"weights": [1, "x", 2], "bias": 0})
    with pytest.raises(ValueError, match="both"):
        MatchScorer.fit(e, n, np.ones(400))


def test_scorer_fit_stays_monotone():
    # pairs where, taken alone, a higher n-gram cosine means *less* often a match: an
    # unconstrained fit learns a negative weight; the scorer keeps every weight >= 0
    rng = np.random.default_rng(1)
    e = rng.uniform(0, 1, 2000)
    n = rng.uniform(0, 1, 2000)
    y = (e - 0.3 * n + rng.normal(0, 0.1, 2000) > 0.4).astype(int)
    s = MatchScorer.fit(e, n, y)
    assert min(s.weights) >= 0
    assert s.weights[0] > 1  # the informative signal carries the weight
    grid = np.linspace(0, 1, 11)
    p = s.probability(grid[:, None] + 0 * grid, 0 * grid[:, None] + grid)
    assert (np.diff(p, axis=0) >= 0).all() and (np.diff(p, axis=1) >= 0).all()


def test_combined_is_the_default_and_streaming_does_not_change_it(hash_encoder):
    left = pd.DataFrame({"name": ["New York Times", "Bostn Globe", "Le Monde"]})
    right = pd.DataFrame(
        {
            "title": [
                "The New York Times",
                "Boston Globe",
                "Washington Post",
                "Le Monde diplomatique",
            ]
        }
    )
    default = fuzzy_join(left, right, left_on="name", right_on="title", model=hash_encoder)
    combined = fuzzy_join(
        left, right, left_on="name", right_on="title", model=hash_encoder, matcher="combined"
    )
    pd.testing.assert_frame_equal(default, combined)
    assert default.match_score.between(0, 1).all()
    parts = (right.iloc[i : i + 1] for i in range(len(right)))
    streamed = fuzzy_join(left, parts, left_on="name", right_on="title", model=hash_encoder)
    pd.testing.assert_frame_equal(streamed, default)


def test_calibration_is_monotone_and_round_trips():
    rng = np.random.default_rng(0)
    e, n = rng.uniform(0, 1, 3000), rng.uniform(0, 1, 3000)
    y = (rng.uniform(0, 1, 3000) < (e + n) / 2).astype(int)
    raw = MatchScorer.fit(e, n, y)
    cal = raw.calibrate(e, n, y)
    grid = np.linspace(0, 1, 50)
    p = cal.probability(grid, grid)
    assert (np.diff(p) >= 0).all() and len(cal.calibration[0]) <= 64
    # ranking uses the raw score, which calibration leaves alone
    np.testing.assert_array_equal(raw.score(e, n), cal.score(e, n))
    assert cal.calibrated(np.array([-np.inf]))[0] == -np.inf
    again = MatchScorer.from_dict(cal.to_dict())
    np.testing.assert_allclose(again.probability(e, n), cal.probability(e, n))
    with pytest.raises(ValueError, match="calibration"):
        MatchScorer.from_dict({**cal.to_dict(), "calibration": [[0.5, 0.1], [0.2, 0.3]]})


def test_threshold_for_precision():
    p = np.array([0.6, 0.99, 0.2, 0.95, 0.9])
    assert threshold_for_precision(p, 0.9) == 0.9  # mean(.99, .95, .9) >= .9, with .6 not
    assert threshold_for_precision(p, 0.8) == 0.6  # mean of the top four is 0.86
    with pytest.warns(PearlWarning, match="cannot be reached"):
        assert threshold_for_precision(p, 0.999) > 0.99  # not even the best: accept nothing
    # scores are float32: the threshold that accepts nothing stays above them there (the
    # next float64 above 1/3 rounded back onto it, and a join linked every row)
    third = np.full(3, 1 / 3, dtype=np.float32)
    with pytest.warns(PearlWarning, match="cannot be reached"):
        assert not (third >= threshold_for_precision(third, 0.9)).any()
    near = np.full(2, 0.99, dtype=np.float32)
    with pytest.warns(PearlWarning, match="cannot be reached"):
        assert not (near >= threshold_for_precision(near, 1.0)).any()
    assert threshold_for_precision(np.array([np.nan, 0.5]), 0.5) == 0.5
    # ties are accepted together: 10 at 1.0 and 90 at 0.01 would mean 0.109 all accepted,
    # so the threshold stays at 1.0 (it used to pick 0.01, as if one tie could be cut)
    tied = np.array([1.0] * 10 + [0.01] * 90)
    assert threshold_for_precision(tied, 0.9) == 1.0
    with pytest.raises(ValueError, match="precision"):
        threshold_for_precision(p, 1.5)


SCORER = MatchScorer((4.0, 6.0, 0.0), -5.0, "test")


def test_combined_join_scores_are_probabilities(hash_encoder):
    left = pd.DataFrame({"name": ["New York Times", "Bostn Globe", "Le Monde"]})
    right = pd.DataFrame({"title": ["The New York Times", "Boston Globe", "Washington Post"]})
    out = fuzzy_join(
        left, right, left_on="name", right_on="title", model=hash_encoder, matcher=SCORER,
        threshold=0,
    )  # fmt: skip
    assert out.title.tolist()[:2] == ["The New York Times", "Boston Globe"]
    assert out.match_score.between(0, 1).all()
    # by default a row whose best candidate is more likely not its match stays unmatched
    default = fuzzy_join(
        left, right, left_on="name", right_on="title", model=hash_encoder, matcher=SCORER
    )
    linked = default.match_score.notna()
    assert (default.match_score[linked] >= 0.5).all()
    assert list(linked) == list(out.match_score >= 0.5) and not linked.all()
    top2 = fuzzy_join(
        left, right, left_on="name", right_on="title", model=hash_encoder, matcher=SCORER,
        top_k=2, threshold=0,
    )  # fmt: skip
    assert (top2.groupby("name").title.nunique() == 2).all()  # no candidate twice


def test_precision_picks_the_threshold(hash_encoder):
    left = pd.DataFrame({"name": ["New York Times", "zzzz qqqq"]})
    right = pd.DataFrame({"title": ["The New York Times", "Boston Globe"]})
    out = fuzzy_join(
        left,
        right,
        left_on="name",
        right_on="title",
        model=hash_encoder,
        matcher=SCORER,
        precision=0.9,
        how="inner",
    )
    assert out.name.tolist() == ["New York Times"]
    with pytest.raises(ValueError, match="combined matcher"):
        fuzzy_join(
            left,
            right,
            left_on="name",
            right_on="title",
            model=hash_encoder,
            matcher="cosine",
            precision=0.9,
        )
    with pytest.raises(ValueError, match="matcher"):
        fuzzy_join(
            left, right, left_on="name", right_on="title", model=hash_encoder, matcher="magic"
        )
    # both decision points at once: an error, not a threshold silently ignored
    for on in ("name", ["name", "name"]):
        with pytest.raises(ValueError, match="not both"):
            fuzzy_join(left, left, on=on, model=hash_encoder, threshold=0.3, precision=0.9)


MARGIN = MatchScorer((4.0, 6.0, 0.0), -5.0, "test", margin=(0.5, 2.0, 0.0, 3.0))


def test_margin_model_learns_that_a_close_rival_makes_a_match_less_certain():
    rng = np.random.default_rng(0)
    best = rng.uniform(0.3, 0.95, 4000)
    gap = rng.uniform(0, 0.3, 4000)
    second = np.clip(best - gap, 0.01, None)
    second[:100] = -np.inf  # no runner-up at all
    lead = np.log(best / (1 - best)) - np.log(second / (1 - second))
    y = rng.uniform(0, 1, 4000) < 1 / (1 + np.exp(-(2 * np.nan_to_num(lead, posinf=3) - 1)))
    s = SCORER.calibrate_margin(best, second, y.astype(int))
    a, b, c, cap = s.margin
    assert a >= 0 and b > 1 and cap > 0
    p = s.ranked(np.array([[0.8, 0.79], [0.8, 0.2], [0.8, -np.inf], [-np.inf, -np.inf]]))
    assert p[0, 0] < p[1, 0]  # the same score, a closer rival: less certain
    # no rival at all (a one-row reference): no lead to read, the pair's own probability
    assert p[2, 0] == s.calibrated(np.array([0.8]))[0]
    assert p[0, 1] < p[0, 0]  # the second candidate leads by a negative margin
    assert np.isneginf(p[3]).all() and p.dtype == np.float32
    again = MatchScorer.from_dict(s.to_dict())
    assert again.margin == s.margin
    for bad in ([1, 2, 3], [-1, 2, 0, 1], [1, 2, 0, 0], [1, 2, 0, float("nan")]):
        with pytest.raises(ValueError, match="margin"):
            MatchScorer.from_dict({**s.to_dict(), "margin": bad})
    with pytest.raises(ValueError, match="both"):
        SCORER.calibrate_margin(best, second, np.ones(4000))


def test_without_a_margin_model_ranked_is_the_calibration():
    assert SCORER.width(1) == 1 and MARGIN.width(1) == 8 and MARGIN.width(3) == 10
    raw = np.array([[0.9, 0.5], [0.4, -np.inf]])
    np.testing.assert_array_equal(SCORER.ranked(raw), SCORER.calibrated(raw))


def test_join_and_search_score_a_match_by_its_lead_over_the_runner_up(hash_encoder):
    from pearl import EntityIndex

    left = pd.DataFrame({"name": ["Boston Globe"]})
    alone = pd.DataFrame({"title": ["Boston Globe", "Le Monde"]})
    rival = pd.DataFrame({"title": ["Boston Globe", "Boston Globes", "Le Monde"]})
    scores = {}
    for name, right in (("alone", alone), ("rival", rival)):
        for k in (1, 2):
            out = fuzzy_join(
                left,
                right,
                left_on="name",
                right_on="title",
                model=hash_encoder,
                matcher=MARGIN,
                top_k=k,
            )
            assert out.title.iloc[0] == "Boston Globe"
            scores[name, k] = out.match_score.tolist()
        index = EntityIndex(hash_encoder).build(right.title.tolist())
        hit = index.search(["Boston Globe"], top_k=1, matcher=MARGIN)
        assert hit.names[0] == ["Boston Globe"]
        np.testing.assert_allclose(hit.scores[0, 0], scores[name, 1][0], rtol=1e-5)
    assert scores["rival", 1][0] < scores["alone", 1][0]  # a near-duplicate: less certain
    assert scores["rival", 2][0] == pytest.approx(scores["rival", 1][0])  # k changes nothing


def test_nonnegative_logistic_keeps_weights_nonnegative():
    from pearl.tables.matcher import nonnegative_logistic

    rng = np.random.default_rng(0)
    x = rng.random((400, 2))
    y = (2.0 * x[:, 0] - 1.0 + 0.1 * rng.standard_normal(400) > 0).astype(float)
    sw = np.full(400, 1 / 400)
    w = nonnegative_logistic(x, y, sw, start=np.r_[np.ones(2), 0.0])
    assert len(w) == 3 and min(w[:2]) >= 0
    assert w[0] > 1.0 > w[1]  # the informative column carries the weight
    # a column that lowers the odds gets weight 0, not a negative weight
    y2 = (2.0 * x[:, 0] - 2.0 * x[:, 1] > 0).astype(float)
    w = nonnegative_logistic(x, y2, sw, start=np.r_[np.ones(2), 0.0])
    assert w[0] > 1.0 and w[1] == pytest.approx(0.0, abs=1e-6)


def test_the_rival_of_a_candidate_is_the_best_candidate_of_another_name():
    raw = np.array([[0.9, 0.9, 0.6, -np.inf], [0.9, 0.7, 0.6, 0.5]])
    distinct = np.array([[0, 1, 2, -1], [0, 1, 2, 3]])
    # with every name distinct, the rule of ranked candidates: the first's rival is the
    # second, every other's the first
    np.testing.assert_array_equal(MARGIN.ranked(raw, distinct), MARGIN.ranked(raw))
    # the first two candidates of the first row are one name listed twice: each one's
    # rival is the third candidate, and both get the same probability
    copies = np.array([[5, 5, 2, -1], [0, 1, 0, 3]])
    p = MARGIN.ranked(raw, copies)
    lone = MARGIN.ranked(raw[:1, [0, 2]])  # the name once, beside its rival
    assert p[0, 0] == p[0, 1] == pytest.approx(lone[0, 0])
    assert p[0, 2] == pytest.approx(lone[0, 1]) and np.isneginf(p[0, 3])
    # a copy further down (the second row's third candidate) is measured against the
    # best other name, the second candidate
    q = MARGIN.ranked(raw[1:, [2, 1]])
    assert p[1, 2] == pytest.approx(q[0, 0])
    # only copies: the probability of the pair alone
    alone = MARGIN.ranked(np.array([[0.9, 0.9]]), np.array([[7, 7]]))
    np.testing.assert_allclose(alone[0], MARGIN.calibrated(np.array([0.9, 0.9])))


@pytest.mark.parametrize("model", ["pearl-static", "pearl-minilm"])
def test_the_weights_of_a_model_are_chosen_without_loading_it(model):
    from pearl.tables.encoding import get_encoder
    from pearl.tables.matcher import scorer_for, scorer_for_model

    assert scorer_for_model("combined", model) == scorer_for("combined", get_encoder(model))
    assert scorer_for_model("cosine", model) is None


def test_a_precision_no_link_can_reach_is_said_at_the_callers_line():
    from pearl.tables.matcher import threshold_for_precision

    with pytest.warns(UserWarning, match="precision=0.9 cannot be reached.*right 60%") as said:
        t = threshold_for_precision(np.array([0.6, 0.5, 0.2]), 0.9)
    assert t > 0.6 and said[0].filename == __file__  # the user's line, not pearl's
