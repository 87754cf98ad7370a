"""Numbers in names: two strings whose numbers differ name different things.

"Apollo 11" and "Apollo 13", "Windows 7" and "Windows 8", "iPhone 12" and "iPhone 13",
"1996 presidential election in Texas" and "2000 presidential election in Texas" share
nearly all their characters and words, so the string matcher takes them for one name
written twice (0.98 in a join, and linked as one typo apart in ``deduplicate``). A number
that differs is a sequel, a version, a year, a street number: another thing. Two values
are **numbered apart** when both hold at least one number and their numbers differ, as
multisets of integers: each run of digits, thousands separators inside it removed
("1,000" is 1000) and leading zeros aside ("007" is 7), and each Roman numeral of I, V
and X up to 39 written in capitals as a word of its own but the first ("World War II",
"Henry VIII", "Louis XIV"; not the pronoun of "I Am Legend"; "DC", "CD", "MIX" are words).

With the combined matcher, a pair numbered apart has at most the probability
:data:`NUMBERED_APART` (``deduplicate``/``cluster``: its link; ``fuzzy_join``,
``EntityIndex.search`` and the Dask join: the candidate, ranked after every candidate
whose numbers agree with the query's or that has none; it still weighs as their rival).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

__all__ = [
    "NUMBERED_APART",
    "capped",
    "number_ids",
    "numbered_apart",
    "candidates_apart",
    "candidates_unequal",
    "numbered_last",
]

#: The most probability a pair numbered apart keeps (below every default cut).
NUMBERED_APART = 0.05


def capped(probabilities: np.ndarray, apart: np.ndarray) -> np.ndarray:
    """Probabilities (float32) with those numbered ``apart`` capped at
    :data:`NUMBERED_APART`: the rule where no decision is estimated on the tables."""
    out = np.where(apart, np.minimum(probabilities, NUMBERED_APART), probabilities)
    return out.astype(np.float32, copy=False)


_SEPARATOR = re.compile(r"(?<=\d)[,.](?=\d{3}(?!\d))")
_DIGITS = re.compile(r"\d+")
_ROMAN_WORD = re.compile(r"\b[IVX]+\b")
_ROMAN = re.compile(r"X{0,3}(?:IX|IV|V?I{0,3})")
_ANY = re.compile(r"\d|[IVX]\b")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10}


def _roman(word: str) -> int:
    """The value of a valid Roman numeral of I, V and X."""
    values = [_ROMAN_VALUES[c] for c in word]
    return sum(-v if v < w else v for v, w in zip(values, [*values[1:], 0], strict=True))


def _numbers(text: str) -> tuple[int, ...]:
    """The sorted integers of a text's digit runs (thousands separators removed) and of
    its Roman numerals (capitals, not the first word)."""
    found = [int(d) for d in _DIGITS.findall(_SEPARATOR.sub("", text))]
    start = len(text) - len(text.lstrip())
    for m in _ROMAN_WORD.finditer(text):
        if m.start() > start and _ROMAN.fullmatch(m.group()):
            found.append(_roman(m.group()))
    return tuple(sorted(found))


def number_ids(texts: Sequence[str], table: dict | None = None) -> np.ndarray:
    """An integer per text, equal for texts of the same numbers and 0 for a text without
    any; ``table`` (a dict, filled in place) shares the integers between calls, so that
    the ids of two lists compare."""
    table = {(): 0} if table is None else table
    table.setdefault((), 0)
    texts = texts if isinstance(texts, list) else list(texts)
    out = np.zeros(len(texts), dtype=np.int64)
    # most names hold no number: one search through them all, joined, finds those that may
    # (a digit, or I, V or X before a word's end: the text's end, or the joining newline)
    ends = np.cumsum(np.fromiter((len(t) + 1 for t in texts), np.int64, count=len(texts)))
    found = np.array([m.start() for m in _ANY.finditer("\n".join(texts))], dtype=np.int64)
    for i in np.unique(np.searchsorted(ends, found, side="right")).tolist():
        out[i] = table.setdefault(_numbers(texts[i]), len(table))
    return out


def numbered_apart(ids: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """For each pair ``(rows[e], cols[e])`` of texts with :func:`number_ids` ``ids``:
    whether both hold numbers and they differ."""
    return _apart(ids[rows], ids[cols])


def _apart(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether number ids ``a`` and ``b`` both name numbers, and other ones."""
    return (a != b) & (a > 0) & (b > 0)


def candidates_apart(
    queries: Sequence[str],
    ids: np.ndarray,
    references: Sequence[str],
    numbered: tuple[np.ndarray, dict] | None = None,
) -> np.ndarray:
    """For ranked candidate ``ids`` (one row per query, -1 padding) of ``references``:
    whether each candidate is numbered apart from its query (False at padding).
    ``numbered``: the references' :func:`number_ids` and the table that made them, made
    once for a reference searched many times (an index); else the candidates' are made."""
    live = ids >= 0
    if numbered is not None:
        ref_ids, ref_table = numbered
        q = number_ids(queries, dict(ref_table))  # the references' table stays as it was
        return live & _apart(q[:, None], np.where(live, ref_ids[np.maximum(ids, 0)], 0))
    table: dict = {}
    q = number_ids(queries, table)
    hit, at = np.unique(ids[live], return_inverse=True)
    r = np.zeros(ids.shape, dtype=np.int64)
    r[live] = number_ids([references[i] for i in hit], table)[at]
    return live & _apart(q[:, None], r)


def candidates_unequal(
    queries: Sequence[str], ids: np.ndarray, references: Sequence[str]
) -> np.ndarray:
    """:func:`candidates_apart` for values compared for equality (codes, numbers and dates
    normalised, :func:`~pearl.tables.comparisons.normalised_values`): whether each
    candidate differs from its query (False at padding). Two such values are two
    things however close their text: a phone one digit off, "1975-12-03" and
    "1975-03-12"."""
    live = ids >= 0
    hit, at = np.unique(ids[live], return_inverse=True)
    r = np.empty(ids.shape, dtype=object)
    r[live] = np.array([references[i] for i in hit], dtype=object)[at]
    q = np.array(list(queries), dtype=object).reshape(-1, 1)
    return live & (r != q)


def numbered_last(ids: np.ndarray, apart: np.ndarray) -> np.ndarray:
    """The order in which a join reports each row's ranked candidates
    (:func:`~pearl.tables.matcher.keep_top`): the others first, then those numbered
    ``apart``, each in their order; no candidate (-1, where fewer references were found)
    last of all."""
    return np.argsort(np.where(ids < 0, 2, apart), axis=1, kind="stable")
