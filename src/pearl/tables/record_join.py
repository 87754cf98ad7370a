"""The multi-column :func:`~pearl.tables.join.fuzzy_join` (record linkage on tables):
its key columns checked and those without a value left out, then
:func:`~pearl.tables.record_linkage.link_tables` and the join's usual assembly."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pandas as pd

from pearl._warnings import warn_user
from pearl.tables.comparisons import _distinct_cells
from pearl.tables.join_options import JoinOptions
from pearl.tables.record_linkage import NO_MATCH_PRIOR, link_tables

#: Tables of fewer pairs than this teach the model little: where it finds no match there,
#: the key columns joined into one key are matched by the single-key join instead.
FEW_PAIRS = 1000

__all__ = ["multi_column_join"]


def multi_column_join(
    left_df: pd.DataFrame,
    right,
    opts: JoinOptions,
    *,
    encoder,
    scorer,
    known_matches=None,
    one_key=None,
):
    """:func:`~pearl.tables.join.fuzzy_join` on several key columns (pandas in and
    out), with its checked options (``opts.multi``): :func:`link_tables`, then the join's
    usual assembly; ``match_score`` is the Fellegi-Sunter match probability. A key column
    empty on a side is left out (:func:`_keys_with_values`); where one is left and
    ``one_key`` is given (the single-key join, ``one_key(left, right, opts, encoder,
    None)``), that join decides. Returns the joined table and its
    :class:`~pearl.tables.join_output.JoinDetails`."""
    from pearl._validation import InputTypeError, MissingKeyError
    from pearl.tables.calibration import threshold_for_precision
    from pearl.tables.frames import is_table, to_pandas_table
    from pearl.tables.join_output import JoinDetails, finish_join, output_columns

    left_on, right_on, top_k = list(opts.left_on), list(opts.right_on), opts.top_k
    if len(left_on) != len(right_on):
        raise ValueError(
            f"left_on and right_on must name as many columns, got {len(left_on)} and "
            f"{len(right_on)}"
        )
    if not is_table(right):
        raise InputTypeError(
            "a join on several columns needs the right table whole (a DataFrame or "
            "table), not a stream of chunks"
        )
    right_df, _ = to_pandas_table(right, "right")
    for name, frame, cols in (("left", left_df, left_on), ("right", right_df, right_on)):
        missing = [c for c in cols if c not in frame.columns]
        if missing:
            raise MissingKeyError(
                f"{name} has no column(s) {missing}; columns: {list(frame.columns)}"
            )
    # the output names are checked before any work (a clash is a ValueError)
    output_columns(left_df.columns, right_df.columns, opts.suffix, opts.return_score, top_k > 1)
    keys = _keys_with_values(left_df, right_df, left_on, right_on)
    one = len(keys) == 1 and known_matches is None and not opts.one_to_one
    if one and scorer is not None and one_key is not None:
        # one key column left: the single-key join's match probability, not a model that a
        # single field cannot teach (a 4-row join with an empty city linked none of 3)
        ((a, b),) = keys
        return one_key(left_df, right_df, opts.replace(left_on=a, right_on=b), encoder, None)
    if keys and len(keys) < len(left_on):
        left_on, right_on = [a for a, _ in keys], [b for _, b in keys]
    few = len(left_df) * len(right_df) < FEW_PAIRS and scorer is not None
    few = few and one_key is not None and known_matches is None and not opts.one_to_one
    # where the single-key join may decide instead, the linkage's warnings wait for that
    with warnings.catch_warnings(record=True) if few else contextlib.nullcontext() as caught:
        if few:
            warnings.simplefilter("always")
        ids, scores, model = link_tables(
            left_df,
            right_df,
            list(left_on),
            list(right_on),
            encoder=encoder,
            scorer=scorer,
            top_k=top_k,
            known_matches=_label_positions(known_matches, left_df.index, right_df.index),
            one_to_one=opts.one_to_one,
            batch_size=opts.batch_size,
        )
    if few and getattr(model, "prior_", 1.0) <= NO_MATCH_PRIOR:
        # a one-row right table: 4 pairs teach the model nothing and it found no match;
        # the fields joined into one key need no fitting ("Initech LLC Oslo", "Initech Oslo")
        return _joined_key(left_df, right_df, left_on, right_on, opts, encoder, one_key)
    for w in caught or []:  # the linkage's own warnings, as it gave them
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    threshold = opts.threshold
    if opts.precision is not None:
        threshold = threshold_for_precision(scores[:, 0][ids[:, 0] >= 0], opts.precision)
    left_df, right_df = left_df.reset_index(drop=True), right_df.reset_index(drop=True)
    out = finish_join(
        left_df,
        right_df,
        ids,
        scores,
        threshold=threshold,
        how=opts.how,
        return_score=opts.return_score,
        suffix=opts.suffix,
        rank=top_k > 1,
    )
    details = JoinDetails(
        ids, scores, float(threshold), True, left_df[left_on], right_df[right_on], model
    )
    return out, details


def _keys_with_values(left: pd.DataFrame, right: pd.DataFrame, left_on, right_on) -> list:
    """The ``(left column, right column)`` pairs of keys that hold a value on both sides;
    a pair empty on a side (every cell null or blank) is no evidence for any row, and is
    left out with a warning naming it. Every pair empty: all of them (no row links)."""
    keys, empty = [], []
    for a, b in zip(left_on, right_on, strict=True):
        sides = [side for side, col in (("left", left[a]), ("right", right[b])) if _blank(col)]
        if sides:
            name = repr(a) if a == b else f"{a!r}/{b!r}"
            tables = " and ".join(sides) + (" tables" if len(sides) > 1 else " table")
            empty.append(f"{name} (empty in the {tables})")
        else:
            keys.append((a, b))
    if empty:
        warn_user(
            "record linkage: the key column(s) "
            + ", ".join(empty)
            + " hold no value; a missing value is no evidence, so the rows are linked on "
            + (", ".join(repr(a) for a, _ in keys) if keys else "nothing (no row links)")
        )
    return keys


def _blank(column: pd.Series) -> bool:
    """Every cell missing as a comparison field reads it (null, or blank once stripped)."""
    return bool(_distinct_cells(column)[2].all())


def _label_positions(pairs, left_index: pd.Index, right_index: pd.Index) -> np.ndarray | None:
    """``(left label, right label)`` pairs as row positions; a label not in its table (or
    found twice) is a ``ValueError``."""
    if pairs is None:
        return None
    pairs = list(pairs)
    if not all(isinstance(p, (tuple, list)) and len(p) == 2 for p in pairs):
        raise ValueError("known_matches must be (left label, right label) pairs")
    out = []
    for side, index in ((0, left_index), (1, right_index)):
        labels = [p[side] for p in pairs]
        if not index.is_unique:
            raise ValueError(
                f"known_matches needs a unique index on the {('left', 'right')[side]} table"
            )
        pos = index.get_indexer(labels)
        if (pos < 0).any():
            bad = labels[int(np.flatnonzero(pos < 0)[0])]
            raise ValueError(
                f"known_matches: {bad!r} is not a row of the {('left', 'right')[side]} table"
            )
        out.append(pos)
    return np.stack(out, axis=1).astype(np.int64).reshape(-1, 2)


def _joined_key(left_df, right_df, left_on, right_on, opts: JoinOptions, encoder, one_key):
    """The single-key join (``one_key``) on each side's key fields joined by spaces (the
    missing left out), the joined key dropped from the output."""
    taken = set(map(str, left_df.columns)) | set(map(str, right_df.columns))
    name = "key"
    while name in taken or f"{name}{opts.suffix}" in taken:
        name = f"_{name}"

    def joined(frame: pd.DataFrame, cols) -> pd.DataFrame:
        parts = frame[list(cols)].astype("string").fillna("")
        key = parts.agg(" ".join, axis=1).str.split().str.join(" ").replace("", pd.NA)
        return frame.assign(**{name: key})

    out, details = one_key(
        joined(left_df, left_on),
        joined(right_df, right_on),
        opts.replace(left_on=name, right_on=name),
        encoder,
        None,
    )
    return out.drop(
        columns=[c for c in (name, f"{name}{opts.suffix}") if c in out.columns]
    ), details
