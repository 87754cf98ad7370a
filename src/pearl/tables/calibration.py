"""A table's own estimate of how often its best matches are right (``precision=``).

The combined matcher's probability is calibrated on training pairs of many kinds, not on the
table at hand: on long keys of several fields (a name, a city and a date in one string) it
ranks the right partner first but says 0.7-0.9 where nearly all such links are right
(experiments/results/calibration_single_key.md). ``precision=`` would then keep only the
few links above 0.9. The best candidates of a table where some rows have no partner form
two groups, the rows with their partner and the rows without; where the table shows these
groups well apart, each link's chance of being right is read from them.

The two groups are fitted by EM as a mixture of two Student-t distributions
(:data:`DEGREES` degrees of freedom) of equal scale on the probabilities' logits: Platt
scaling fitted without labels, with tails. Two normal groups were used first; on large
tables (100,000 people on one key) the right links' logits have a long upper tail and the
rows without a partner a skewed one, a normal mixture then collapses into one group, and
``precision=`` kept 3% of the partners (experiments/results/calibration_tails.md). Each
link's chance is the upper group's posterior, read on the logit clamped to the interval
where that posterior rises (a t-mixture's posterior falls back to the share far out on both
sides), so ranks never change. The fit is used only where it is trustworthy: the groups
separated by more than two scales (Ashman's D) and lying on both sides of the matcher's
own 0.5. A table whose rows all have partners shows one group, is not split, and keeps the
matcher's probabilities.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pearl._validation import check_float

__all__ = [
    "logit",
    "TwoGroups",
    "two_groups",
    "chance_correct",
    "precision_threshold",
    "threshold_for_precision",
]

#: Ashman's D above which two groups count as apart (the usual bound for a clean split).
MIN_SEPARATION = 2.0
#: Fewer best matches than this are taken as they are (no fit).
MIN_MATCHES = 20
#: The groups' degrees of freedom (Student-t): tails that a few far links cannot drag.
DEGREES = 5.0
_EPS = 1e-6


@dataclass(frozen=True)
class TwoGroups:
    """Two Student-t groups of equal scale on the logits of a table's best probabilities.

    Attributes
    ----------
    share : float
        The upper group's share (the links estimated right).
    low, high : float
        The groups' centres (logits).
    sd : float
        Their common scale.
    """

    share: float
    low: float
    high: float
    sd: float

    @property
    def separation(self) -> float:
        """Ashman's D: the distance of the centres in scales."""
        return (self.high - self.low) / self.sd

    @property
    def trusted(self) -> bool:
        """Whether the groups are apart (D > :data:`MIN_SEPARATION`) and on both sides
        of 0.5 (the matcher's own decision point)."""
        return self.separation > MIN_SEPARATION and self.low < 0.0 < self.high

    def posterior(self, probabilities: np.ndarray) -> np.ndarray:
        """Each probability's chance of belonging to the upper group, non-decreasing in
        the probability."""
        # the log-ratio of the two t densities rises between the roots of
        # (x - low)(x - high) = DEGREES * sd**2 and falls back outside: clamp to them
        middle = (self.high + self.low) / 2
        reach = np.sqrt(((self.high - self.low) / 2) ** 2 + DEGREES * self.sd**2)
        x = np.clip(logit(probabilities), middle - reach, middle + reach)
        var = self.sd**2
        ratio = _log_t((x - self.high) ** 2 / var) - _log_t((x - self.low) ** 2 / var)
        prior = np.log(self.share / (1.0 - self.share))
        return 1.0 / (1.0 + np.exp(-(prior + ratio)))


def logit(p: np.ndarray) -> np.ndarray:
    """log(p / (1 - p)) of probabilities clipped to [1e-6, 1 - 1e-6]."""
    p = np.clip(np.asarray(p, dtype=np.float64), _EPS, 1.0 - _EPS)
    return np.log(p / (1.0 - p))


def _log_t(d: np.ndarray) -> np.ndarray:
    """A Student-t log density of points ``d`` squared scales from the centre, up to the
    constant both groups share."""
    return -(DEGREES + 1) / 2 * np.log1p(d / DEGREES)


