"""Candidate pairs of record linkage (blocking): which (left row, right row) pairs are
compared at all.

Two sources, as :func:`~pearl.tables.record_linkage.link_tables` uses them:

- **equal values** (:func:`equal_value_pairs`): the pairs that share a value of a code,
  date or number field held by few right rows (splink's blocking on equality: a phone
  after normalisation, a postcode, a date of birth);
- **the fuzzy search** (:class:`RecordSearch`): each left record's nearest right records
  by character n-grams on each identifier-like text field (or on the joined text fields
  when none is), and by a record embedding (the sum of its text fields' embeddings), each
  searched in a :class:`~pearl.tables.search.ReferenceIndex`.

The search finds matches whose codes differ (a typo in a phone) and costs most of a large
linkage's time; the equal values cost little. :func:`sample_rows` draws the left rows on
which record linkage measures what the search adds before searching the whole table.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from pearl.tables.comparisons import _per_field, _TextField

__all__ = [
    "EQUAL_PAIRS_PER_ROW",
    "SAMPLE_ROWS",
    "equal_value_pairs",
    "record_counts",
    "record_vectors",
    "sample_rows",
    "RecordSearch",
    "unique_pairs",
]

#: Left rows on which record linkage checks whether the fuzzy search finds matches that
#: the equal values miss; tables of fewer than four times as many left rows are searched
#: whole (the check would cost a good part of the search).
SAMPLE_ROWS = 2_000

#: The most pairs that one code, date or number field's equal values give, per left row
#: (:func:`equal_value_pairs`; the rarest values first).
EQUAL_PAIRS_PER_ROW = 50


def unique_pairs(found: list[np.ndarray]) -> np.ndarray:
    """The distinct (left row, right row) pairs of ``found`` (arrays of shape (n, 2)),
    sorted by left then right row; pairs with a negative row (no candidate) dropped."""
    if not found:
        return np.zeros((0, 2), dtype=np.int64)
    pairs = np.concatenate(found)
    pairs = pairs[(pairs >= 0).all(1)]
    # unique (left, right) in that order, through one int64 key: twice as fast as rows
    width = int(pairs[:, 1].max()) + 1 if len(pairs) else 1
    key = np.unique(pairs[:, 0] * width + pairs[:, 1])
    return np.stack([key // width, key % width], axis=1)


def sample_rows(n_left: int, rng: np.random.Generator) -> np.ndarray | None:
    """:data:`SAMPLE_ROWS` left rows drawn without replacement, in random order (any
    leading part is a sample too), or None when the table has fewer than four times as
    many."""
    if n_left < 4 * SAMPLE_ROWS:
        return None
    return rng.choice(n_left, SAMPLE_ROWS, replace=False)


def _live(null: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
    """The rows (all, or ``rows``) whose value is present."""
    live = np.flatnonzero(~null)
    return live if rows is None else live[np.isin(live, rows)]


def _side(tf: _TextField, side: str, rows: np.ndarray | None):
    """A text field's value ids and missing flags on one side, of ``rows`` (default all)."""
    ids, null = (tf.lid, tf.lnull) if side == "left" else (tf.rid, tf.rnull)
    return (ids, null) if rows is None else (ids[rows], null[rows])


def record_counts(text_fields: list, side: str, rows: np.ndarray | None = None):
    """Each row's (of ``rows``, default all) hashed n-gram counts of its text fields joined
    by spaces (missing values left out), summed from the fields' counts of their values:
    n-grams stay within words and words within a field, so the sum is what counting the
    joined text gives, without counting every value again (a tenth of a large linkage's
    time)."""
    from scipy.sparse import diags

    parts = []
    for tf in text_fields:
        ids, null = _side(tf, side, rows)
        parts.append(diags((~null).astype(np.float64)) @ tf.counts[ids])
    total = sum(parts[1:], parts[0])
    total.sum_duplicates()
    return total


def record_vectors(text_fields: list, side: str, rows: np.ndarray | None = None) -> np.ndarray:
    """Each row's (of ``rows``, default all) record embedding: the sum of its text fields'
    unit embeddings (a missing value adds nothing), as a unit vector (zero when every
    field is missing). The fields' values are embedded already; embedding each record's
    joined text as well took about as long again (FEBRL4: 10,000 records beside 16,000
    field values)."""
    from pearl.encoders.base import normalize_rows

    total = None
    for tf in text_fields:
        ids, null = _side(tf, side, rows)
        part = np.where(null[:, None], np.float32(0), tf.emb[ids])
        total = part if total is None else total + part
    return normalize_rows(np.asarray(total, dtype=np.float32))


