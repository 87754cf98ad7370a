import re

import numpy as np
import pandas as pd
import pytest

import pearl
from pearl.cli import main
from pearl.tables.report import JoinReport, join_report


def _people(n: int, seed: int = 0):
    """The same people in two tables: names with a typo in every third right row, a
    missing city in every fifth, shuffled."""
    rng = np.random.default_rng(seed)
    first = rng.choice(["anna", "john", "maria", "peter", "lucy", "omar", "chen", "sara"], n)
    last = rng.choice(["smith", "garcia", "muller", "kowalski", "nguyen", "okafor"], n)
    left = pd.DataFrame(
        {
            "first": first,
            "last": last,
            "city": rng.choice(["paris", "lyon", "berlin", "madrid", "oslo"], n),
            "born": pd.Timestamp("1950-01-01") + pd.to_timedelta(rng.integers(0, 20000, n), "D"),
            "zip": rng.integers(10000, 99999, n),
        }
    )
    right = left.copy()
    right.loc[::3, "last"] = right["last"][::3].str[1:]
    right.loc[::5, "city"] = None
    return left, right.sample(frac=1, random_state=seed).reset_index(drop=True)


def _names():
    left = pd.DataFrame({"name": ["Acme Corp", "Globex Inc", "Initech", "Umbrella", None]})
    right = pd.DataFrame({"name": ["ACME Corporation", "Globex Incorporated", "Hooli"]})
    return left, right


def test_report_result_is_the_join_and_its_numbers_read_the_scores(hash_encoder):
    left, right = _names()
    report = join_report(left, right, on="name", model=hash_encoder, threshold=0.3)
    expected = pearl.fuzzy_join(left, right, on="name", model=hash_encoder, threshold=0.3)
    pd.testing.assert_frame_equal(report.result, expected)
    s = report.best_scores
    assert np.isnan(s[4])  # a null key has no candidate
    live = s[~np.isnan(s)]
    summary = report.summary()
    assert (
        summary["links"] == int((live >= 0.3).sum()) == int(expected["match_score"].notna().sum())
    )
    assert summary["rows without a candidate"] == 1
    assert summary["expected precision of the links"] == pytest.approx(
        live[live >= 0.3].mean(), abs=1e-4
    )
    curve = report.expected_curve([0.0, 0.3, 1.0])
    assert curve["links"].tolist() == [len(live), int((live >= 0.3).sum()), int((live >= 1).sum())]
    assert curve["expected recall"].iloc[0] == pytest.approx(1.0)
    assert len(report.match_weights()) == 0  # one key column: no Fellegi-Sunter model


def test_borderline_pairs_are_the_nearest_the_threshold(hash_encoder):
    left, right = _names()
    report = join_report(left, right, on="name", model=hash_encoder, threshold=0.3, borderline=2)
    pairs = report.borderline_pairs()
    assert len(pairs) == 2
    gaps = np.abs(report.best_scores[~np.isnan(report.best_scores)] - 0.3)
    assert sorted(np.abs(pairs["match_score"] - 0.3)) == pytest.approx(sorted(gaps)[:2])
    assert (pairs["linked"] == (pairs["match_score"] >= 0.3)).all()
    # the keys shown are the rows' own
    for row in pairs.itertuples(index=False):
        assert row[1] == left["name"][row[0]]


