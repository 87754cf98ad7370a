"""Which candidate pairs of a record linkage show the matches without labels: the counts of
comparison vectors set against the pairs that chance alone would give them.

:meth:`~pearl.tables.fellegi_sunter.FellegiSunter.fit_m_from_agreement` counts ``m`` on
pairs too alike to be anything but matches. Two ways of telling them here, both judged
against the whole table's chance pairs (``n_pairs`` times a comparison's chance among
random pairs, ``u``):

- :func:`patterns_above_chance`: a comparison vector whose pairs chance explains less than
  a third of (:data:`SURE_SHARE_BY_CHANCE`);
- :func:`block_match_counts`: a field's levels among the pairs equal on every other field
  (splink trains ``m`` on pairs blocked by other fields the same way), less the pairs of
  each level that chance puts there. Within one table the chance of "equal" counts the
  duplicates themselves, so no block is ever rare enough to be all matches; the
  subtraction still leaves the matches' own levels.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SURE_SHARE_BY_CHANCE", "patterns_above_chance", "block_match_counts", "MIN_PAIRS"]

#: How many strong pairs (strong on every field) there must be for each pair that chance
#: would make strong in the whole table, for them to count as sure matches where the
#: fixed bound (one left row in a hundred) leaves none: 3, at most a third of chance.
SURE_SHARE_BY_CHANCE = 3
#: a field's ``m`` is counted on at least this many pairs (else left to EM)
MIN_PAIRS = 20


def patterns_above_chance(
    patterns: np.ndarray,
    counts: np.ndarray,
    u: list[np.ndarray],
    fields: np.ndarray,
    n_pairs: int,
) -> np.ndarray:
    """For each distinct comparison vector (``patterns``, seen ``counts`` times among the
    candidates): whether chance explains less than a third of its pairs, its count
    against ``n_pairs`` times its own levels' chance (``u``, multiplied over the fields
    with evidence among ``fields``). The strong levels judged together can be too common
    for that (a city of ten values, names one edit apart in a middle initial: every pair
    strong on both looked likely by chance, and EM alone took "a similar name in the same
    city" for a match: none of 2,583 identical pairs linked), while the pairs equal on
    every field are not."""
    log_u = np.zeros(len(patterns))
    for f, uf in enumerate(u):
        g = patterns[:, f]
        log_u += np.where((g >= 0) & fields[f], np.log(uf[np.maximum(g, 0)]), 0.0)
    return np.log(counts / SURE_SHARE_BY_CHANCE) > np.log(max(n_pairs, 1)) + log_u


def block_match_counts(
    gamma: np.ndarray, f: int, u: list[np.ndarray], n_levels: list[int], n_pairs: int
) -> np.ndarray:
    """Field ``f``'s levels among the candidate pairs equal on every other field, less the
    pairs of each level that chance puts there (``n_pairs`` times the others' chance of
    being equal times ``u`` of the level; clipped at 0): the matches' levels of ``f``.
    A one-key column split into its words and its digits (a date of birth, a phone): the
    pairs equal on the digits show how a match's words differ, and EM, which took "a
    similar name" for a match, is not asked."""
    others = [o for o in range(len(n_levels)) if o != f]
    if not others:
        return np.zeros(n_levels[f])
    top = np.array([n_levels[o] - 1 for o in others])
    block = np.all(gamma[:, others] == top, axis=1) & (gamma[:, f] >= 0)
    seen = np.bincount(gamma[block, f], minlength=n_levels[f]).astype(np.float64)
    chance = n_pairs * float(np.prod([u[o][-1] for o in others])) * np.asarray(u[f])
    return np.maximum(seen - chance, 0.0)
