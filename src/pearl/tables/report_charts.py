"""The charts of a join report (:class:`~pearl.tables.report.JoinReport`), as inline SVG:
self-contained, drawn without a plotting library or anything fetched."""

from __future__ import annotations

import html

import numpy as np
import pandas as pd

__all__ = ["histogram_svg", "curve_svg", "match_weights_svg"]


def histogram_svg(scores: np.ndarray, threshold: float, probability: bool) -> str:
    """Counts of the best scores in 20 bins, with the threshold as a line."""
    s = scores[~np.isnan(scores)]
    lo, hi = (0.0, 1.0) if probability or not len(s) else (min(-1e-9, s.min()), 1.0)
    counts, edges = np.histogram(s, bins=20, range=(lo, hi))
    w, h, pad = 600, 220, 30
    top = max(int(counts.max()) if len(counts) else 0, 1)
    bars = []
    for k, c in enumerate(counts):
        x = pad + k * (w - 2 * pad) / 20
        bh = (h - 2 * pad) * c / top
        bars.append(
            f'<rect x="{x:.1f}" y="{h - pad - bh:.1f}" width="{(w - 2 * pad) / 20 - 2:.1f}" '
            f'height="{bh:.1f}" fill="#5c6bc0"><title>{edges[k]:.2f}-{edges[k + 1]:.2f}: '
            f"{c} rows</title></rect>"
        )
    tx = pad + (threshold - lo) / (hi - lo) * (w - 2 * pad) if hi > lo else pad
    tx = min(max(tx, pad), w - pad)
    labels = (
        f'<text x="{pad}" y="{h - 8}">{lo:.2f}</text>'
        f'<text x="{w - pad}" y="{h - 8}" text-anchor="end">{hi:.2f}</text>'
        f'<text x="{pad - 4}" y="{pad}" text-anchor="end">{top}</text>'
        f'<line x1="{tx:.1f}" x2="{tx:.1f}" y1="{pad - 10}" y2="{h - pad}" stroke="#c62828" '
        f'stroke-dasharray="4"/><text x="{tx + 4:.1f}" y="{pad - 12}">threshold '
        f"{threshold:.3g}</text>"
    )
    return (
        f'<svg width="{w}" height="{h}" role="img" aria-label="histogram of scores">'
        f"{''.join(bars)}{labels}</svg>"
    )


def curve_svg(curve: pd.DataFrame, threshold: float) -> str:
    """Expected precision (blue) and recall (orange) over the threshold."""
    w, h, pad = 600, 220, 30

    def xy(t, v):
        return pad + t * (w - 2 * pad), h - pad - v * (h - 2 * pad)

    lines = []
    for col, colour in (("expected precision", "#1565c0"), ("expected recall", "#ef6c00")):
        pts = [xy(t, v) for t, v in zip(curve["threshold"], curve[col], strict=True) if v == v]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        lines.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
    tx, _ = xy(min(max(threshold, 0.0), 1.0), 0)
    labels = (
        f'<text x="{pad}" y="{h - 8}">0</text><text x="{w - pad}" y="{h - 8}" '
        f'text-anchor="end">threshold 1</text><text x="{pad - 4}" y="{pad}" '
        f'text-anchor="end">1</text><line x1="{tx:.1f}" x2="{tx:.1f}" y1="{pad}" '
        f'y2="{h - pad}" stroke="#c62828" stroke-dasharray="4"/>'
        f'<text x="{w - pad}" y="{pad + 12}" text-anchor="end" fill="#1565c0">'
        f'expected precision</text><text x="{w - pad}" y="{pad + 28}" text-anchor="end" '
        f'fill="#ef6c00">expected recall</text>'
    )
    return (
        f'<svg width="{w}" height="{h}" role="img" aria-label="expected precision and '
        f'recall">{"".join(lines)}{labels}</svg>'
    )


def _step(top: float) -> float:
    """A round tick step for an axis reaching ``top``: about four ticks a side."""
    for step in (0.5, 1, 2, 5, 10, 20, 50):
        if top / step <= 5:
            return step
    return 100.0


