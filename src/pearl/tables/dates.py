"""Dates in record linkage: a column's values read as dates (month or day first, as the
column writes them) and the comparison levels of pairs of dates, typos included
(:mod:`pearl.tables.comparisons` gives each field its kind)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

__all__: list[str] = []

_DAY_MONTH = re.compile(r"^(\d{1,2})[-/.](\d{1,2})[-/.]\d{2,4}$")


def _dates(column: pd.Series) -> np.ndarray:
    """A date column's values as datetimes (NaT where missing or not a date); numeric
    dates month first (12/31/1999) unless the column writes them day first
    (:func:`_day_first`)."""
    from pandas.api.types import is_datetime64_any_dtype

    if is_datetime64_any_dtype(column):
        return pd.to_datetime(column).to_numpy()
    text = column.astype("string").str.strip()
    day_first = _day_first(text)
    return pd.to_datetime(text, errors="coerce", format="mixed", dayfirst=day_first).to_numpy()


def _day_first(text: pd.Series) -> bool:
    """Whether a column writes its numeric dates day first (31/12/1999, 31.12.1999): some
    value's first number is over 12 and no value's second one is. (Read month first,
    such a column had every date of a day up to 12 turned into another date: 2 July
    became 7 February, and four partners in ten lost their date of birth.)"""
    parts = text.str.extract(_DAY_MONTH).dropna()
    if parts.empty:
        return False
    day, month = parts[0].astype(int), parts[1].astype(int)
    return bool((day > 12).any() and not (month > 12).any())


def _date_levels(a: pd.Series, b: pd.Series, li, ri) -> np.ndarray:
    """3 the same day, 2 one digit apart or two adjacent digits swapped as written
    ``YYYY-MM-DD`` (a typo: 1962-12-12 and 1962-12-21, 1926-12-12), 1 within 31 days, 0
    otherwise, -1 missing. A value that is not a date ("1977-15-04", "1549-12-03", beyond
    what a datetime holds) one character from the other side's text, as written, is a
    typo too (2); else it is missing evidence. (Read as more than 31 days apart, a
    partner whose birth date had one digit mistyped weighed as a stranger: a fifth of such
    partners unlinked; as missing, a tenth of duplicates with such a date.)"""
    x, y = _dates(a), _dates(b)
    return _date_level_values(
        x[li], y[ri], _texts(a)[li], _texts(b)[ri], _digits(x)[li], _digits(y)[ri]
    )


def _texts(column: pd.Series) -> np.ndarray:
    """A column's values as stripped text ("" where missing)."""
    return column.astype("string").str.strip().fillna("").to_numpy(dtype=object)


def _digits(dates: np.ndarray) -> np.ndarray:
    """Each date's eight digits ``YYYYMMDD`` (int8, shape (n, 8); zeros where missing),
    made once per row: per pair, a string conversion took 70 ms a 50,000 pairs."""
    missing = pd.isna(dates)
    day = np.where(missing, np.datetime64("1970-01-01"), np.asarray(dates, dtype="datetime64[D]"))
    month_start = day.astype("datetime64[M]")
    year = day.astype("datetime64[Y]").astype(np.int64) + 1970
    month = month_start.astype(np.int64) % 12 + 1
    mday = (day - month_start).astype(np.int64) + 1
    number = (year % 10_000) * 10_000 + month * 100 + mday
    out = ((number[:, None] // 10 ** np.arange(7, -1, -1)) % 10).astype(np.int8)
    out[missing] = 0
    return out


def _date_level_values(
    x: np.ndarray, y: np.ndarray, tx: np.ndarray, ty: np.ndarray, dx: np.ndarray, dy: np.ndarray
) -> np.ndarray:
    """:func:`_date_levels` of the pairs' parsed dates, their texts and their
    :func:`_digits`."""
    missing = pd.isna(x) | pd.isna(y)
    days = np.abs((x - y).astype("timedelta64[s]").astype(np.float64)) / 86400.0
    typo = _one_digit_apart(dx, dy) & ~missing
    levels = np.where(days == 0, 3, np.where(typo, 2, np.where(days <= 31, 1, 0)))
    levels = np.where(missing, -1, levels)
    if missing.any():
        at = np.flatnonzero(missing)
        at = at[(tx[at] != "") & (ty[at] != "")]  # a value missing on a side: no typo
        typed = [_one_character_apart(tx[e], ty[e]) for e in at]
        levels[at[np.asarray(typed, dtype=bool)]] = 2
    return levels


def _one_character_apart(a: str, b: str) -> bool:
    """Whether two texts of one length differ in one character or two adjacent ones
    swapped."""
    if not a or not b or len(a) != len(b):
        return False
    at = [k for k, (c, d) in enumerate(zip(a, b, strict=True)) if c != d]
    if len(at) == 1:
        return True
    return len(at) == 2 and at[1] == at[0] + 1 and a[at[0]] == b[at[1]] and a[at[1]] == b[at[0]]


def _one_digit_apart(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether two dates' digits (:func:`_digits`, row by row) differ in one digit, or in
    two adjacent digits swapped."""
    if not len(a):
        return np.zeros(0, dtype=bool)
    differ = a != b
    n = differ.sum(axis=1)
    swapped = (
        differ[:, :-1] & differ[:, 1:] & (a[:, :-1] == b[:, 1:]) & (a[:, 1:] == b[:, :-1])
    ).any(axis=1)
    return (n == 1) | ((n == 2) & swapped)
