"""The options every fuzzy join shares, checked once, before any work, into one frozen
value (:class:`JoinOptions`): the key columns (:func:`join_keys`), the shared options
(:func:`check_join_options`), the matcher with ``precision=``
(:func:`check_matcher_and_precision`) and the threshold with its default
(:func:`check_threshold`). The single-key join, record linkage and the Dask join take a
:class:`JoinOptions`."""

from __future__ import annotations

import dataclasses
from typing import Any

from pearl._validation import (
    InputError,
    InputTypeError,
    check_bool,
    check_choice,
    check_float,
    check_int,
)
from pearl.encoders import TABLE_BATCH_SIZE
from pearl.tables.matcher import check_matcher

__all__ = [
    "JoinKeyError",
    "JoinOptions",
    "check_join_options",
    "check_matcher_and_precision",
    "check_threshold",
    "join_keys",
    "JOIN_THRESHOLD",
]


def check_join_options(
    *, left_on, right_on, suffix, how, top_k, threshold, return_score, batch_size
) -> tuple[str, int, float | None, bool, int]:
    """Check the options every fuzzy join shares (by type and range, naming the option);
    returns ``how, top_k, threshold, return_score, batch_size`` (a None threshold is
    resolved by :func:`check_threshold` once the matcher is known)."""
    for name, value in (("left_on", left_on), ("right_on", right_on), ("suffix", suffix)):
        if not isinstance(value, str) or not value:
            raise InputTypeError(f"{name} must be a non-empty string, got {value!r:.40}")
    return (
        check_choice(how, "how", ("left", "inner")),
        check_int(top_k, "top_k", 1),
        None if threshold is None else check_float(threshold, "threshold", -1.0, 1.0),
        check_bool(return_score, "return_score"),
        check_int(batch_size, "batch_size", 1),
    )


def check_matcher_and_precision(matcher: Any, precision: float | None):
    """The matcher, checked; ``precision=`` needs one whose scores are probabilities."""
    matcher = check_matcher(matcher)
    if precision is not None:
        check_float(precision, "precision", 0.0, 1.0)
        if matcher == "cosine":
            raise ValueError(
                "precision= needs a combined matcher (matcher='combined'): a "
                "cosine is not a probability"
            )
    return matcher


class JoinKeyError(InputError, ValueError, TypeError):
    """The join's key columns are missing or given twice: a ``ValueError``, as pandas'
    ``merge`` and skrub's ``fuzzy_join`` raise, and a ``TypeError``, as pearl raised
    before."""


def join_keys(on, left_on, right_on) -> tuple[Any, Any]:
    """``left_on, right_on`` from ``on`` or from both given (:class:`JoinKeyError`
    otherwise).

    A list or tuple (or NumPy array, pandas Index) of several columns stays a list (a
    multi-column join); a list of one column is that column's name."""
    if on is not None:
        if left_on is not None or right_on is not None:
            raise JoinKeyError("give on= or left_on= and right_on=, not both")
        left_on = right_on = on
    if left_on is None or right_on is None:
        raise JoinKeyError("give on= (a column of both tables) or left_on= and right_on=")
    keys = []
    for name, value in (("left_on", left_on), ("right_on", right_on)):
        if not isinstance(value, str) and callable(getattr(value, "tolist", None)):
            value = value.tolist()  # a NumPy array, a pandas Index or Series of names
        if isinstance(value, list | tuple):
            if not value or not all(isinstance(v, str) and v for v in value):
                raise InputTypeError(
                    f"{name} must be a column name or a non-empty list of them, got {value!r:.60}"
                )
            value = value[0] if len(value) == 1 else list(value)
        keys.append(value)
    if isinstance(keys[0], list) != isinstance(keys[1], list):
        raise ValueError(
            f"left_on and right_on must name as many columns, got {left_on!r:.60} and "
            f"{right_on!r:.60}"
        )
    return keys[0], keys[1]


#: the default threshold on a match probability: a row whose best candidate is less likely
#: to be its match than not stays unmatched
JOIN_THRESHOLD = 0.5