def _colour(w: float, top: float) -> str:
    """A diverging colour of a weight: red against, green for, paler nearer 0."""
    share = min(abs(w) / top, 1.0) if top > 0 else 0.0
    near = (198, 40, 40) if w < 0 else (46, 125, 50)
    mixed = (round(235 + (c - 235) * (0.25 + 0.75 * share)) for c in near)
    return "#" + "".join(f"{c:02x}" for c in mixed)


def match_weights_svg(weights: pd.DataFrame, prior: float) -> str:
    """splink's match-weights chart: the prior's weight (``log2`` of the odds that two
    random records match) and each key column's levels' weights (``log2(m / u)``, the
    :meth:`~pearl.tables.report.JoinReport.match_weights` table, strongest level first)
    as bars on one axis, coloured by a diverging scale, with axis titles; a level seen
    neither among random pairs nor among the matches is marked as no evidence."""
    prior = float(np.clip(prior, 1e-12, 1 - 1e-12))
    rows = [("prior", "two random records match", float(np.log2(prior / (1 - prior))), True)]
    seen = weights["seen"] if "seen" in weights else pd.Series(True, index=weights.index)
    for r, s in zip(weights.itertuples(index=False), seen, strict=True):
        rows.append((str(r[0]), str(r[2]), float(r[5]), bool(s)))
    top = max(max(abs(w) for _, _, w, _ in rows), 1.0)
    step = _step(top)
    top = step * np.ceil(top / step)
    label_w, plot_w, bar_h, pad = 390, 400, 16, 30
    h = pad + len(rows) * bar_h + 60
    zero = label_w + plot_w / 2

    def x(w: float) -> float:
        return zero + w / top * plot_w / 2

    parts = []
    for k, (column, level, w, was_seen) in enumerate(rows):
        y = pad + k * bar_h
        if k and column != rows[k - 1][0]:  # a rule between the columns
            parts.append(f'<line x1="10" x2="{label_w + plot_w}" y1="{y}" y2="{y}" stroke="#bbb"/>')
        name = html.escape(f"{column}: {level}", quote=True)
        parts.append(
            f'<text x="{label_w - 6}" y="{y + bar_h * 0.7:.1f}" text-anchor="end">{name}</text>'
        )
        if not was_seen:
            parts.append(
                f'<text x="{zero + 4:.1f}" y="{y + bar_h * 0.7:.1f}" fill="#888">never seen: '
                "no evidence</text>"
            )
            continue
        left, right = sorted((x(0.0), x(w)))
        parts.append(
            f'<rect x="{left:.1f}" y="{y + 2}" width="{max(right - left, 1.0):.1f}" '
            f'height="{bar_h - 4}" fill="{_colour(w, top)}"><title>{name}: {w:+.2f} bits'
            "</title></rect>"
        )
        parts.append(
            f'<text x="{(right + 4) if w >= 0 else (left - 4):.1f}" y="{y + bar_h * 0.7:.1f}" '
            f'text-anchor="{"start" if w >= 0 else "end"}">{w:+.2f}</text>'
        )
    base = pad + len(rows) * bar_h
    ticks = np.arange(-top, top + step / 2, step)
    grid = []  # drawn first: under the bars
    for t in ticks:
        grid.append(
            f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{pad - 4}" y2="{base}" '
            f'stroke="{"#444" if t == 0 else "#e0e0e0"}"/>'
            f'<text x="{x(t):.1f}" y="{base + 14}" text-anchor="middle">{t:g}</text>'
        )
    parts = grid + parts
    parts.append(
        f'<text x="{zero:.1f}" y="{base + 30}" text-anchor="middle">match weight, bits: '
        "log2(m / u); the prior: log2 of its odds</text>"
        f'<text x="{zero:.1f}" y="{base + 44}" text-anchor="middle" fill="#666">'
        "&#8592; against a match | for a match &#8594;</text>"
        f'<text x="{label_w - 6}" y="{pad - 10}" text-anchor="end" font-weight="bold">'
        "column: level</text>"
    )
    width = label_w + plot_w + 70
    return (
        f'<svg width="{width}" height="{h}" role="img" aria-label="match weights">'
        f'<g font-size="11" font-family="sans-serif" fill="#333">{"".join(parts)}</g></svg>'
    )