def two_groups(probabilities: np.ndarray, iterations: int = 500) -> TwoGroups | None:
    """Fit :class:`TwoGroups` to finite probabilities by EM; None for fewer than
    :data:`MIN_MATCHES` of them or when they are all (nearly) equal."""
    p = np.asarray(probabilities, dtype=np.float64)
    x = logit(p[np.isfinite(p)])
    if len(x) < MIN_MATCHES or np.std(x) < 1e-3:
        return None
    low, high = np.quantile(x, [0.25, 0.75])
    var, share = max(np.var(x) / 4, 1e-6), 0.5
    for _ in range(iterations):
        # E step: responsibilities and each point's t weight (far points weigh less)
        d_high, d_low = (x - high) ** 2 / var, (x - low) ** 2 / var
        log_ratio = _log_t(d_high) - _log_t(d_low)
        resp = 1.0 / (1.0 + np.exp(-np.clip(np.log(share / (1 - share)) + log_ratio, -700, 700)))
        w_high = resp * (DEGREES + 1) / (DEGREES + d_high)
        w_low = (1 - resp) * (DEGREES + 1) / (DEGREES + d_low)
        new_share = float(np.clip(resp.mean(), 1e-3, 1.0 - 1e-3))
        new_high = float((w_high * x).sum() / max(w_high.sum(), 1e-12))
        new_low = float((w_low * x).sum() / max(w_low.sum(), 1e-12))
        new_var = float((w_high * (x - new_high) ** 2 + w_low * (x - new_low) ** 2).mean())
        done = abs(new_share - share) < 1e-9 and abs(new_high - high) + abs(new_low - low) < 1e-9
        share, high, low, var = new_share, new_high, new_low, max(new_var, 1e-6)
        if done:
            break
    return TwoGroups(share=share, low=low, high=high, sd=float(np.sqrt(var)))


def chance_correct(probabilities: np.ndarray) -> np.ndarray:
    """Each best match's chance of being right: the upper group's posterior where the
    table shows two trusted groups (:attr:`TwoGroups.trusted`), else the probabilities
    as they are. Non-finite entries (no match) stay as they are."""
    p = np.asarray(probabilities, dtype=np.float64)
    fit = two_groups(p)
    if fit is None or not fit.trusted:
        return p
    finite = np.isfinite(p)
    out = p.copy()
    out[finite] = fit.posterior(p[finite])
    return out


def precision_threshold(best: np.ndarray, precision: float) -> float:
    """The ``precision=`` threshold of a single-key join from its rows' best match
    probabilities: :func:`threshold_for_precision` with each link's
    :func:`chance_correct` (the single-process and the Dask join alike)."""
    return threshold_for_precision(best, precision, chance_correct(best))


def threshold_for_precision(
    probabilities: np.ndarray, precision: float, correct: np.ndarray | None = None
) -> float:
    """The lowest probability threshold whose accepted matches have an expected precision
    (the mean of their calibrated probabilities) of at least ``precision``.

    ``correct``, optional: each match's chance of being right where it is estimated
    otherwise than by its probability (the same order: a table's own calibration,
    :func:`~pearl.tables.calibration.chance_correct`); the expected precision is its mean,
    the threshold still a probability.

    Returns
    -------
    float
        A threshold in [0, 1]; when even the most confident match falls short, one above
        every probability, in float32 as in float64 (scores are float32: the next float64
        above the best rounded back onto it, and every row was linked), with a warning
        that no row is linked.
    """
    precision = check_float(precision, "precision", 0.0, 1.0)
    p = np.asarray(probabilities, dtype=np.float64)
    c = p if correct is None else np.asarray(correct, dtype=np.float64)
    if c.shape != p.shape:
        raise ValueError("correct must have one entry per probability")
    keep = np.isfinite(p)
    p, c = p[keep], c[keep]
    if not len(p):
        return 1.0
    order = np.argsort(-p, kind="stable")
    p, c = p[order], c[order]
    expected = np.cumsum(c) / np.arange(1, len(p) + 1)
    # a threshold accepts every tie of its value: only the last of a run of equal
    # probabilities is a cut point (Fellegi-Sunter gives one probability per comparison
    # pattern, shared by thousands of pairs)
    ends = np.r_[p[1:] != p[:-1], True]
    ok = np.flatnonzero((expected >= precision) & ends)
    if not len(ok):
        from pearl._warnings import warn_user

        warn_user(
            f"precision={precision:g} cannot be reached: the most confident links are "
            f"expected to be right {expected[np.flatnonzero(ends)[0]]:.0%} of the time, so "
            "no row is linked; ask for a lower precision, or give a threshold"
        )
        return float(np.nextafter(np.float32(p[0]), np.float32(np.inf)))
    return float(p[ok[-1]])
