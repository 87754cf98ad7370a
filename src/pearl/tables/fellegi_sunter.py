"""The Fellegi-Sunter model of record linkage: match probabilities of comparison vectors
(one level per compared field, -1 for missing evidence) under conditional independence,
``u`` from random pairs, ``m`` and the prior by EM (or ``m`` from known matches)."""

from __future__ import annotations

import numpy as np

from pearl._warnings import warn_user

__all__ = ["FellegiSunter"]


#: How many strong pairs (strong on every field) there must be for each pair that chance
#: would make strong in the whole table, for them to count as sure matches where the
#: fixed bound (one left row in a hundred) leaves none: 3, at most a third of chance.
SURE_SHARE_BY_CHANCE = 3


class FellegiSunter:
    """Match probabilities of comparison vectors under conditional independence.

    Parameters
    ----------
    n_levels : list of int
        Levels of each field (a comparison ``-1`` is missing evidence).
    max_iter : int, default=50
    tol : float, default=1e-6
    strong : list of int, optional
        Each field's lowest *strong* level, the evidence that counts a pair as a sure
        match in :meth:`fit_m_from_agreement` (a typo is strong: a record seldom has two);
        by default the top two levels of a field of five or more, else the top one.

    Attributes
    ----------
    m_, u_ : list of ndarray
        Probability of each level of each field among matches and among non-matches.
    prior_ : float
        Share of matches among the pairs the model was fitted on.
    random_u_ : list of ndarray
        The levels' shares among the random pairs, matches included (``u`` before
        :meth:`unmix_u`): the term-frequency adjustment compares a value's share of the
        column, matches included, with it.
    random_prior_ : float
        The prior of the posterior: the chance that two random records match (see
        :meth:`fit`'s ``candidate_share``).
    """

    def __init__(
        self,
        n_levels: list[int],
        max_iter: int = 50,
        tol: float = 1e-6,
        strong: list[int] | None = None,
    ):
        self.n_levels = n_levels
        self.max_iter = max_iter
        self.tol = tol
        self.strong = strong

    @staticmethod
    def _counts(gamma: np.ndarray, n: int, weight: np.ndarray | None = None) -> np.ndarray:
        ok = gamma >= 0
        w = np.ones(len(gamma)) if weight is None else weight
        return np.bincount(gamma[ok], weights=w[ok], minlength=n)

    def _set_m(self, f: int, gamma: np.ndarray, weight: np.ndarray | None = None) -> None:
        """Field ``f``'s ``m`` from the levels ``gamma`` of pairs that match (each with a
        ``weight``: EM's expected matches), and which levels they show at least once."""
        self._set_m_counts(f, self._counts(gamma, self.n_levels[f], weight))

    def _set_m_counts(self, f: int, counts: np.ndarray) -> None:
        """:meth:`_set_m` from the matches' counts per level."""
        # smoothed: half a pair on every level, and as much again on agreement (matches
        # mostly agree): a flat half-pair a level alone outweighed a small table's few
        # matches, so that m looked like u
        smoothed = counts + 0.5
        smoothed[-1] += 0.5 * len(counts)
        self.m_[f] = self._monotone(f, smoothed) / smoothed.sum()
        self.m_seen_[f] = counts >= 1

    def _monotone(self, f: int, counts: np.ndarray) -> np.ndarray:
        """Field ``f``'s matches per level (``counts``, as many in all) such that the match
        weight ``m / u`` never falls as the level rises: a closer value is never less
        evidence of a match than a farther one (the levels of every field are ordered).
        The maximum-likelihood ``m`` under that order: the ratio ``counts / u``
        isotonic-regressed with weights ``u`` (adjacent levels that break the order are
        pooled into one ratio). Without it, in a table whose names recur across cities,
        EM took "a similar name" (a level random pairs never showed) for stronger
        evidence than "the same name" (which they did) and linked similar names of
        different cities. Without ``u`` yet (:meth:`fit_u` not called), as they are."""
        u = getattr(self, "u_", None)
        if u is None or len(counts) < 2:
            return counts
        from sklearn.isotonic import isotonic_regression

        ratio = isotonic_regression(counts / u[f], sample_weight=u[f], increasing=True)
        return ratio * u[f]

    def fit_u(self, gamma: np.ndarray) -> FellegiSunter:
        """``u`` from comparisons of random pairs (nearly all non-matches)."""
        counts = [self._counts(gamma[:, f], n) for f, n in enumerate(self.n_levels)]
        self.u_ = [(c + 0.5) / (c + 0.5).sum() for c in counts]  # smoothed
        self.random_u_ = list(self.u_)  # kept when :meth:`unmix_u` takes the matches out
        self.u_seen_ = [c >= 1 for c in counts]
        self.random_counts_ = counts
        self.n_random_ = len(gamma)
        return self

    def set_equal_chance(self, f: int, chance: float) -> FellegiSunter:
        """Field ``f``'s top level (equal values) among random pairs set to ``chance``,
        the share of pairs with both values present that are equal, counted exactly from
        the columns (:meth:`fit_u` first): the other levels keep their shares of the rest.

        Random pairs estimate it poorly for a column of many values: 50,000 of them hold
        a dozen equal names, so that the chance of two records agreeing on a name and a
        city came out twice its value, and pairs equal on both were no longer sure
        matches (:meth:`fit_m_from_agreement`), which left ``m`` to an EM that took
        "similar names" for the matches."""
        counts = np.asarray(self.random_counts_[f], dtype=np.float64)
        total = counts.sum()
        if not total or not 0.0 <= chance <= 1.0:
            return self
        rest = counts[:-1]
        if rest.sum() > 0:
            rest = rest * (total * (1 - chance) / rest.sum())
        counts = np.concatenate([rest, [total * chance]])
        self.random_counts_[f] = counts
        self.u_[f] = self.random_u_[f] = (counts + 0.5) / (counts + 0.5).sum()
        self.u_seen_[f] = np.concatenate([self.u_seen_[f][:-1], [chance > 0]])
        return self

    def unmix_u(self, match_share: float, matches: list[np.ndarray] | None = None) -> FellegiSunter:
        """``u`` with the matches among the random pairs taken out: a level's share among
        random pairs is ``match_share * m + (1 - match_share) * u``, solved for ``u`` with
        the current ``m`` (negative counts clipped to 0, then smoothed as :meth:`fit_u`).
        ``match_share`` is the share of matches among all pairs of the two tables. In
        tables of millions of pairs it is negligible (splink takes random pairs as
        non-matches); in small ones, or for a field of many values (a phone agrees by
        chance in about one pair in a million), the matches are much of the random pairs'
        agreement, which then looked common among non-matches. Where the candidates are
        all the pairs, the EM can no longer prefer "no matches at all" (``u`` had been the
        candidates' own distribution, which fitted them alone). ``matches``: each field's
        expected matches per level as many random pairs would hold (the EM's own counts,
        scaled by the random pairs' share of all pairs), taken out instead of
        ``match_share`` times ``m``: a field is compared only where both rows hold a value,
        and ``m`` is smoothed, so a few matches' agreement was partly left in ``u`` (in a
        4 x 3 table with two matches on a postcode, the EM then settled on no match)."""
        share = float(np.clip(match_share, 0.0, 0.5))
        out = []
        for f, (counts, m) in enumerate(zip(self.random_counts_, self.m_, strict=True)):
            if matches is None:
                clean = np.maximum(counts - share * counts.sum() * m, 0.0) / (1 - share)
            else:
                clean = np.maximum(counts - matches[f], 0.0)
            out.append((clean + 0.5) / (clean + 0.5).sum())
        self.u_ = out
        return self

    def seen_levels(self) -> list[np.ndarray]:
        """Each field's levels that are evidence at all: shown at least once by the random
        pairs (``u``) or by the matches that ``m`` was counted on, in a field that
        :meth:`check_sane` did not switch off."""
        off = getattr(self, "off_", [False] * len(self.n_levels))
        out = []
        for f, n in enumerate(self.n_levels):
            u_seen = getattr(self, "u_seen_", [np.ones(n, bool)] * len(self.n_levels))[f]
            m_seen = getattr(self, "m_seen_", [np.ones(n, bool)] * len(self.n_levels))[f]
            out.append((np.asarray(u_seen) | np.asarray(m_seen)) & (not off[f]))
        return out

    def log_ratios(self) -> list[np.ndarray]:
        """Each field's match weight per level, ``ln(m / u)``, and 0 for a level that is
        no evidence (:meth:`seen_levels`: neither the random pairs nor the matches show it
        even once, or its field is switched off). (Smoothing alone would give an unseen
        level a large weight, its ``m`` estimated from a few hundred pairs and its ``u``
        from tens of thousands.)"""
        return [
            np.where(seen, np.log(m) - np.log(u), 0.0)
            for seen, m, u in zip(self.seen_levels(), self.m_, self.u_, strict=True)
        ]

    def fit_m(self, gamma: np.ndarray) -> FellegiSunter:
        """``m`` from comparisons of pairs known to match (the user's labels); :meth:`fit`
        then keeps it and fits only the prior."""
        gamma = np.asarray(gamma, dtype=np.int64).reshape(-1, len(self.n_levels))
        if not len(gamma):
            raise ValueError("no known matches to learn m from")
        self.m_ = [_agreeing(n) for n in self.n_levels]
        self.m_seen_ = [np.ones(n, dtype=bool) for n in self.n_levels]
        for f in range(len(self.n_levels)):
            self._set_m(f, gamma[:, f])
        self.m_from_labels_ = True
        return self

    def fit_m_from_agreement(
        self,
        gamma: np.ndarray,
        n_right: int,
        n_left: int | None = None,
        n_pairs: int | None = None,
    ) -> list[bool]:
        """``m`` of each field counted on candidate pairs too alike to be anything but a
        match (splink's way of training ``m`` on blocking rules, without labels). Call
        :meth:`fit_u` first. Returns which fields were fitted so; :meth:`fit` keeps their
        ``m`` and fits the others (and the prior) by EM.

        Two kinds of sure pairs:

        - **strong on every field**: each field with evidence at its strong levels
          (``strong``: the top two of a text field, equal or one typo apart, and of a
          date, the same day or one digit apart; the top one of a code or number),
          where the fields' chance of that together (``u`` of those levels, multiplied)
          is below ``0.01 / n_right``: fewer than one left row in a hundred
          finds such a pair by chance; or, where strong pairs are common, below the
          chance at which the whole table would hold a third as many chance pairs as
          there are strong pairs among the candidates (:data:`SURE_SHARE_BY_CHANCE`; a
          table of a surname and a date of birth, 2,000 rows: the fixed bound left none,
          and EM alone took "same surname" for a match, m(same birthday) 0.06);
        - for one field, **equal on every other field**, the others' chance below
          ``0.01 / (n_left * n_right)``: fewer than 0.01 such pairs in the whole table by
          chance. These show the field's weak levels among matches (a surname changed at
          marriage); the bound is table-wide because such a level holds few sure pairs,
          which chance pairs would swamp.

        A field's ``m`` is counted on the union of the two when it holds at least 20 pairs.
        Without 20 strong pairs, a field's ``m`` is counted on the pairs equal on every
        other field at the per-row bound ``0.01 / n_right``, as long as 20 qualify, and
        is otherwise left to EM.

        Counted on the second kind alone, a field's ``m`` is biased where errors are not
        independent (a record with a typo in one field seldom has one in another): the
        field then looks mistyped in every sure pair. EM alone on candidate pairs finds a
        looser class of "match" (pairs that share a surname and a city, say): candidates
        are chosen for agreeing, so the fields are not independent among them."""
        gamma = np.asarray(gamma, dtype=np.int64).reshape(-1, len(self.n_levels))
        n_left = n_right if n_left is None else n_left
        present = gamma >= 0
        strong_level = np.array(
            self.strong
            if self.strong is not None
            else [n - 2 if n >= 5 else n - 1 for n in self.n_levels]
        )
        strong_chance = np.log([u[lv:].sum() for u, lv in zip(self.u_, strong_level, strict=True)])
        per_row = np.log(0.01 / max(n_right, 1))
        # all pairs of the tables: n_left * n_right, or n (n - 1) / 2 within one table
        n_pairs = max(n_left * n_right if n_pairs is None else n_pairs, 1)
        # a field that no candidate pair agrees on (a placeholder in every row of one
        # table) cannot be asked to agree: it would leave no sure pair, and EM alone
        # then takes "same name" for a match (every row linked)
        asked = present & (gamma >= strong_level).any(axis=0)
        chance = np.where(asked, strong_chance, 0.0).sum(axis=1)
        all_strong = np.all((gamma >= strong_level) | ~asked, axis=1)
        # or, where strong pairs are common (a table of few fields whose partners are
        # most rows): a chance at which the whole table would hold fewer chance pairs
        # than a third of the strong ones (they agree strongly too, so they hardly move
        # m; EM alone found a looser class of "match" there)
        common = np.log(max(int(all_strong.sum()), 1) / (SURE_SHARE_BY_CHANCE * n_pairs))
        strong = all_strong & (chance < max(per_row, common))
        if int(strong.sum()) < 20:
            fields = np.asarray((gamma >= strong_level).any(axis=0))
            strong = all_strong & self._patterns_above_chance(gamma, fields, n_pairs)
        enough_strong = int(strong.sum()) >= 20
        bound = np.log(0.01 / n_pairs) if enough_strong else per_row
        agree = gamma == np.array([n - 1 for n in self.n_levels])
        counted = present & agree.any(axis=0)  # likewise for "equal on every other field"
        top_chance = np.log([u[-1] for u in self.u_])
        self.m_ = getattr(self, "m_", None) or [_agreeing(n) for n in self.n_levels]
        self.m_seen_ = [np.ones(n, dtype=bool) for n in self.n_levels]
        fitted = []
        for f in range(len(self.n_levels)):
            others = [o for o in range(len(self.n_levels)) if o != f]
            sure = np.zeros(len(gamma), dtype=bool)
            if others:
                full = np.all(agree[:, others] | ~counted[:, others], axis=1) & present[:, f]
                log_chance = np.where(counted[:, others], top_chance[others], 0.0).sum(axis=1)
                sure = full & (log_chance < bound)
            if enough_strong:
                sure |= strong & present[:, f]
            fitted.append(int(sure.sum()) >= 20)
            if fitted[-1]:
                self._set_m(f, gamma[sure, f])
        self.m_fixed_ = fitted
        return fitted

    def _patterns_above_chance(
        self, gamma: np.ndarray, fields: np.ndarray, n_pairs: int
    ) -> np.ndarray:
        """Which candidate pairs show a comparison vector that the tables' chance pairs
        explain less than a third of (:data:`SURE_SHARE_BY_CHANCE`): its count against
        ``n_pairs`` times its own levels' chance (``u``, multiplied over the fields with
        evidence among ``fields``, those some candidate agrees on strongly). The strong
        levels judged together can be too common for that (a city of ten values, names
        one edit apart in a middle initial: every pair strong on both looked likely by
        chance, and EM alone took "a similar name in the same city" for a match: none of
        2,583 identical pairs linked), while the pairs equal on every field are not."""
        patterns, inverse, counts = _patterns(gamma, self.n_levels)
        log_u = np.zeros(len(patterns))
        for f, u in enumerate(self.u_):
            g = patterns[:, f]
            log_u += np.where((g >= 0) & fields[f], np.log(u[np.maximum(g, 0)]), 0.0)
        above = np.log(counts / SURE_SHARE_BY_CHANCE) > np.log(n_pairs) + log_u
        return above[inverse]

    def _log_ratio(self, gamma: np.ndarray) -> np.ndarray:
        total = np.zeros(len(gamma))
        for f, ratio in enumerate(self.log_ratios()):
            g = gamma[:, f]
            total += np.where(g >= 0, ratio[np.maximum(g, 0)], 0.0)
        return total

    def fit(
        self,
        gamma: np.ndarray,
        prior: float = 0.1,
        max_prior: float = 1.0,
        candidate_share: float = 0.0,
    ) -> FellegiSunter:
        """EM for ``m`` and the prior on candidate comparisons (call :meth:`fit_u` first).
        ``m`` starts at levels weighted towards agreement; after :meth:`fit_m` (known
        matches) it is kept and only the prior is fitted. The EM runs on the distinct
        comparison vectors, each weighted by how often it occurs.

        ``max_prior`` bounds the share of matches among the candidates by what the tables
        allow (at most ``min(n_left, n_right)`` true pairs among them): without it the EM
        can settle on a looser notion of a match ("the same city") that takes most
        candidates, so that every row is linked.

        ``candidate_share``, the candidates' share of all pairs of the two tables: each
        round then takes the matches (all among the candidates) out of the random pairs'
        ``u`` (:meth:`unmix_u`), and the probability :meth:`predict_proba` gives a pair is
        that of a random pair with its comparison vector: the prior is the chance that two
        random records match (:attr:`random_prior_`, as splink predicts), since ``u``
        describes random pairs. The candidates' own share as that prior counted the
        blocking's evidence twice: pairs found because they share a date of birth, then
        credited for that rare agreement as if drawn at random (strangers of the same
        birthday, city and surname at 0.8). The EM itself still weighs the candidates by
        their own share (with the random pair's prior there, it settled on no match at
        all in a table of 28 rows with two identical ones). With 0, ``u`` is kept as
        :meth:`fit_u` gave it and the prior is ``prior_`` throughout."""
        max_prior = float(np.clip(max_prior, 1e-6, 1 - 1e-6))
        patterns, _, counts = _patterns(np.asarray(gamma, dtype=np.int64), self.n_levels)
        if getattr(self, "m_from_labels_", False):
            keep = [True] * len(self.n_levels)
        else:
            keep = list(getattr(self, "m_fixed_", [False] * len(self.n_levels)))
            start = getattr(self, "m_", None) or [_agreeing(n) for n in self.n_levels]
            # matches mostly agree: 0.9 on the top level, halving below it
            self.m_ = [
                m if k else _agreeing(n) for m, k, n in zip(start, keep, self.n_levels, strict=True)
            ]
        self.prior_ = float(min(prior, max_prior))
        # the candidates are judged as random pairs of their comparison vectors (u is
        # random pairs'): the prior is then the chance that two random records match
        self.pair_share_ = float(candidate_share) if candidate_share > 0 else 1.0
        self.n_iter_ = 0
        seen = getattr(self, "m_seen_", None) or [np.ones(n, dtype=bool) for n in self.n_levels]
        self.m_seen_ = [s if k else np.ones(len(s), bool) for s, k in zip(seen, keep, strict=True)]
        total = max(float(counts.sum()), 1.0)
        unmix = candidate_share > 0 and hasattr(self, "random_counts_")
        # the random pairs' share of all pairs (the candidates are candidate_share of them)
        scale = getattr(self, "n_random_", 0) * candidate_share / total
        matches: list[np.ndarray] | None = None  # the last round's matches per level
        for it in range(self.max_iter):
            if unmix:
                self.unmix_u(self.prior_ * candidate_share, matches)
            w = self._posterior(patterns, self.prior_) * counts  # expected matches per pattern
            # each field's expected matches per level, counted once: for m and for u
            per_level = [self._counts(patterns[:, f], n, w) for f, n in enumerate(self.n_levels)]
            if scale > 0:
                matches = [c * scale for c in per_level]
            old = list(self.m_)
            for f in range(len(self.n_levels)):
                if not keep[f]:
                    self._set_m_counts(f, per_level[f])  # and which levels the matches show
            prior = float(np.clip(w.sum() / total, 1e-6, max_prior))
            change = max(float(np.abs(a - b).max()) for a, b in zip(old, self.m_, strict=True))
            change = max(change, abs(prior - self.prior_))
            self.prior_, self.n_iter_ = prior, it + 1
            if change < self.tol:
                break
        return self

    def check_sane(self, names: list[str] | None = None, warn: bool = True) -> list[int]:
        """Fields whose fitted model contradicts itself: agreement (the top level) no more
        likely among matches than among non-matches (``m <= u``), so that agreeing would
        count *against* a match. Their evidence is switched off (a log ratio of 0 at every
        level, ``m`` set to ``u``) with a warning naming them; returns their indices.
        (Agreement of any degree was compared before: a column of few close values,
        years 1 and 2, had every pair "close" by chance, and an exact agreement that
        only matches showed was switched off with it.) ``warn=False``: no warning (a
        model fitted on a sample, to decide how to search)."""
        bad = [
            f
            for f in range(len(self.n_levels))
            if self.n_levels[f] > 1 and self.m_[f][-1] <= self.u_[f][-1]
        ]
        if bad and warn:
            self._warn_insane(bad, names)
        if bad:
            fixed = list(getattr(self, "m_fixed_", [False] * len(self.n_levels)))
            off = list(getattr(self, "off_", [False] * len(self.n_levels)))
            for f in bad:
                self.m_[f] = self.u_[f].copy()
                fixed[f] = off[f] = True  # a refit keeps them switched off
            self.m_fixed_, self.off_ = fixed, off
        return bad

    def _warn_insane(self, bad: list[int], names: list[str] | None) -> None:
        """The warning of :meth:`check_sane`: a field that agrees in nearly every random
        pair (one value in every row) is said to tell no record from another; the others
        contradicted the model."""
        shown = {f: repr(names[f] if names else str(f)) for f in bad}
        constant = [f for f in bad if self.u_[f][-1] >= 0.99]
        if constant:
            warn_user(
                "record linkage: " + ", ".join(shown[f] for f in constant) + " holds the "
                "same value in (nearly) every row, which tells no record from another; "
                "ignored.",
            )
        others = [shown[f] for f in bad if f not in constant]
        if others:
            warn_user(
                "record linkage: agreement on "
                + ", ".join(others)
                + " came out no more likely among matches than among non-matches; these "
                "fields are ignored (the fitted model is not sane for them). Give "
                "known_matches=, or check that the columns hold the same kind of values.",
            )

    @property
    def random_prior_(self) -> float:
        """The prior the posterior uses: the chance that two random records match
        (``prior_`` times the candidates' share of all pairs; splink's
        ``probability_two_random_records_match``), or ``prior_`` when fitted without
        that share."""
        return self.prior_ * getattr(self, "pair_share_", 1.0)

    def _prior_logit(self, prior: float | None = None) -> float:
        q = self.random_prior_ if prior is None else prior
        return float(np.log(q) - np.log1p(-q))

    def _posterior(self, gamma: np.ndarray, prior: float | None = None) -> np.ndarray:
        return _sigmoid(self._prior_logit(prior) + self._log_ratio(gamma))

    def predict_proba(self, gamma: np.ndarray, offset: np.ndarray | None = None) -> np.ndarray:
        """Match probability of each comparison vector (rows of ``gamma``); ``offset``, one
        log Bayes factor per row added to its pattern's (the term-frequency adjustment of
        :func:`~pearl.tables.record_linkage.link_tables`)."""
        patterns, inverse, _ = _patterns(np.asarray(gamma, dtype=np.int64), self.n_levels)
        if offset is None:
            return self._posterior(patterns)[inverse]
        logit = self._prior_logit() + self._log_ratio(patterns)
        return _sigmoid(logit[inverse] + np.asarray(offset, dtype=np.float64))


