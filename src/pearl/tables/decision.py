"""A join's decision estimated on its own tables: each link's chance of being right.

The combined matcher's probability is calibrated on training pairs of many kinds, not on
the table at hand. On text it has not seen (OCR'd names, another script's spelling,
records of several fields in one key), its scale does not fit: right partners at 0.2 and
wrong ones at 0.05, and a fixed cut at 0.5 links nothing. And a rule such as "numbers
name things" (two keys whose digits differ are apart) is right for "Apollo 11" and
"Apollo 13" but wrong for a birth date with one digit mistyped.

The model here reads each left row's best candidate as evidence, its score and its
numbers (equal or absent, or apart), with both distributions estimated on the tables, as
Fellegi and Sunter read a pair's comparison levels:

- **u, from queries known to have no partner**: each of a sample of the reference's own
  keys (:data:`DECOYS`) ranked against the reference's other names (copies of its name
  left out) finds what a query without a partner finds. Their best candidates give the
  null distribution of the score (a smoothed histogram of logits) and how often such a
  candidate's numbers differ from the query's.
- **The rows without a partner** are counted as Storey counts null hypotheses: the
  table's best candidates below the decoys' median, over half the table (at most all of
  it). Rows with a partner that score that low make the count larger: the estimate errs
  towards fewer links.
- **A link's chance** is one minus its local false-link rate (Efron's local fdr): the
  rows without a partner expected at its score and level, counted one standard deviation
  high (Poisson: a few rows between the table's groups are no group of links), over the
  rows the table shows there, both smoothed alike. It is made non-decreasing in the score at each
  level by isotonic regression (a higher score never weighs less), so ranks within a
  level never change. A digit typo is then evidence against a link, weighed by how often
  the table's rows without a partner differ in their numbers, not a veto.

The model is used when the table has at least :data:`MIN_ROWS` best candidates and as
many decoys; else the matcher's probabilities stand, with the numbers rule as a cap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pearl.tables.calibration import logit, precision_threshold, threshold_for_precision

__all__ = [
    "TableDecision",
    "fit_decision",
    "decided",
    "cautious",
    "precision_cut",
    "DECOYS",
    "MIN_ROWS",
]

#: Reference keys ranked against the others for the null distribution (a seeded sample).
DECOYS = 1000
#: Fewer best candidates (or decoys) than this: the matcher's probabilities stand.
MIN_ROWS = 20
_GRID = 561


@dataclass(frozen=True)
class TableDecision:
    """A table's fitted decision: each link's chance of being right by its score's
    logit, at each level of its numbers.

    Attributes
    ----------
    unmatched : float
        The estimated share of rows without a partner among those searched.
    u_apart : float
        How often a non-match's numbers differ from its query's (from the decoys).
    grid : ndarray
        Logits of the matcher's probability.
    agree, apart : ndarray
        The chance of a link on ``grid`` whose numbers agree (or are absent), and whose
        numbers differ; each non-decreasing.
    """

    unmatched: float
    u_apart: float
    grid: np.ndarray
    agree: np.ndarray
    apart: np.ndarray

    def probability(self, probabilities: np.ndarray, apart: np.ndarray) -> np.ndarray:
        """Each link's chance of being right, from the matcher's probability (uncapped)
        and whether its numbers differ; non-finite entries (no candidate) stay as they
        are."""
        p = np.asarray(probabilities, dtype=np.float64)
        apart = np.broadcast_to(np.asarray(apart, dtype=bool), p.shape)
        out = p.copy()
        finite = np.isfinite(p)
        x = logit(p[finite])
        at = apart[finite]
        out[finite] = np.where(
            at, np.interp(x, self.grid, self.apart), np.interp(x, self.grid, self.agree)
        )
        return out


def _smoothed(x: np.ndarray, grid: np.ndarray, h: float) -> np.ndarray:
    """The density of points ``x`` on ``grid``: a histogram smoothed by a normal kernel of
    bandwidth ``h`` (integrates to one over the grid)."""
    step = grid[1] - grid[0]
    at = np.clip(np.round((x - grid[0]) / step).astype(int), 0, len(grid) - 1)
    counts = np.bincount(at, minlength=len(grid)).astype(np.float64)
    reach = int(4 * h / step) + 1
    kx = np.arange(-reach, reach + 1) * step
    kernel = np.exp(-0.5 * (kx / h) ** 2)
    density = np.convolve(counts, kernel / kernel.sum(), mode="same")
    return density / max(len(x), 1) / step


def _bandwidth(x: np.ndarray) -> float:
    """Silverman's rule, at least 0.1 (a logit)."""
    sd = float(np.std(x))
    iqr = float(np.subtract(*np.quantile(x, [0.75, 0.25])))
    spread = min(sd, iqr / 1.34) if iqr > 0 else sd
    return max(0.9 * spread * len(x) ** -0.2, 0.1)


