"""Comparing the fields of record pairs: each pair of key columns gets a kind (text, code,
number or date, read from the values) and each candidate pair of rows a small integer
level per field, which :mod:`pearl.tables.record_linkage` turns into a match
probability. A null or empty value on either side is missing evidence (level -1)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pearl._validation import nfc
from pearl.encoders import TABLE_BATCH_SIZE
from pearl.tables.dates import _date_level_values, _dates, _digits, _texts
from pearl.tables.nearest import thread_map

__all__ = [
    "LEVELS",
    "LEVEL_NAMES",
    "STRONG_TOP",
    "TEXT_BINS",
    "KIND_SHARE",
    "field_kind",
    "normalised_values",
]


#: comparison levels per field kind (the highest is the strongest agreement)
LEVELS = {"text": 5, "numeric": 3, "date": 4, "code": 3}
TEXT_BINS = (0.4, 0.7, 0.9)
#: the length of a word one edit from another that counts as a weaker typo (level 2, not
#: 3): "lee" and "lme", but also "tom" and "tim"
SHORT_TYPO = 3
#: what each level of each kind means, lowest first (a join report's match weights)
LEVEL_NAMES = {
    "text": (
        f"similarity < {TEXT_BINS[0]}",
        f"similarity {TEXT_BINS[0]}-{TEXT_BINS[1]}",
        f"similarity {TEXT_BINS[1]}-{TEXT_BINS[2]}",
        f"similarity >= {TEXT_BINS[2]}, one edit apart or a word abbreviated",
        "equal (case aside)",
    ),
    "numeric": ("different", "within 1% of the column's spread", "equal"),
    "date": (
        "more than 31 days apart",
        "within 31 days",
        "one digit apart or two swapped",
        "same day",
    ),
    "code": ("different", "one edit apart", "equal after normalisation"),
}
#: how many of each kind's top levels are strong evidence, such that a pair strong on
#: every field is a sure match (:meth:`~pearl.tables.fellegi_sunter.FellegiSunter.
#: fit_m_from_agreement`): a typo in a name or one digit of a date counts; with the same
#: day alone, the sure pairs showed no mistyped date, and ``m`` said partners never have one
STRONG_TOP = {"text": 2, "numeric": 1, "date": 2, "code": 1}
#: the share of a text column's values that must look like a kind for it to be read so
KIND_SHARE = 0.95
_DATE = re.compile(r"^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}$")
_NUMBER = re.compile(r"^[+-]?\d+(\.\d+)?$")
_CODE_PUNCT = re.compile(r"[\s\-/().+]")


def field_kind(left: pd.Series, right: pd.Series) -> str:
    """How a pair of columns is compared, chosen from the values without settings.

    ``"date"``: both datetimes, or text that reads as dates (``1975-03-12``, ``12/03/1975``);
    ``"numeric"``: both numeric (booleans aside), or text of plain numbers of at most four
    digits before a decimal point (years, ages, amounts); ``"code"``: text that is digits
    once spaces and ``- / ( ) . +`` are removed, five digits or more, or with a leading
    zero (phones, postcodes, ids; compared exactly after that normalisation); else
    ``"text"`` (names and free text: embeddings and n-grams). A kind needs
    :data:`KIND_SHARE` of the non-empty values of both columns together.
    """
    from pandas.api.types import is_bool_dtype, is_datetime64_any_dtype, is_numeric_dtype

    if all(is_datetime64_any_dtype(s) for s in (left, right)):
        return "date"
    if all(is_numeric_dtype(s) and not is_bool_dtype(s) for s in (left, right)):
        return "numeric"
    if any(is_bool_dtype(s) for s in (left, right)):
        return "text"
    values = [
        str(v).strip()
        for s in (left, right)
        for v in s.dropna().head(2000).tolist()
        if isinstance(v, str | int | float) and str(v).strip()
    ]
    if not values:
        return "text"

    def share(test) -> float:
        return sum(map(test, values)) / len(values)

    if share(lambda v: bool(_DATE.match(v))) >= KIND_SHARE:
        return "date"
    digits = [_CODE_PUNCT.sub("", v) for v in values]
    if sum(d.isdigit() for d in digits) >= KIND_SHARE * len(values):
        numbers = [v for v in values if _NUMBER.match(v)]
        small = [v for v in numbers if len(v.lstrip("+-").split(".")[0]) <= 4]
        if len(small) >= KIND_SHARE * len(values) and not any(
            v.startswith("0") and len(v) > 1 and "." not in v for v in small
        ):
            return "numeric"
        return "code"
    return "text"


def _code_parts(column: pd.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A code column's distinct cells normalised (case folded, spaces and ``- / ( ) . +``
    removed: "310/246-1501" and "310-246-1501" are equal): each cell's position among the
    distinct cells, their normalised values, and which cells are missing."""
    codes, values, null = _distinct_cells(column)
    norm = np.array([_CODE_PUNCT.sub("", c).casefold() for c in values], dtype=object)
    return codes, norm, null | (norm == "")[codes]


