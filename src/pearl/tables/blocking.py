"""Candidate pairs of record linkage (blocking): which (left row, right row) pairs are
compared at all.

Two sources, as :func:`~pearl.tables.record_linkage.link_tables` uses them:

- **equal values** (:func:`equal_value_pairs`): the pairs that share a value of a code,
  date or number field held by few right rows (splink's blocking on equality: a phone
  after normalisation, a postcode, a date of birth);
- **the fuzzy search** (:class:`RecordSearch`): each left record's nearest right records
  by character n-grams on each identifier-like text field (or on all text fields side by
  side when none is), and by a record embedding (the sum of its text fields' embeddings), each
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
    "record_ngrams",
    "record_sketch",
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


def record_ngrams(text_fields: list, side: str, rows: np.ndarray | None = None):
    """Each row's (of ``rows``, default all) record n-gram vector: its text fields' unit
    TF-IDF n-gram rows (each field's IDF, :class:`_TextField`) side by side, one block of
    columns per field (a missing value a zero block), scaled by one over the square root
    of the fields present. The cosine of two records is then their fields' n-gram cosines
    summed, over the square root of the fields each holds: an n-gram counts within its
    field, the name's never for the street's. The n-grams of the joined text, with the
    IDF fitted on the records, took three to four times as long on 100,000 companies
    (summing the fields' counts and weighing 12 million entries) and found fewer partners
    among each record's ten nearest (96.5% against 99.85% of the partnered rows of a
    sample of 2,000)."""
    from scipy.sparse import diags, hstack

    parts, present = [], 0
    for tf in text_fields:
        ids, null = _side(tf, side, rows)
        part = tf.ngrams[ids]
        if null.any():
            part = diags((~null).astype(np.float32)) @ part
        parts.append(part)
        present = present + (~null).astype(np.int64)
    scale = (1.0 / np.sqrt(np.maximum(present, 1))).astype(np.float32)
    return (diags(scale) @ hstack(parts, format="csr")).tocsr()


def record_sketch(text_fields: list, side: str, rows: np.ndarray | None = None) -> np.ndarray:
    """The sketch (:func:`~pearl.tables.nearest.sketch`) of each row's :func:`record_ngrams`
    vector, made from the fields' distinct values (:func:`~pearl.tables.nearest.block_sketch`):
    on 100,000 company records, 0.2-0.3 s where the records' own n-gram rows and their
    sketch took 1.1-1.2 s (the same rows to 1.2e-7)."""
    from pearl.tables.nearest import block_sketch

    blocks = []
    for tf in text_fields:
        ids, null = _side(tf, side, rows)
        values, at = np.unique(ids, return_inverse=True)
        blocks.append((tf.ngrams[values], at.ravel(), (~null).astype(np.float32)))
    return block_sketch(blocks)


def record_vectors(text_fields: list, side: str, rows: np.ndarray | None = None) -> np.ndarray:
    """Each row's (of ``rows``, default all) record embedding: the sum of its text fields'
    unit embeddings (a missing value adds nothing), as a unit vector (zero when every
    field is missing). The fields' values are embedded already; embedding each record's
    joined text as well took about as long again (FEBRL4: 10,000 records beside 16,000
    field values)."""
    from pearl.encoders.base import normalize_rows

    if not text_fields:
        raise ValueError("record vectors need at least one text field")

    def part(tf) -> np.ndarray:
        ids, null = _side(tf, side, rows)
        out = np.asarray(tf.emb, dtype=np.float32)[ids]  # a copy: zeroed in place
        out[null] = 0
        return out

    total = part(text_fields[0])
    for tf in text_fields[1:]:
        total += part(tf)
    return normalize_rows(total, copy=False)


class RecordSearch:
    """The fuzzy search: each left record's ``width`` nearest right records, the right
    side prepared once for any number of searches (a sample's, then the whole table's).

    The nearest right records by n-grams on each identifier-like text field (at least
    half its right values distinct: names, numbers; a field of few values would only
    block on ties), or on all text fields side by side when no field is identifier-like
    (:func:`record_ngrams`), and by record embedding (:func:`record_vectors`) when there
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

        tf = self.text_fields[f]
        if f not in self._fields:
            live_r = np.flatnonzero(~tf.rnull)
            values, at = np.unique(tf.rid[live_r], return_inverse=True)
            # the right rows' n-grams (or, many, their sketch, made from the distinct
            # values') are gathered only for a field that is searched
            self._fields[f] = (
                (live_r, _value_index(tf.ngrams, values, at.ravel()))
                if len(values) >= 0.5 * len(live_r)
                else None
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
        """Each left record's nearest right records by the cosine of their record n-gram
        vectors (:func:`record_ngrams`)."""
        from pearl.tables.search import ReferenceIndex, exact_ngrams

        # a large right table's records are searched by a sketch made from the fields' values
        sketched = not exact_ngrams(len(self.text_fields[0].rid))
        records = record_sketch if sketched else record_ngrams
        if self._records is None:
            right = records(self.text_fields, "right")
            self._records = (
                ReferenceIndex(ngram_sketch=right) if sketched else ReferenceIndex(ngram_rows=right)
            )
        index = self._records
        left = records(self.text_fields, "left", rows)
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


def _value_index(ngrams, values: np.ndarray, at: np.ndarray):
    """The reference index of rows holding ``values[at]`` (ids of rows of ``ngrams``): their
    n-gram rows, or above the exact search's size their sketch, each value sketched once."""
    from pearl.tables.nearest import block_sketch
    from pearl.tables.search import ReferenceIndex, exact_ngrams

    if exact_ngrams(len(at)):
        return ReferenceIndex(ngram_rows=ngrams[values[at]])
    return ReferenceIndex(ngram_sketch=block_sketch([(ngrams[values], at, np.ones(len(at)))]))


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
