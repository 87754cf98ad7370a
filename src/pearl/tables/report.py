"""A page a person reads about a fuzzy join's decisions: each key column's match weights,
the histogram of match scores, the expected precision and recall over the threshold, and
the borderline pairs (:class:`JoinReport`, :func:`join_report`).

The page is one self-contained HTML file (inline CSS and SVG, no script, nothing
fetched), so it opens offline in any browser and in a notebook (``_repr_html_``).
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from pearl.encoders import DEFAULT_MODEL
from pearl.tables.join_output import JoinDetails
from pearl.tables.report_charts import curve_svg, histogram_svg, match_weights_svg

__all__ = ["JoinReport", "join_report"]

#: thresholds of the expected precision and recall table
CURVE_THRESHOLDS = tuple(np.round(np.arange(0.05, 1.0, 0.05), 2))


def join_report(
    left: Any,
    right: Any,
    left_on: str | list[str] | None = None,
    right_on: str | list[str] | None = None,
    *,
    model: Any = DEFAULT_MODEL,
    right_chunksize: int | None = None,
    known_matches: Any = None,
    borderline: int = 20,
    **options: Any,
) -> JoinReport:
    """Run :func:`~pearl.tables.join.fuzzy_join` and keep what it decided on.

    Parameters
    ----------
    left, right, left_on, right_on, model, right_chunksize, known_matches
        As :func:`~pearl.tables.join.fuzzy_join`.
    borderline : int, default=20
        Pairs shown nearest the decision threshold.
    **options
        Any other :func:`~pearl.tables.join.fuzzy_join` option (``on``,
        ``threshold``, ``precision``, ``how``, ``top_k``...).

    Returns
    -------
    JoinReport
        Its ``result`` is the joined table :func:`~pearl.tables.join.fuzzy_join`
        returns; ``write_html(path)`` writes the page.

    Examples
    --------
    >>> report = pearl.join_report(left, right, on=["name", "city"])  # doctest: +SKIP
    >>> report.write_html("report.html")  # doctest: +SKIP
    >>> joined = report.result  # doctest: +SKIP
    """
    from pearl._validation import check_int
    from pearl.tables.join import joined
    from pearl.tables.join_options import JoinOptions

    borderline = check_int(borderline, "borderline", 0)
    opts = JoinOptions.check(left_on=left_on, right_on=right_on, **options)
    result, details = joined(left, right, opts, model, right_chunksize, known_matches)
    return JoinReport(result, details, borderline=borderline)


class JoinReport:
    """A fuzzy join's result and the page that explains its decisions.

    Parameters
    ----------
    result : table
        The joined table.
    details : JoinDetails
        What the join decided on (:func:`join_report` makes both).
    borderline : int, default=20
        Pairs shown nearest the decision threshold.
    title : str, default="pearl join report"

    Attributes
    ----------
    best_scores : ndarray of shape (n_left,)
        Each left row's best ``match_score`` (NaN: no candidate).
    chances : ndarray of shape (n_left,)
        Each best match's chance of being right, as ``precision=`` reads it: its
        probability (on one key column, estimated on the tables,
        :mod:`pearl.tables.decision`), or, where the one-key decision could not be
        estimated, the table's own two groups where they are apart
        (:func:`~pearl.tables.calibration.chance_correct`).
    """

    def __init__(
        self,
        result: Any,
        details: JoinDetails,
        borderline: int = 20,
        title: str = "pearl join report",
    ) -> None:
        self.result = result
        self.details = details
        self.borderline = borderline
        self.title = title
        first = details.scores[:, 0] if details.scores.shape[1] else np.zeros(len(details.ids))
        has = details.ids[:, 0] >= 0 if details.ids.shape[1] else np.zeros(len(first), bool)
        self.best_scores = np.where(has, first, np.nan).astype(np.float64)
        # each link's chance of being right, as precision= reads it: on one key column
        # from the table's own groups where they are apart (calibration.py)
        self.chances = self.best_scores
        if details.probability and details.model is None and details.decision is None:
            from pearl.tables.calibration import chance_correct

            self.chances = chance_correct(self.best_scores)

    def summary(self) -> dict[str, Any]:
        """Rows, links made at the threshold, and (with probabilities) the expected
        precision of the links and the expected number of true matches."""
        s = self.best_scores
        d = self.details
        linked = s >= d.threshold
        out: dict[str, Any] = {
            "left rows": len(d.left_keys),
            "right rows": len(d.right_keys),
            "key columns": ", ".join(_pair_names(d)),
            "score": "match probability" if d.probability else "cosine similarity",
            "threshold": round(d.threshold, 4),
            "links": int(linked.sum()),
            "rows without a candidate": int(np.isnan(s).sum()),
        }
        if d.probability:
            p = np.nan_to_num(self.chances)
            out["expected precision of the links"] = (
                round(float(p[linked].mean()), 4) if linked.any() else None
            )
            out["expected true matches (sum of probabilities)"] = round(float(p.sum()), 1)
        if d.decision is not None:  # the one-key join's decision (decision.py)
            out["decided on"] = "these tables (decoys of both sides)"
            out["rows without a partner (estimated share)"] = round(d.decision.unmatched, 3)
            out["non-matches whose numbers differ (share)"] = round(d.decision.u_apart, 3)
        if d.model is not None:
            out["prior (share of candidate pairs that match)"] = round(float(d.model.prior_), 6)
            out["chance that two random records match"] = float(f"{d.model.random_prior_:.3g}")
            blocking = getattr(d.model, "blocking_", None)
            if blocking:
                out["candidate pairs"] = _candidates_line(blocking)
        return out

    def expected_curve(self, thresholds: Any = CURVE_THRESHOLDS) -> pd.DataFrame:
        """Expected precision and recall of the links over the threshold, read from the
        probabilities themselves (no labels): at threshold ``t`` the links are the best
        candidates with probability ``>= t``; their expected precision is the mean of
        their chances of being right (:attr:`chances`: the probabilities, or on one key
        column the table's own groups where they are apart, as ``precision=`` reads
        them), and the expected recall their sum over all best candidates'. Empty with
        cosine scores (no probability to read)."""
        cols = ["threshold", "links", "expected precision", "expected recall"]
        if not self.details.probability:
            return pd.DataFrame(columns=cols)
        live = ~np.isnan(self.best_scores)  # rows with a candidate
        p, c = self.best_scores[live], self.chances[live]
        total = c.sum()
        rows = []
        for t in thresholds:
            acc = p >= t
            n = int(acc.sum())
            prec = float(c[acc].mean()) if n else np.nan
            rec = float(c[acc].sum() / total) if total > 0 else np.nan
            rows.append((float(t), n, prec, rec))
        return pd.DataFrame(rows, columns=cols)

    def match_weights(self) -> pd.DataFrame:
        """Each key column's comparison levels with ``m`` (their share among matches), ``u``
        (among non-matches) and the match weight ``log2(m / u)``: the evidence a pair
        gains at that level; ``seen``: whether the random pairs or the matches showed the
        level at all (a level never seen weighs 0: no evidence, whatever its smoothed
        ``m`` and ``u``). A join on several key columns; empty with one."""
        from pearl.tables.comparisons import LEVEL_NAMES

        cols = ["column", "kind", "level", "m", "u", "match weight", "seen"]
        model = self.details.model
        if model is None:
            return pd.DataFrame(columns=cols)
        kinds = model.kinds_
        rows = []
        weights = [r / np.log(2) for r in model.log_ratios()]  # bits
        seen_levels = model.seen_levels()
        for f, (name, kind) in enumerate(zip(_pair_names(self.details), kinds, strict=True)):
            m, u = np.asarray(model.m_[f]), np.asarray(model.u_[f])
            seen = seen_levels[f]
            for level in range(len(m) - 1, -1, -1):  # strongest agreement first
                label = LEVEL_NAMES[kind][level]
                row = (name, kind, label, m[level], u[level], weights[f][level], seen[level])
                rows.append(row)
        return pd.DataFrame(rows, columns=cols)

    def borderline_pairs(self, n: int | None = None) -> pd.DataFrame:
        """The ``n`` left rows whose best candidate's score is nearest the threshold, with
        both rows' keys, the score and the decision (``linked`` or not)."""
        n = self.borderline if n is None else n
        d = self.details
        rows = np.flatnonzero(~np.isnan(self.best_scores))
        near = rows[np.argsort(np.abs(self.best_scores[rows] - d.threshold), kind="stable")[:n]]
        near = near[np.argsort(-self.best_scores[near], kind="stable")]
        left = d.left_keys.iloc[near].reset_index(drop=True).add_prefix("left: ")
        partners = d.ids[near, 0] if len(near) else np.zeros(0, np.int64)  # ids: (0, 0)
        right = d.right_keys.iloc[partners].reset_index(drop=True).add_prefix("right: ")
        out = pd.concat([pd.Series(near, name="left row"), left, right], axis=1)
        out["match_score"] = self.best_scores[near]
        out["linked"] = self.best_scores[near] >= d.threshold
        return out

    def to_html(self) -> str:
        """The report as one self-contained HTML page."""
        d = self.details
        parts = [
            f"<h1>{_esc(self.title)}</h1>",
            _table(pd.DataFrame(list(self.summary().items()), columns=["", "value"])),
        ]
        weights = self.match_weights()
        if len(weights):
            parts += [
                "<h2>Match weights of each key column</h2>",
                "<p>log2(m / u): how much a pair's comparison at that level moves the odds "
                "of a match (positive: evidence for; negative: against). A missing value "
                "is no evidence. "
                + (
                    "m was learned from the known matches."
                    if getattr(d.model, "m_from_labels_", False)
                    else "m and the prior were fitted by EM without labels; u on random pairs."
                )
                + "</p>",
                match_weights_svg(weights, d.model.random_prior_),
                _weights_table(weights),
            ]
        score = "match probability" if d.probability else "cosine similarity"
        parts += [
            f"<h2>Each left row's best candidate: {score}</h2>",
            histogram_svg(self.best_scores, d.threshold, d.probability),
        ]
        curve = self.expected_curve()
        if len(curve):
            parts += [
                "<h2>Expected precision and recall over the threshold</h2>",
                "<p>Read from the probabilities, without labels: the precision of the links "
                "is the mean of their probabilities, the recall their share of the sum of "
                "all best candidates' probabilities. They hold as far as the probabilities "
                "are calibrated; label a sample of borderline pairs to check.</p>",
                curve_svg(curve, d.threshold),
                _table(curve, floats="{:.3f}"),
            ]
        if self.borderline:
            parts += [
                f"<h2>Borderline pairs (the {self.borderline} nearest the threshold)</h2>",
                _table(self.borderline_pairs(), floats="{:.3f}"),
            ]
        return _PAGE.format(title=_esc(self.title), body="\n".join(parts))

    def _repr_html_(self) -> str:
        return self.to_html()

    def write_html(self, path: str | Path) -> Path:
        """Write the page (UTF-8, atomically: an interrupted write leaves any previous
        file as it was) and return its path."""
        from pearl._io import write_text_atomic

        write_text_atomic(path, self.to_html())
        return Path(path)