def _zero_led(values: np.ndarray) -> bool:
    """Whether some value is digits with a leading zero ("02134")."""
    return any(len(v) > 1 and v[0] == "0" and v.isdigit() for v in values)


def _without_leading_zeros(values: np.ndarray) -> np.ndarray:
    """The values, those that are digits without their leading zeros ("00501" is "501")."""
    return np.array([v.lstrip("0") or "0" if v.isdigit() else v for v in values], dtype=object)


class _CodeField:
    """A code field: both sides' values normalised once (:func:`_code_parts`; without
    leading zeros when only one side's digits have any), with an
    integer key per distinct value, for the levels of any pairs of rows and the
    term-frequency adjustment."""

    def __init__(self, left: pd.Series, right: pd.Series):
        # each side's distinct cells normalised once; one table compared with itself (the
        # same column object): its values read once
        lc, lv, self.lnull = _code_parts(left)
        shared = right is left
        rc, rv, self.rnull = (lc, lv, self.lnull) if shared else _code_parts(right)
        if not shared and _zero_led(lv) != _zero_led(rv):
            # one side lost its leading zeros (a postcode read as the number 2134, or
            # saved by a spreadsheet, against "02134"): none count on either side
            lv, rv = _without_leading_zeros(lv), _without_leading_zeros(rv)
        # each value's key: the order it first occurs in the left cells, then the right
        keys, values = pd.factorize(lv if shared else np.concatenate([lv, rv]))
        self.lower = [v.lower() for v in values]  # each key's value, as one_edit_apart reads it
        self.lkey = keys[: len(lv)][lc].astype(np.int64)
        self.rkey = self.lkey if shared else keys[len(lv) :][rc].astype(np.int64)
        self.left = lv[lc]
        self.right = self.left if shared else rv[rc]

    def keys(self) -> tuple[np.ndarray, np.ndarray]:
        """Each left and right row's value as an integer (equal values, equal keys)."""
        return self.lkey, self.rkey

    def levels(self, li: np.ndarray, ri: np.ndarray) -> np.ndarray:
        """2 equal after normalisation, 1 one edit apart (a mistyped digit), 0 otherwise,
        -1 missing."""
        near = _one_edit_values(self.lower, self.lkey[li], self.rkey[ri])
        levels = np.where(self.lkey[li] == self.rkey[ri], 2, np.where(near, 1, 0))
        return np.where(self.lnull[li] | self.rnull[ri], -1, levels)