class RecordSearch:
    """The fuzzy search: each left record's ``width`` nearest right records, the right
    side prepared once for any number of searches (a sample's, then the whole table's).

    The nearest right records by n-grams on each identifier-like text field (at least
    half its right values distinct: names, numbers; a field of few values would only
    block on ties), or on the joined text fields when no field is identifier-like
    (:func:`record_counts`), and by record embedding (:func:`record_vectors`) when there
    is an ``encoder``. Each is searched in a :class:`~pearl.tables.search.ReferenceIndex`,
    approximately above its size limits, except a sample's record embeddings: searched
    exactly, cheaper for a few thousand rows than the graph of all right records.
    """

    def __init__(self, fields: list, encoder, width: int) -> None:
        self.text_fields = [f for f in fields if isinstance(f, _TextField)]
        self.encoder = encoder
        self.width = width
        self._fields: dict[int, Any] = {}  # a field's right rows and index, or None
        self._records: Any = None  # the joined records' n-gram weights and index
        self._vectors: Any = None  # the right records' embeddings

    def pairs(self, rows: np.ndarray | None = None) -> list[np.ndarray]:
        """(left row, right row) pairs, as arrays of shape (n, 2), of the left ``rows``
        (sorted; default all)."""
        tfs = self.text_fields
        if not tfs or not len(tfs[0].lid) or not len(tfs[0].rid):
            return []
        per_field = _per_field(lambda f: self._field_pairs(f, rows), list(range(len(tfs))))
        found = [p for p in per_field if p is not None]
        if not found:
            found.append(self._record_ngram_pairs(rows))
        if self.encoder is not None:
            found.append(self._embedding_pairs(rows))
        return found

    def _field_pairs(self, f: int, rows) -> np.ndarray | None:
        """Each left row's nearest right rows by n-gram cosine on text field ``f``; None
        when the field is not identifier-like."""
        from pearl.tables.search import ReferenceIndex

        tf = self.text_fields[f]
        if f not in self._fields:
            live_r = np.flatnonzero(~tf.rnull)
            usable = len(np.unique(tf.rid[live_r])) >= 0.5 * len(live_r)
            # the right rows' n-grams are gathered only for a field that is searched
            self._fields[f] = (
                (live_r, ReferenceIndex(ngram_rows=tf.ngrams[tf.rid[live_r]])) if usable else None
            )
        live_l = _live(tf.lnull, rows)
        if self._fields[f] is None or not len(live_l):
            return None
        live_r, index = self._fields[f]
        # left rows of one value have the same candidates: each value is searched once
        values, row_value = np.unique(tf.lid[live_l], return_inverse=True)
        ids = index.ngram_top_k(tf.ngrams[values], self.width)[row_value.ravel()]
        return np.stack([np.repeat(live_l, ids.shape[1]), live_r[ids.ravel()]], axis=1)

    def _record_ngram_pairs(self, rows) -> np.ndarray:
        """Each left record's nearest right records by n-gram cosine of their joined text
        fields."""
        from pearl.tables.ngrams import NgramVectorizer
        from pearl.tables.search import ReferenceIndex

        if self._records is None:
            vec = NgramVectorizer()
            right = record_counts(self.text_fields, "right")
            self._records = vec, ReferenceIndex(ngram_rows=vec.fit_counts(right).weigh(right))
        vec, index = self._records
        left = vec.weigh(record_counts(self.text_fields, "left", rows))
        rows = np.arange(left.shape[0]) if rows is None else rows
        ids = index.ngram_top_k(left, self.width)
        return np.stack([np.repeat(rows, ids.shape[1]), ids.ravel()], axis=1)

    def _embedding_pairs(self, rows) -> np.ndarray:
        """Each left record's nearest right records by record embedding: approximately
        (HNSW) above EXACT_MAX right records for the whole table (exact products of
        100,000 x 100,000 records took most of a large linkage's time), exactly for a
        sample."""
        from pearl.tables.search import EXACT_MAX, ReferenceIndex

        if self._vectors is None:
            self._vectors = ReferenceIndex(
                record_vectors(self.text_fields, "right"), exact_max=EXACT_MAX
            )
        index = self._vectors
        if rows is not None:  # the same vectors, searched exactly
            index = ReferenceIndex(index.vectors, exact_max=np.inf)
        left = record_vectors(self.text_fields, "left", rows)
        rows = np.arange(len(left)) if rows is None else rows
        ids, _ = index.embedding_top_k(left, self.width)
        return np.stack([np.repeat(rows, ids.shape[1]), ids.ravel()], axis=1)


def _equal_value_pairs(field, cap: int) -> np.ndarray | None:
    """(left row, right row) pairs that hold the same value of a code, date or number
    field, for the values held by few right rows: at most ``cap`` or the square root of
    the right rows (a date of birth is held by a dozen of 100,000 people: with 10 as the
    bound, one partner in a hundred was left to a search among its namesakes), rarest
    first, until the pairs reach :data:`EQUAL_PAIRS_PER_ROW` a left row. A value held by
    many (a state, a placeholder such as 1900-01-01) blocks nothing. None when no value
    qualifies."""
    (lk, rk), ln, rn = field.keys(), field.lnull, field.rnull
    live_r = np.flatnonzero(~rn)
    right = pd.DataFrame({"key": rk[live_r], "right": live_r})
    held = right["key"].value_counts()  # right rows holding each value
    sizes = held[held <= max(cap, int(np.sqrt(len(live_r))))].rename("n_right").to_frame()
    if not len(sizes):
        return None
    left = pd.DataFrame({"key": lk[~ln], "left": np.flatnonzero(~ln)})
    # each value's pairs (left rows x right rows holding it), rarest values first
    sizes["n_left"] = left["key"].value_counts().reindex(sizes.index, fill_value=0)
    # ties in the order of the values, so that the same tables give the same pairs
    sizes = sizes[sizes["n_left"] > 0].sort_index().sort_values("n_right", kind="stable")
    pairs = (sizes["n_left"] * sizes["n_right"]).to_numpy()
    within = np.cumsum(pairs) <= EQUAL_PAIRS_PER_ROW * len(left)
    keep = right[right["key"].isin(sizes.index[within])]
    if not len(keep):
        return None
    return left.merge(keep, on="key")[["left", "right"]].to_numpy(np.int64)


def equal_value_pairs(fields: list, cap: int) -> list[np.ndarray]:
    """The (left row, right row) pairs sharing a rare value of each code, date or number
    field (:func:`_equal_value_pairs`: held by at most ``cap`` right rows or the square
    root of their number; a date of birth: names of few distinct values leave the true
    record out of a record's nearest ones in a large table), one array of shape (n, 2) per
    field that has such values."""
    others = [f for f in fields if not isinstance(f, _TextField)]
    return [p for p in _per_field(lambda f: _equal_value_pairs(f, cap), others) if p is not None]