def fit_decision(
    probabilities: np.ndarray,
    apart: np.ndarray,
    decoy_probabilities: np.ndarray,
    decoy_apart: np.ndarray,
) -> TableDecision | None:
    """Fit :class:`TableDecision` to a table's best candidates (the matcher's uncapped
    probabilities, and whether their numbers differ from the query's) and its decoys'
    (:meth:`~pearl.tables.reference.Reference.decoys`). None where either has fewer than
    :data:`MIN_ROWS` finite entries."""
    from sklearn.isotonic import IsotonicRegression

    p = np.asarray(probabilities, dtype=np.float64)
    keep = np.isfinite(p)
    x, a = logit(p[keep]), np.asarray(apart, dtype=bool)[keep]
    dp = np.asarray(decoy_probabilities, dtype=np.float64)
    dkeep = np.isfinite(dp)
    d, da = logit(dp[dkeep]), np.asarray(decoy_apart, dtype=bool)[dkeep]
    if len(x) < MIN_ROWS or len(d) < MIN_ROWS:
        return None
    grid = np.linspace(-14.0, 14.0, _GRID)
    u_apart = float(np.clip((da.sum() + 0.5) / (len(da) + 1.0), 1e-3, 1 - 1e-3))
    # Storey: the rows below the decoys' median, over half of the table
    middle = np.median(d)
    unmatched = float(min(1.0, (x <= middle).mean() / max((d <= middle).mean(), 1e-9)))
    curves = {}
    for level, u in ((False, 1 - u_apart), (True, u_apart)):
        at, null_at = a == level, da == level
        if not at.any():
            curves[level] = np.zeros(len(grid))
            continue
        # the null's scores at this level (numbers and scores go together), or all the
        # decoys' where this level has too few
        shape = d[null_at] if null_at.sum() >= MIN_ROWS else d
        h = max(_bandwidth(shape), _bandwidth(x[at]) if at.sum() > 1 else 0.0)
        null = _smoothed(shape, grid, h)
        seen = _smoothed(x[at], grid, h) * at.mean()
        expected = unmatched * null * u
        # not clipped before the isotonic fit: noise below zero offsets noise above it
        # in rows within a bandwidth: the rows without a partner expected here, plus one
        # standard deviation of their count (Poisson), are not links
        seen_rows, null_rows = seen * len(x) * h, expected * len(x) * h
        surplus = seen_rows - null_rows - np.sqrt(null_rows)
        chance = np.maximum(surplus / np.maximum(seen_rows, 1e-300), -1.0)
        # no row here, or below every decoy (where the null's density is not known):
        # read from the neighbours
        unknown = (seen < 1e-12) | ((grid < shape.min()) & (null < 1e-3 * null.max()))
        chance[unknown] = np.nan
        known = np.isfinite(chance)
        chance = np.interp(grid, grid[known], chance[known]) if known.any() else np.zeros(len(grid))
        iso = IsotonicRegression(increasing=True)
        fitted = iso.fit_transform(grid, chance, sample_weight=seen + 1e-9)
        curves[level] = np.clip(fitted, 0.0, 1.0)
    return TableDecision(unmatched, u_apart, grid, curves[False], curves[True])


def cautious(fits: list[TableDecision | None]) -> TableDecision | None:
    """One decision of several fitted with other null distributions (decoys from the
    reference's side and from the queries'): each link's chance the lowest of theirs
    (still non-decreasing), the largest share of rows without a partner; None where
    none was fitted."""
    done = [f for f in fits if f is not None]
    if not done:
        return None
    if len(done) == 1:
        return done[0]
    return TableDecision(
        max(f.unmatched for f in done),
        max(f.u_apart for f in done),
        done[0].grid,
        np.min([f.agree for f in done], axis=0),
        np.min([f.apart for f in done], axis=0),
    )


def decided(
    decision: TableDecision | None, probabilities: np.ndarray, apart: np.ndarray
) -> np.ndarray:
    """Ranked candidates' probabilities (rows best first) as decided: each one's chance
    from ``decision``, made non-increasing along each row; without a model, the
    matcher's probabilities with the numbers rule as a cap
    (:data:`~pearl.tables.numbers.NUMBERED_APART`)."""
    if decision is None:
        from pearl.tables.numbers import capped

        return capped(probabilities, apart)
    out = decision.probability(probabilities, apart)
    if out.shape[1] > 1:
        out = np.minimum.accumulate(np.where(np.isfinite(out), out, -np.inf), axis=1)
    return out.astype(np.float32)


def precision_cut(chances: np.ndarray, precision: float, decision: TableDecision | None) -> float:
    """The ``precision=`` threshold of a one-key join from its rows' decided best
    chances: read as they are where the decision was estimated on the tables, else
    through the table's two groups (:func:`~pearl.tables.calibration.precision_threshold`)."""
    if decision is None:
        return precision_threshold(chances, precision)
    return threshold_for_precision(chances, precision)