def _sigmoid(logit: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(logit, -50, 50)))


def _agreeing(n: int) -> np.ndarray:
    """EM's starting ``m`` of a field of ``n`` levels: 0.9 on the highest (agreement), the
    rest halving level by level below it."""
    rest = 0.5 ** np.arange(n - 1, 0, -1)
    return np.concatenate([0.1 * rest / rest.sum(), [0.9]]) if n > 1 else np.ones(1)


def _patterns(gamma: np.ndarray, n_levels: list[int]):
    """The distinct rows of ``gamma`` (comparison vectors), each row's pattern and each
    pattern's count. Candidate pairs share few patterns (levels of a few fields), so the
    EM's work no longer grows with the number of pairs."""
    gamma = gamma.reshape(-1, len(n_levels))
    sizes = np.asarray(n_levels, dtype=np.float64) + 1  # levels -1 .. n-1
    if not len(gamma) or np.prod(sizes) >= 2.0**62:
        patterns, inverse, counts = np.unique(
            gamma, axis=0, return_inverse=True, return_counts=True
        )
        return patterns, inverse.ravel(), counts
    radix = np.cumprod(np.concatenate([[1], sizes[:-1]])).astype(np.int64)
    _, first, inverse, counts = np.unique(
        (gamma + 1) @ radix, return_index=True, return_inverse=True, return_counts=True
    )
    return gamma[first], inverse.ravel(), counts