def check_threshold(threshold: float | None, matcher: Any, records: bool = False) -> float:
    """A threshold in the range of the matcher's scores: a probability in [0, 1] for a
    combined matcher, a cosine in [-1, 1] for ``"cosine"``. None is the default: with a
    match probability (a combined matcher on one key column, or several key columns,
    ``records``), :data:`JOIN_THRESHOLD`, so a row whose best candidate is more likely not
    its match stays unmatched; with ``"cosine"`` on one column, no threshold (every row's
    best candidate, as skrub's ``fuzzy_join``: a cosine is not a probability)."""
    if threshold is None:
        return -1.0 if matcher == "cosine" and not records else JOIN_THRESHOLD
    if matcher != "cosine" and not 0.0 <= threshold <= 1.0:
        raise ValueError(
            f"threshold must be a match probability in [0, 1] with the combined "
            f"matcher, got {threshold}; with matcher='cosine' it is a cosine "
            "in [-1, 1]"
        )
    return threshold


@dataclasses.dataclass(frozen=True)
class JoinOptions:
    """The checked options of one fuzzy join: made by :meth:`check`, read by every join.

    Attributes
    ----------
    left_on, right_on : str or tuple of str
        One key column each, or as many columns each (record linkage).
    how : {"left", "inner"}
    top_k : int
    threshold : float
        Resolved with the matcher known: a match probability (:data:`JOIN_THRESHOLD` by
        default; on several key columns the Fellegi-Sunter probability), or with
        ``matcher="cosine"`` on one key column a cosine (no threshold by default).
    return_score : bool
    suffix : str
    batch_size : int
    matcher : {"combined", "cosine"} or MatchScorer
    precision : float or None
    one_to_one : bool
    """

    left_on: str | tuple[str, ...]
    right_on: str | tuple[str, ...]
    how: str = "left"
    top_k: int = 1
    threshold: float = 0.0
    return_score: bool = True
    suffix: str = "_right"
    batch_size: int = TABLE_BATCH_SIZE
    matcher: Any = "combined"
    precision: float | None = None
    one_to_one: bool = False

    @property
    def multi(self) -> bool:
        """A join on several key columns (record linkage)."""
        return isinstance(self.left_on, tuple)

    @classmethod
    def check(
        cls,
        *,
        on=None,
        left_on=None,
        right_on=None,
        how: str = "left",
        top_k: int = 1,
        threshold: float | None = None,
        return_score: bool = True,
        suffix: str = "_right",
        batch_size: int = TABLE_BATCH_SIZE,
        matcher: Any = "combined",
        precision: float | None = None,
        one_to_one: bool = False,
    ) -> JoinOptions:
        """Every option checked by type and range (naming it), the matcher with
        ``precision=``, the threshold's default resolved; raises before any work."""
        left_on, right_on = join_keys(on, left_on, right_on)
        multi = isinstance(left_on, list)
        how, top_k, given, return_score, batch_size = check_join_options(
            left_on=left_on[0] if multi else left_on,
            right_on=right_on[0] if multi else right_on,
            suffix=suffix,
            how=how,
            top_k=top_k,
            threshold=threshold,
            return_score=return_score,
            batch_size=batch_size,
        )
        one_to_one = check_bool(one_to_one, "one_to_one")
        if one_to_one and not multi:
            raise ValueError(
                "one_to_one links records of two tables on several key columns; with one "
                "key column, each left row gets its own best candidates"
            )
        matcher = check_matcher_and_precision(matcher, precision)
        if precision is not None and given is not None:
            raise ValueError(
                "give threshold= or precision=, not both: precision= chooses the threshold"
            )
        # on several columns the score is a Fellegi-Sunter probability, whatever the matcher
        resolved = check_threshold(given, "combined" if multi else matcher, records=multi)
        return cls(
            left_on=tuple(left_on) if multi else left_on,
            right_on=tuple(right_on) if multi else right_on,
            how=how,
            top_k=top_k,
            threshold=resolved,
            return_score=return_score,
            suffix=suffix,
            batch_size=batch_size,
            matcher=matcher,
            precision=None if precision is None else float(precision),
            one_to_one=one_to_one,
        )

    def replace(self, **changes) -> JoinOptions:
        """A copy with some fields changed (the value itself never changes)."""
        return dataclasses.replace(self, **changes)
