"""A table's own estimate of how often its best matches are right (``precision=``).

The combined matcher's probability is calibrated on training pairs of many kinds, not on the
table at hand: on long keys of several fields (a name, a city and a date in one string) it
ranks the right partner first but says 0.7-0.9 where nearly all such links are right
(experiments/results/calibration_single_key.md). ``precision=`` would then keep only the
few links above 0.9. The best candidates of a table where some rows have no partner form
two groups, the rows with their partner and the rows without; where the table shows these
groups well apart, each link's chance of being right is read from them.

The two groups are fitted by EM as a mixture of two normal distributions of equal
variance on the probabilities' logits (so the chance of being right is a logistic function
of the logit: ranks never change, Platt scaling fitted without labels). The fit
is used only where it is trustworthy: the groups separated by Ashman's D > 2 (their means
more than two standard deviations apart) and lying on both sides of the matcher's own 0.5.
A table whose rows all have partners shows one group, is not split, and keeps the
matcher's probabilities.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["TwoGroups", "two_groups", "chance_correct", "precision_threshold"]

#: Ashman's D above which two groups count as apart (the usual bound for a clean split).
MIN_SEPARATION = 2.0
#: Fewer best matches than this are taken as they are (no fit).
MIN_MATCHES = 20
_EPS = 1e-6


@dataclass(frozen=True)
class TwoGroups:
    """Two normal groups of equal variance on the logits of a table's best probabilities.

    Attributes
    ----------
    share : float
        The upper group's share (the links estimated right).
    low, high : float
        The groups' mean logits.
    sd : float
        Their common standard deviation.
    """

    share: float
    low: float
    high: float
    sd: float

    @property
    def separation(self) -> float:
        """Ashman's D: the distance of the means in standard deviations."""
        return (self.high - self.low) / self.sd

    @property
    def trusted(self) -> bool:
        """Whether the groups are apart (D > :data:`MIN_SEPARATION`) and on both sides
        of 0.5 (the matcher's own decision point)."""
        return self.separation > MIN_SEPARATION and self.low < 0.0 < self.high

    def posterior(self, probabilities: np.ndarray) -> np.ndarray:
        """Each probability's chance of belonging to the upper group."""
        x = _logit(probabilities)
        slope = (self.high - self.low) / self.sd**2
        prior = np.log(self.share / (1.0 - self.share))
        return 1.0 / (1.0 + np.exp(-(prior + slope * (x - (self.high + self.low) / 2))))


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, dtype=np.float64), _EPS, 1.0 - _EPS)
    return np.log(p / (1.0 - p))


def two_groups(probabilities: np.ndarray, iterations: int = 500) -> TwoGroups | None:
    """Fit :class:`TwoGroups` to finite probabilities by EM; None for fewer than
    :data:`MIN_MATCHES` of them or when they are all (nearly) equal."""
    p = np.asarray(probabilities, dtype=np.float64)
    x = _logit(p[np.isfinite(p)])
    if len(x) < MIN_MATCHES or np.std(x) < 1e-3:
        return None
    low, high = np.quantile(x, [0.25, 0.75])
    var, share = max(np.var(x) / 4, 1e-6), 0.5
    for _ in range(iterations):
        upper = share * np.exp(-0.5 * (x - high) ** 2 / var)
        resp = upper / np.maximum(upper + (1 - share) * np.exp(-0.5 * (x - low) ** 2 / var), 1e-300)
        new_share = float(np.clip(resp.mean(), 1e-3, 1.0 - 1e-3))
        w1, w0 = resp.sum(), (1 - resp).sum()
        new_high = float((resp * x).sum() / max(w1, 1e-12))
        new_low = float(((1 - resp) * x).sum() / max(w0, 1e-12))
        new_var = float((resp * (x - new_high) ** 2 + (1 - resp) * (x - new_low) ** 2).mean())
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
    probabilities: :func:`~pearl.tables.matcher.threshold_for_precision` with each link's
    :func:`chance_correct` (the single-process and the Dask join alike)."""
    from pearl.tables.matcher import threshold_for_precision

    return threshold_for_precision(best, precision, chance_correct(best))