def test_multi_column_report_shows_each_columns_match_weights(hash_encoder, tmp_path):
    left, right = _people(60)
    keys = ["first", "last", "city", "born", "zip"]
    report = join_report(left, right, on=keys, model=hash_encoder)
    weights = report.match_weights()
    assert set(weights["column"]) == set(keys)
    model = report.details.model
    first = weights[weights["column"] == "first"]
    # strongest agreement first, and weight = log2(m / u) of the fitted model
    assert first["match weight"].iloc[0] == pytest.approx(
        np.log2(model.m_[0][-1] / model.u_[0][-1])
    )
    assert first["level"].iloc[0].startswith("equal")
    assert "prior (share of candidate pairs that match)" in report.summary()
    summary = report.summary()
    assert (
        0
        < summary["chance that two random records match"]
        <= summary["prior (share of candidate pairs that match)"]
    )
    assert report.summary()["candidate pairs"] == "shared values and the fuzzy search"
    page = report.write_html(tmp_path / "r.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "Match weights of each key column" in page and "<svg" in page
    assert "Borderline pairs" in page and "Expected precision and recall" in page
    assert "<script" not in page and "http" not in page  # self-contained, nothing fetched


def test_the_page_escapes_the_data(hash_encoder):
    left = pd.DataFrame({"name": ["<script>alert(1)</script>", "a & b"]})
    right = pd.DataFrame({"name": ["<script>alert(2)</script>", "a and b"]})
    page = join_report(left, right, on="name", model=hash_encoder, threshold=0).to_html()
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "a &amp; b" in page


def test_cosine_scores_give_no_expected_precision(hash_encoder):
    left, right = _names()
    report = join_report(left, right, on="name", model=hash_encoder, matcher="cosine")
    assert report.summary()["score"] == "cosine similarity"
    assert "expected precision of the links" not in report.summary()
    assert len(report.expected_curve()) == 0
    assert "Expected precision" not in report.to_html()


def test_report_options_are_checked_like_the_join(hash_encoder):
    left, right = _names()
    with pytest.raises(TypeError):
        join_report(left, right, on="name", model=hash_encoder, no_such_option=1)
    with pytest.raises(ValueError, match="borderline"):
        join_report(left, right, on="name", model=hash_encoder, borderline=-1)
    assert isinstance(join_report(left, right, on="name", model=hash_encoder), JoinReport)


def test_cli_join_writes_the_report(tmp_path, tiny_model_dir, capsys):
    left, right = _names()
    left.to_csv(tmp_path / "l.csv", index=False)
    right.to_csv(tmp_path / "r.csv", index=False)
    base = ["join", str(tmp_path / "l.csv"), str(tmp_path / "r.csv"), "--left-on", "name"]
    base += ["--right-on", "name", "-m", str(tiny_model_dir), "-o", str(tmp_path / "out.csv")]
    assert main([*base, "--report", str(tmp_path / "report.html")]) == 0
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert re.search(r"<td>links</td><td>\d+</td>", page)
    assert pd.read_csv(tmp_path / "out.csv").shape[0] == len(left)
    # the report never replaces an input, nor the joined table
    before = (tmp_path / "l.csv").read_bytes()
    for bad in (str(tmp_path / "l.csv"), str(tmp_path / "out.csv"), "-"):
        assert main([*base, "--report", bad]) == 2
    assert (tmp_path / "l.csv").read_bytes() == before


def test_the_expected_precision_reads_the_chances_precision_reads(hash_encoder):
    from test_calibration import _names, _variants

    from pearl.tables.matcher import MatchScorer
    from pearl.tables.reference import Reference

    rng = np.random.default_rng(0)
    right = pd.DataFrame({"title": _names(150, rng)})
    left = pd.DataFrame({"name": _variants(right.title[:100]) + _names(50, rng)})
    squeezed = MatchScorer((0.6, 1.6, 0.0), -0.5, "test")
    report = join_report(
        left, right, left_on="name", right_on="title", model=hash_encoder,
        matcher=squeezed, precision=0.9,
    )  # fmt: skip
    # the one-key join's scores are the chances estimated on the tables (decision.py)
    assert report.details.decision is not None
    summary = report.summary()
    assert summary["decided on"].startswith("these tables")
    assert 0.2 < summary["rows without a partner (estimated share)"] < 0.45  # 50 of 150
    np.testing.assert_array_equal(report.chances, report.best_scores)
    assert report.summary()["expected precision of the links"] >= 0.9
    _, alone = Reference(hash_encoder, matcher=squeezed).fit(right.title).rank(left.name)
    assert alone[:100].mean() < 0.9  # what the matcher's probabilities alone say
    curve = report.expected_curve([0.0, report.details.threshold])
    assert curve["expected precision"].iloc[1] >= 0.9


def test_the_report_says_when_shared_codes_replaced_the_search(hash_encoder, monkeypatch):
    from pearl_lab.synthetic import companies

    from pearl.tables import blocking

    monkeypatch.setattr(blocking, "SAMPLE_ROWS", 100)  # 600 rows are then checked
    left, right, _ = companies(600, seed=2)
    keys = ["name", "street", "city", "phone", "postcode"]
    line = join_report(left, right, on=keys, model=hash_encoder).summary()["candidate pairs"]
    assert line.startswith("rows sharing a code") and "100 sampled left rows" in line


def test_the_candidate_line_names_each_way_of_finding_pairs():
    from pearl.tables.report import _candidates_line

    whole = {"search": "whole table", "sample_rows": 0, "search_gain": None}
    assert _candidates_line(whole) == "shared values and the fuzzy search"
    checked = {"search": "whole table", "sample_rows": 250, "search_gain": 21.7}
    assert "added 21.7 expected matches on 250 sampled" in _candidates_line(checked)
    skipped = {"search": "skipped", "sample_rows": 2000, "search_gain": 0.157}
    line = _candidates_line(skipped)
    assert "2,000 sampled left rows, added 0.16 expected matches" in line and "skipped" in line


def test_the_match_weights_chart_shows_the_prior_and_every_level(hash_encoder):
    import html

    from pearl.tables.report_charts import match_weights_svg

    left, right = _people(60)
    keys = ["first", "last", "city", "born", "zip"]
    report = join_report(left, right, on=keys, model=hash_encoder)
    weights = report.match_weights()
    page = report.to_html()
    svg = re.search(r'<svg[^>]*aria-label="match weights".*?</svg>', page, re.S).group(0)
    assert "prior: two random records match" in svg and "match weight, bits" in svg
    seen = weights[weights["seen"]]
    # a bar per seen level and the prior, each titled with its weight
    bars = re.findall(r"<rect [^>]*><title>([^<]*): ([+-][0-9.]+) bits</title>", svg)
    assert len(bars) == len(seen) + 1
    for (name, w), (_, row) in zip(bars[1:], seen.iterrows(), strict=True):
        assert html.unescape(name) == f"{row['column']}: {row['level']}"
        assert float(w) == pytest.approx(row["match weight"], abs=0.006)
    prior = report.details.model.random_prior_
    assert float(bars[0][1]) == pytest.approx(np.log2(prior / (1 - prior)), abs=0.006)
    # a level never seen is no evidence, marked so, not drawn as a weight of 0
    unseen = pd.DataFrame(
        [("name", "text", "similarity 0.4-0.7", 1e-4, 1e-5, 0.0, False)],
        columns=weights.columns,
    )
    chart = match_weights_svg(unseen, 0.01)
    assert "never seen: no evidence" in chart and chart.count("<rect") == 1  # the prior