def normalised_values(left: pd.Series, right: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """A pair of columns of codes, numbers or dates (:func:`field_kind`) as record linkage
    compares them for equality, one string per value (None where missing or unreadable):
    a code normalised (:class:`_CodeField`: "(310) 246-1501" and "310-246-1501" are both
    "3102461501"), a number written plainly ("34" and "34.0" are "34"), a date in ISO 8601
    ("12/31/1975" is "1975-12-31"). None for a pair of text columns. ``right is left``: one
    column read once."""
    rule = value_rule(left, right)
    if rule is None:
        return None
    lv = rule.values(left)
    return lv, lv if right is left else rule.values(right)


@dataclass(frozen=True)
class ValueRule:
    """How the values of a key of codes, numbers or dates are written to be compared for
    equality (:func:`value_rule`): their ``kind`` (``"code"``, ``"numeric"`` or
    ``"date"``) and, for codes, whether leading zeros are dropped (one side lost them)."""

    kind: str
    drop_zeros: bool = False

    def values(self, column: pd.Series) -> np.ndarray:
        """One column's values, one string each (None where missing or unreadable)."""
        if self.kind == "code":
            codes, norm, null = _code_parts(column)
            if self.drop_zeros:
                norm = _without_leading_zeros(norm)
            out = norm[codes].astype(object)
            out[null] = None
            return out
        if self.kind == "date":
            return _date_text(_dates(column))
        return _number_text(_numbers(column))

    def written(self, texts: list[str], column: pd.Series) -> list[str]:
        """``texts`` (the cells of ``column`` as strings) as compared: each value
        normalised, a cell that does not read as one keeping its text."""
        values = self.values(column)
        return [t if v is None else v for t, v in zip(texts, values, strict=True)]


def value_rule(left: pd.Series, right: pd.Series) -> ValueRule | None:
    """The :class:`ValueRule` of a pair of key columns of codes, numbers or dates
    (:func:`field_kind`), None for text: what :func:`normalised_values` applies, kept to
    write other values of the same columns (a fitted reference's queries) the same way."""
    kind = field_kind(left, right)
    if kind == "text":
        return None
    if kind != "code" or right is left:
        return ValueRule(kind)
    zero_led = [_zero_led(_code_parts(c)[1]) for c in (left, right)]
    return ValueRule(kind, zero_led[0] != zero_led[1])


def _number_text(x: np.ndarray) -> np.ndarray:
    """Numbers as the shortest text that reads back as each (None where missing)."""
    return np.array(
        [None if np.isnan(v) else np.format_float_positional(v + 0.0, trim="-") for v in x],
        dtype=object,
    )


def _date_text(x: np.ndarray) -> np.ndarray:
    """Datetimes in ISO 8601, the day alone at midnight (None where missing)."""
    text = np.datetime_as_string(np.asarray(x, dtype="datetime64[s]"), unit="s")
    return np.array(
        [None if t == "NaT" else t.removesuffix("T00:00:00") for t in text], dtype=object
    )


def _distinct_cells(column: pd.Series) -> tuple[np.ndarray, list[str], np.ndarray]:
    """A column's distinct cells as stripped strings (a missing cell ``""``), each cell's
    position among them, and which cells are missing (null or blank); each distinct cell
    is cleaned once."""
    from pearl.tables.encoding import to_string_list

    cells, null = to_string_list(column, non_string="str", name=str(column.name))
    codes, raw = pd.factorize(np.asarray(cells, dtype=object))
    values = [nfc(c).strip() for c in raw]  # "é" in either of its forms: one value
    blank = np.array([v == "" for v in values], dtype=bool)
    return codes, values, null | blank[codes]


@dataclass
class _Field:
    """A number or date field: its kind and both sides' values, parsed once (floats, or
    datetimes) for the levels of any pairs of rows and for blocking on equal values, as
    :class:`_CodeField` and :class:`_TextField` do for theirs."""

    kind: str
    left: pd.Series
    right: pd.Series

    def __post_init__(self) -> None:
        parse = _dates if self.kind == "date" else _numbers
        self.lvals = parse(self.left)
        self.rvals = self.lvals if self.right is self.left else parse(self.right)
        self.lnull = pd.isna(self.lvals)
        self.rnull = self.lnull if self.right is self.left else pd.isna(self.rvals)
        if self.kind == "date":  # a value that is not a date may be one mistyped
            self.ltext = _texts(self.left)
            self.rtext = self.ltext if self.right is self.left else _texts(self.right)
            self.ldigits = _digits(self.lvals)
            self.rdigits = self.ldigits if self.right is self.left else _digits(self.rvals)

    def keys(self) -> tuple[np.ndarray, np.ndarray]:
        """Each left and right row's value as a comparable array (dates as whole seconds
        since the epoch); missing rows are :attr:`lnull` and :attr:`rnull`."""
        if self.kind == "date":
            return tuple(pd.DatetimeIndex(v).as_unit("s").asi8 for v in (self.lvals, self.rvals))
        return self.lvals, self.rvals

    def levels(self, li: np.ndarray, ri: np.ndarray) -> np.ndarray:
        """The comparison levels of the pairs ``(li[e], ri[e])``."""
        if self.kind == "date":
            return _date_level_values(
                self.lvals[li],
                self.rvals[ri],
                self.ltext[li],
                self.rtext[ri],
                self.ldigits[li],
                self.rdigits[ri],
            )
        return _numeric_level_values(self.lvals, self.rvals, li, ri)


def _numbers(column: pd.Series) -> np.ndarray:
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


def _numeric_levels(a: pd.Series, b: pd.Series, li, ri) -> np.ndarray:
    """2 equal, 1 close in absolute terms (within 1% of the column's spread, its 5th to
    95th percentile, and at least 1 for whole numbers: a year off by one), 0 otherwise,
    -1 missing. (Within 1% of the value made 1955 close to every year since 1936.)"""
    return _numeric_level_values(_numbers(a), _numbers(b), li, ri)


def _numeric_level_values(xs: np.ndarray, ys: np.ndarray, li, ri) -> np.ndarray:
    """:func:`_numeric_levels` of the columns' parsed values."""
    both = np.concatenate([xs, ys])
    both = both[np.isfinite(both)]
    spread = float(np.subtract(*np.percentile(both, [95, 5]))) if len(both) else 0.0
    whole = bool(len(both)) and bool(np.all(both == np.round(both)))
    tol = max(0.01 * spread, 1.0 if whole else 0.0)
    x, y = xs[li], ys[ri]
    with np.errstate(invalid="ignore"):  # inf - inf: equal values, level 2 below
        close = np.abs(x - y) <= tol
    levels = np.where(x == y, 2, np.where(close, 1, 0))
    return np.where(np.isnan(x) | np.isnan(y), -1, levels)


class _TextField:
    """A text field's unique values, their embeddings and n-gram vectors, for the
    similarities of any pairs of rows."""

    def __init__(self, left: pd.Series, right: pd.Series, scorer):
        from pearl.tables.match_graph import AbbreviationWords
        from pearl.tables.ngrams import NgramVectorizer

        lc, lv, self.lnull = _distinct_cells(left)
        # one table compared with itself (the same column object): its values read once
        rc, rv, self.rnull = (lc, lv, self.lnull) if right is left else _distinct_cells(right)
        self.values = uniq = sorted(set(lv) | set(rv))
        self.lower = [v.lower() for v in uniq]
        pos = {v: i for i, v in enumerate(uniq)}
        self.lid = np.array([pos[v] for v in lv], dtype=np.int64)[lc]
        self.rid = self.lid if rc is lc else np.array([pos[v] for v in rv], dtype=np.int64)[rc]
        folded = [" ".join(v.split()).casefold() for v in uniq]  # case and spaces aside
        first: dict[str, int] = {}
        # each value's folded form as the id of its first value: equality of ints
        self.folded = np.array([first.setdefault(f, i) for i, f in enumerate(folded)])
        # the values' n-grams counted once; the IDF is the right column's (each value as
        # often as it occurs there), as fitting on the column itself gives
        vec = NgramVectorizer()
        counts = vec.counts(uniq)
        vec.fit_counts(counts, np.bincount(self.rid, minlength=len(uniq)))
        self.ngrams = vec.weigh(counts)
        self.scorer = scorer
        self.emb: np.ndarray | None = None  # unit embeddings of ``values``: embed_fields
        # the values' words for the abbreviation level, each split when first asked and
        # kept: a linkage asks the levels four times
        self._words = AbbreviationWords(self.lower)

    def similarity(self, li: np.ndarray, ri: np.ndarray) -> np.ndarray:
        """The field's similarity for row pairs, computed once per distinct value pair."""
        from pearl.tables.match_graph import pair_cosines

        a, b, inverse = _distinct_pairs(self.lid[li], self.rid[ri], len(self.folded))
        ng = pair_cosines(self.ngrams, a, b)
        if self.emb is None:
            sim = ng
        else:
            emb = pair_cosines(self.emb, a, b)
            sim = emb if self.scorer is None else self.scorer.probability(emb, ng)
        return np.asarray(sim)[inverse]

    def keys(self) -> tuple[np.ndarray, np.ndarray]:
        """Each left and right row's value as an integer, case and spaces aside (equal
        values, equal keys)."""
        return self.folded[self.lid], self.folded[self.rid]

    def levels(self, li: np.ndarray, ri: np.ndarray) -> np.ndarray:
        """-1 where a cell is missing, 4 where the values are equal but for case, else the
        similarity's bin (0-3), at least 3 one edit apart; similarities are computed only
        for the last."""
        missing = self.lnull[li] | self.rnull[ri]
        equal = self.folded[self.lid[li]] == self.folded[self.rid[ri]]
        levels = np.where(missing, -1, 4)
        todo = np.flatnonzero(~missing & ~equal)
        sim = self.similarity(li[todo], ri[todo])
        levels[todo] = np.searchsorted(np.asarray(TEXT_BINS), sim, side="right")
        # a typo (one edit, case aside) is a strong level whatever the similarity says:
        # a short name with one letter changed looks unrelated to n-grams; in a word of
        # three letters ("lee", "lme") a weaker one, as "tom" and "tim" may be two names
        from pearl.tables.match_graph import _shorter_at_least

        a, b = self.lid[li[todo]], self.rid[ri[todo]]
        typo = _one_edit_values(self.lower, a, b, min_length=SHORT_TYPO)
        long = typo & _shorter_at_least(self.lower, a, b, SHORT_TYPO + 1)
        levels[todo[typo]] = np.maximum(levels[todo[typo]], 2)
        levels[todo[long]] = np.maximum(levels[todo[long]], 3)
        # so is a word written short ("340 River Rd", "340 River Road"; "Ltd", "Limited")
        short = _abbreviated_values(self.lower, a, b, self._words)
        levels[todo[short]] = np.maximum(levels[todo[short]], 3)
        return levels


def embed_fields(fields: list[_TextField], encoder, batch_size: int = TABLE_BATCH_SIZE) -> None:
    """Set each text field's value embeddings, every field's values embedded in one call
    (a value held by several fields once; one length-sorted stream pads less than one
    call per field), through the process's embedding cache as a single-key join's are
    (:func:`~pearl.tables.encoding.query_vectors`: another call on the same tables, at
    another threshold or as a deduplication, embeds nothing again)."""
    from pearl.tables.encoding import query_vectors

    if encoder is None or not fields:
        return
    # a missing cell's placeholder ("") is never compared: a zero row, not embedded
    values = sorted(set().union(*(tf.values for tf in fields)) - {""})
    if not values:
        for tf in fields:
            tf.emb = np.zeros((len(tf.values), 1), np.float32)
        return
    vectors = query_vectors(values, encoder, batch_size)
    vectors = np.vstack([np.zeros((1, vectors.shape[1]), np.float32), vectors])
    pos = {v: i + 1 for i, v in enumerate(values)}
    for tf in fields:
        tf.emb = vectors[[pos.get(v, 0) for v in tf.values]]


def _distinct_pairs(a: np.ndarray, b: np.ndarray, n: int):
    """The distinct pairs ``(a[e], b[e])`` of value ids below ``n``, as two arrays, and
    each pair's position among them (so work per distinct pair maps back to the pairs)."""
    n = max(n, 1)
    keys, inverse = np.unique(
        np.asarray(a, np.int64) * n + np.asarray(b, np.int64), return_inverse=True
    )
    return keys // n, keys % n, inverse.ravel()


def _one_edit_values(
    lower: list[str], a: np.ndarray, b: np.ndarray, min_length: int = 4
) -> np.ndarray:
    """Whether ``lower[a[e]]`` and ``lower[b[e]]`` (lower-cased values) are one edit apart,
    the shorter of ``min_length`` characters or more
    (:func:`~pearl.tables.match_graph.one_edit_apart`), tested once per distinct pair of
    values (a table's pairs repeat them)."""
    from pearl.tables.match_graph import one_edit_lowered

    first, second, inverse = _distinct_pairs(a, b, len(lower))
    return one_edit_lowered(lower, first, second, min_length=min_length)[inverse]


#: The longest word that counts as an abbreviation in a record's field ("rd", "ltd",
#: "intl"): a longer one is more often another name ("martin" of "martinez").
ABBREVIATION_MAX = 4


def _abbreviated_values(
    lower: list[str], a: np.ndarray, b: np.ndarray, prepared=None
) -> np.ndarray:
    """Whether ``lower[a[e]]`` and ``lower[b[e]]`` have as many words, two or more, each
    equal or one abbreviating the other (:func:`~pearl.tables.match_graph.abbreviation_apart`)
    with an abbreviation of at most :data:`ABBREVIATION_MAX` letters, tested once per
    distinct pair of values; ``prepared``: the values' words, split once
    (:class:`~pearl.tables.match_graph.AbbreviationWords`)."""
    from pearl.tables.match_graph import abbreviation_apart

    first, second, inverse = _distinct_pairs(a, b, len(lower))
    near = abbreviation_apart(
        lower, first, second, min_words=2, longest=ABBREVIATION_MAX, prepared=prepared
    )
    return near[inverse]


def _levels(fields: list, li: np.ndarray, ri: np.ndarray) -> np.ndarray:
    """The comparison levels of the pairs ``(li[e], ri[e])``, one column per field."""
    cols = _per_field(lambda field: field.levels(li, ri), fields)
    return np.stack(cols, axis=1).astype(np.int64) if cols else np.zeros((len(li), 0), np.int64)


def _per_field(fn, items: list) -> list:
    """``[fn(x) for x in items]`` on threads (:func:`~pearl.tables.nearest.thread_map`):
    the fields' work overlaps (FEBRL4's n-gram candidates: 1.5 s on one thread, 0.9 s on
    two); the results keep the items' order."""
    return thread_map(fn, items)