def _pair_names(d: JoinDetails) -> list[str]:
    return [
        str(a) if str(a) == str(b) else f"{a} / {b}"
        for a, b in zip(d.left_keys.columns, d.right_keys.columns, strict=True)
    ]


def _candidates_line(blocking: dict) -> str:
    """How record linkage found its candidate pairs (``model.blocking_``), in words."""
    n, gain = blocking["sample_rows"], blocking["search_gain"]
    if blocking["search"] == "skipped":
        return (
            f"rows sharing a code, date or number value; the fuzzy search, run on {n:,} "
            f"sampled left rows, added {gain:.2f} expected matches there and was skipped"
        )
    if n:
        return (
            f"shared values and the fuzzy search (it added {gain:.1f} expected matches "
            f"on {n:,} sampled left rows)"
        )
    line = "shared values and the fuzzy search"
    if blocking.get("distinct_left_rows"):
        line += f" ({blocking['distinct_left_rows']:,} distinct left records)"
    return line


def _esc(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _cell(x: Any, floats: str) -> str:
    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "no"
    if isinstance(x, (float, np.floating)):
        return "" if np.isnan(x) else floats.format(x)
    if x is None or (not isinstance(x, str) and pd.isna(x)):
        return ""
    return _esc(x)


def _table(df: pd.DataFrame, floats: str = "{:.4g}") -> str:
    head = "".join(f"<th>{_esc(c)}</th>" for c in df.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{_cell(x, floats)}</td>" for x in row) + "</tr>"
        for row in df.itertuples(index=False)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _weights_table(weights: pd.DataFrame) -> str:
    """The match weights with a bar each (right and green: for; left and red: against)."""
    top = max(float(np.abs(weights["match weight"]).max()), 1e-9)
    rows = []
    for r in weights.itertuples(index=False):
        if not r[6]:  # never seen: no evidence, not a weight of 0 measured
            rows.append(
                f"<tr><td>{_esc(r[0])}</td><td>{_esc(r[1])}</td><td>{_esc(r[2])}</td>"
                "<td></td><td></td><td>never seen</td><td>no evidence</td></tr>"
            )
            continue
        w = float(r[5])
        width = 50 * abs(w) / top
        side = f"left:{50 if w >= 0 else 50 - width:.1f}%;width:{width:.1f}%"
        colour = "#2e7d32" if w >= 0 else "#c62828"
        bar = f'<div class="bar"><div style="{side};background:{colour}"></div></div>'
        rows.append(
            f"<tr><td>{_esc(r[0])}</td><td>{_esc(r[1])}</td><td>{_esc(r[2])}</td>"
            f"<td>{r[3]:.4f}</td><td>{r[4]:.4f}</td><td>{w:+.2f}</td><td>{bar}</td></tr>"
        )
    head = "".join(
        f"<th>{h}</th>" for h in ("column", "kind", "level", "m", "u", "match weight", "")
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; max-width: 60em; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }}
th, td {{ border-bottom: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; }}
th {{ background: #f5f5f5; }}
.bar {{ position: relative; width: 12em; height: 0.9em; background: #fafafa; }}
.bar div {{ position: absolute; top: 0; height: 100%; }}
svg text {{ font-size: 11px; fill: #444; }}
</style></head>
<body>
{body}
</body></html>
"""
