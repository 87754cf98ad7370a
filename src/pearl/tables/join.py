"""Join two tables on approximately matching string columns."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from pearl._validation import (
    InputTypeError,
    MissingKeyError,
    check_int,
)
from pearl.encoders import DEFAULT_MODEL, TABLE_BATCH_SIZE
from pearl.tables.decision import decided, precision_cut
from pearl.tables.decoys import table_decision
from pearl.tables.encoding import (
    distinct,
    get_encoder,
    to_string_list,
)
from pearl.tables.frames import (
    check_unique_columns,
    from_pandas_table,
    is_table,
    table_columns,
    to_pandas_table,
)
from pearl.tables.join_options import (
    JOIN_THRESHOLD,
    JoinOptions,
    check_join_options,
    check_threshold,
    join_keys,
)
from pearl.tables.join_output import (
    JoinDetails,
    assemble_join,
    finish_join,
    match_names,
    output_columns,
)
from pearl.tables.matcher import scorer_for
from pearl.tables.reference import REFERENCE_EXACT_MAX, Reference
from pearl.tables.streamed_search import decided_search, match_strings

__all__ = [
    "fuzzy_join",
    "match_strings",
    "assemble_join",
    "output_columns",
    "check_join_options",
    "match_names",
    "join_keys",
    "check_threshold",
    "JOIN_THRESHOLD",
]


def _is_frame(df: Any) -> bool:
    return is_table(df)


def _to_pandas(df: Any, name: str) -> pd.DataFrame:
    return to_pandas_table(df, name)[0]


def _check_right(right: Any) -> None:
    """A DataFrame, or an iterable of DataFrames (chunks), and nothing else."""
    if _is_frame(right):
        return
    if (
        isinstance(right, str | bytes | dict)
        or not hasattr(right, "__iter__")
        or isinstance(right, pd.Series | np.ndarray)
    ):
        raise InputTypeError(
            "right must be a pandas or polars DataFrame, or an iterable of "
            f"DataFrames (chunks), got {type(right).__name__}"
        )


class _RightStream:
    """The right table, read chunk by chunk: its non-null keys go to the matcher, its rows
    are kept for the output, and :meth:`rows_of` maps a matched key back to its row."""

    def __init__(self, right: Any, right_on: str, chunksize: int | None) -> None:
        self.right, self.right_on, self.chunksize = right, right_on, chunksize
        self.frames: list[pd.DataFrame] = []
        self.columns: list[str] | None = None
        self.positions: list[np.ndarray] = []  # row of each non-null key, chunk by chunk
        self.n_rows = 0
        self._chunks: list[list[str]] | None = None  # set by read_all

    def _parts(self):
        if _is_frame(self.right):
            frame = _to_pandas(self.right, "right")
            step = self.chunksize or max(len(frame), 1)
            return (frame.iloc[s : s + step] for s in range(0, max(len(frame), 1), step))
        return iter(self.right)

    def _read(self, part: Any) -> list[str]:
        """Keep one chunk's rows; its non-null keys (null right keys are never indexed)."""
        if not _is_frame(part):
            raise InputTypeError(
                "right must be a DataFrame or an iterable of DataFrames; a "
                f"chunk is a {type(part).__name__}"
            )
        part = _to_pandas(part, "right")
        check_unique_columns(part, "right")
        if self.right_on not in part.columns:
            raise MissingKeyError(
                f"right has no column {self.right_on!r}; columns: {list(part.columns)}"
            )
        self.columns = list(part.columns)
        keys, nulls = to_string_list(part[self.right_on], non_string="str", name=self.right_on)
        self.frames.append(part.reset_index(drop=True))
        keep = np.flatnonzero(~nulls)
        self.positions.append(keep + self.n_rows)
        self.n_rows += len(keys)
        return [keys[k] for k in keep]

    def read_all(self) -> list[str]:
        """Read every chunk now (the combined matcher's n-gram weights need every right
        key before matching); returns the non-null keys. :meth:`keys` then replays the
        chunks without reading them again."""
        self._chunks = [self._read(part) for part in self._parts()]
        return [k for chunk in self._chunks for k in chunk]

    def keys(self):
        """Yield the non-null keys of each chunk."""
        if self._chunks is not None:
            yield from self._chunks
            return
        for part in self._parts():
            yield self._read(part)

    def rows_of(self, key_ids: np.ndarray) -> np.ndarray:
        """Right-table rows of matched key ids (-1 stays -1)."""
        mapping = np.concatenate(self.positions) if self.positions else np.zeros(0, dtype=np.int64)
        if not len(mapping):
            return np.full(key_ids.shape, -1, dtype=np.int64)
        return np.where(key_ids >= 0, mapping[np.maximum(key_ids, 0)], -1)

    def normalise(self, left: pd.Series, lkeys: list[str]) -> tuple[list[str], list[str], bool]:
        """After :meth:`read_all`: keys of codes, numbers or dates compared as record linkage
        compares them (:func:`~pearl.tables.comparisons.normalised_values`, from ``left``'s
        column and the right key column read): the left keys and the non-null right keys
        to match, normalised ("212 555 0101" and "2125550101" are one phone), and whether
        they were; text keys unchanged. A value that normalises to nothing keeps its text."""
        from pearl.tables.comparisons import normalised_values

        chunks = self._chunks or []
        right = [f[self.right_on] for f in self.frames]
        values = normalised_values(left, pd.concat(right, ignore_index=True)) if right else None
        if values is not None:
            lv, rv = values
            lkeys = [k if v is None else v for k, v in zip(lkeys, lv, strict=True)]
            self._chunks = chunks = [
                [k if rv[p] is None else rv[p] for k, p in zip(chunk, pos, strict=True)]
                for chunk, pos in zip(chunks, self.positions, strict=True)
            ]
        return lkeys, [k for chunk in chunks for k in chunk], values is not None

    def frame(self) -> pd.DataFrame:
        """Every right row read, in order."""
        if self.frames:
            return pd.concat(self.frames, ignore_index=True)
        return pd.DataFrame(columns=self.columns or [self.right_on])


def fuzzy_join(
    left: Any,
    right: Any,
    left_on: str | list[str] | None = None,
    right_on: str | list[str] | None = None,
    *,
    on: str | list[str] | None = None,
    threshold: float | None = None,
    top_k: int = 1,
    how: str = "left",
    return_score: bool = True,
    model: Any = DEFAULT_MODEL,
    suffix: str = "_right",
    batch_size: int = TABLE_BATCH_SIZE,
    right_chunksize: int | None = None,
    matcher: Any = "combined",
    precision: float | None = None,
    known_matches: Any = None,
    one_to_one: bool = False,
) -> Any:
    """Join ``right`` onto ``left`` by the similarity of phrase embeddings.

    Each row of ``left`` takes its ``top_k`` most similar rows of ``right``
    (many-to-one: several left rows may take the same right row, as in AutoFJ
    where each record of the input table is matched to the reference table).

    Parameters
    ----------
    left, right : table
        pandas, polars (eager or lazy) or pyarrow tables, or (right only) an iterable of
        tables, e.g. ``pd.read_csv(path, chunksize=...)``, to stream a right table that
        does not fit in memory. The result is a table of ``left``'s kind, with the
        columns' types kept (nullable integers and dates stay what they were).
    left_on, right_on : str or list of str
        The string columns to match; or, for record linkage, lists of as many columns
        (people, companies, addresses): each pair of columns is compared with its own
        similarity (text with the matcher, numbers and dates as such) and the evidence is
        combined into one match probability by a Fellegi-Sunter model fitted without
        labels (EM, as splink does); a null on either side is missing evidence, not a
        mismatch (:mod:`pearl.tables.record_linkage`). The right table must then
        be whole, not a stream of chunks.
    on : str or list of str, optional
        The column(s) to match, named the same in both tables (instead of ``left_on``
        and ``right_on``).
    threshold : float, optional
        Minimum ``match_score`` of a match: a probability in [0, 1] with the combined
        matcher (the default) or several key columns, a cosine in [-1, 1] with
        ``matcher="cosine"`` on one column. By default 0.5 on a match probability: a left
        row whose best candidate is more likely not its match than its match stays
        unmatched (``threshold=0`` links every row to its best candidate, as skrub's
        ``fuzzy_join`` does); with ``matcher="cosine"`` on one column, no threshold.
    top_k : int, default=1
        Matches per left row (at most the number of right rows); with ``top_k > 1`` a
        ``match_rank`` column is added.
    how : {"left", "inner"}, default="left"
        ``"left"`` keeps every left row, with nulls in the right columns where no
        match reaches the threshold; ``"inner"`` drops those rows.
    return_score : bool, default=True
        Add a ``match_score`` column (null when unmatched). Where ``left`` already has
        one (a join of a joined table), the new column is ``match_score_2`` (then
        ``_3``...), and likewise ``match_rank``: chained joins work with the defaults.
    model : str or encoder, default=DEFAULT_MODEL
    suffix : str, default="_right"
        Appended to right column names that clash with left ones. A name that would
        still clash (``<col>_right`` already exists) is a ``ValueError``: no input column
        is ever overwritten or duplicated.
    batch_size : int, default=256
    right_chunksize : int, optional
        Stream a DataFrame ``right`` in chunks of this many rows.
    matcher : {"combined", "cosine"} or MatchScorer, default="combined"
        ``"combined"``: candidates are the nearest references by embedding and by character
        n-grams, and ``match_score`` is the probability of a match given both cosines (a
        :class:`~pearl.tables.matcher.MatchScorer` learned for the model on training
        pairs; pass one to use other weights). ``"cosine"``: the nearest references by
        embedding, ``match_score`` their cosine.
    precision : float, optional
        With a combined matcher, choose the threshold so that the expected precision of
        the accepted matches (the mean of their probabilities) is at least this, instead
        of giving ``threshold`` (giving both is a ``ValueError``).
    known_matches : sequence of (left label, right label) pairs, optional
        With several key columns: rows known to match, by their index labels in
        ``left`` and ``right`` (positions for polars and pyarrow tables). The
        Fellegi-Sunter model then learns how matching records compare (``m``) from them
        instead of by EM; a few dozen labelled pairs are enough. Not used with one key
        column (fine-tune the model instead: ``pearl finetune``).
    one_to_one : bool, default=False
        With several key columns: link each record of either table at most once (when
        neither table repeats an entity, as two registers of the same people): candidate
        pairs are taken greedily by decreasing probability, and a left row whose best
        candidate went to a likelier pair gets its next free one. Off by default, so a
        right table with duplicates still matches every left row that names them.

    Returns
    -------
    table of ``left``'s kind (pandas, polars eager or lazy, pyarrow)

    Notes
    -----
    With the combined matcher the search is exact up to 20,000 reference rows (a chunk of
    them when streamed; :data:`REFERENCE_EXACT_MAX`) and approximate above, in the
    reference index's faiss HNSW graph and n-gram sketch, so that a large table is joined
    in minutes, not hours (two runs can then differ on a few rows); the cosine search is
    always exact.

    Null keys never match (their rows get nulls); non-string keys such as numbers
    are matched through ``str()``. With the combined matcher, a key column of codes,
    numbers or dates (phones, postcodes, years;
    :func:`~pearl.tables.comparisons.field_kind`) is compared by its normalised value, as
    record linkage compares it: a phone written another way meets its partner, and two
    different values have probability at most 0.05. An empty ``left`` gives an empty result with
    all columns; an empty ``right`` leaves every left row unmatched.
    """
    opts = JoinOptions.check(
        on=on,
        left_on=left_on,
        right_on=right_on,
        how=how,
        top_k=top_k,
        threshold=threshold,
        return_score=return_score,
        suffix=suffix,
        batch_size=batch_size,
        matcher=matcher,
        precision=precision,
        one_to_one=one_to_one,
    )
    return joined(left, right, opts, model, right_chunksize, known_matches)[0]


def joined(
    left: Any,
    right: Any,
    opts: JoinOptions,
    model: Any,
    right_chunksize: int | None = None,
    known_matches: Any = None,
) -> tuple[Any, JoinDetails]:
    """:func:`fuzzy_join` with its checked options: the joined table (of ``left``'s kind)
    and the :class:`~pearl.tables.join_output.JoinDetails` it was decided on."""
    if right_chunksize is not None:
        right_chunksize = check_int(right_chunksize, "right_chunksize", 1)
    left_df, kind = to_pandas_table(left, "left")
    if opts.multi:
        out, details = _join_records(left_df, right, opts, model, known_matches)
        return from_pandas_table(out, kind, left), details
    if known_matches is not None:
        raise ValueError(
            "known_matches trains the record-linkage model of a join on several key "
            "columns; with one key column, fine-tune the model instead (pearl finetune)"
        )
    out, details = _join_one_key(left_df, right, opts, model, right_chunksize)
    return from_pandas_table(out, kind, left), details


def _join_one_key(
    left_df: pd.DataFrame,
    right: Any,
    opts: JoinOptions,
    model: Any,
    right_chunksize: int | None,
    reference: Reference | None = None,
) -> tuple[pd.DataFrame, JoinDetails]:
    """The single-key branch of :func:`fuzzy_join` (pandas in and out, with its
    :class:`JoinDetails`); ``reference``: one fitted on ``right``'s key column beforehand
    (:class:`~pearl.tables.joiner.Joiner`), whose keys are then neither encoded nor indexed
    again."""
    left_on, right_on = str(opts.left_on), str(opts.right_on)  # one key column each
    _check_right(right)
    check_unique_columns(left_df, "left")
    if _is_frame(right):
        check_unique_columns(right, "right")
    if left_on not in left_df.columns:
        raise MissingKeyError(f"left has no column {left_on!r}; columns: {list(left_df.columns)}")
    top_k, threshold, precision = opts.top_k, opts.threshold, opts.precision
    if _is_frame(right):
        # before any encoding (a streamed right table is checked once it has been read)
        output_columns(
            left_df.columns, table_columns(right), opts.suffix, opts.return_score, top_k > 1
        )
    encoder = get_encoder(model) if reference is None else reference.encoder_
    scorer = scorer_for(opts.matcher, encoder) if reference is None else reference.scorer_
    lkeys, lnull = to_string_list(left_df[left_on], non_string="str", name=left_on)
    live = np.flatnonzero(~lnull)  # null keys never match: null left keys are not searched
    if _is_frame(right) and right_chunksize is None:
        # the right table whole: a reference fitted on its key column, applied to the left
        right_df = _right_frame(right, right_on)
        if reference is None:
            reference = fit_reference(right_df[right_on], left_df[left_on], encoder, scorer, opts)
        # phones, postcodes, numbers, dates: compared normalised, equal or not
        lkeys = reference.normalise_queries(left_df[left_on])
        queries, inverse = distinct(lkeys[i] for i in live)  # each distinct key once
        ng = None  # the queries' n-gram rows, made once for the search and the decision
        if reference.ngrams_ is not None and len(reference.index_):
            ng = reference.ngrams_.transform(queries)
        li, ls, la = reference.rank_evidence(queries, top_k, ng=ng)
        li, ls, la = li[inverse], ls[inverse], la[inverse]
        # each link's chance of being right estimated on the tables (decision.py)
        decision = None
        if ls.shape[1] and scorer is not None:
            decision = table_decision(reference, ls[:, 0], la[:, 0], queries, ng)
        ls = decided(decision, ls, la)
    else:
        li, ls, inverse, right_df, decision = _streamed(
            left_df[left_on], lkeys, live, right, opts, encoder, scorer, right_chunksize
        )
        li, ls = li[inverse], ls[inverse]
    if scorer is not None and precision is not None:
        best = ls[:, 0] if ls.shape[1] else ls[:, :0].ravel()
        threshold = precision_cut(best, precision, decision)  # as the Dask join
    ids = np.full((len(lkeys), li.shape[1]), -1, dtype=np.int64)
    scores = np.full((len(lkeys), li.shape[1]), -np.inf, dtype=np.float32)
    ids[live], scores[live] = li, ls

    options = dict(how=opts.how, return_score=opts.return_score, suffix=opts.suffix)
    out = finish_join(
        left_df, right_df, ids, scores, rank=top_k > 1, threshold=threshold, **options
    )
    details = JoinDetails(
        ids,
        scores,
        float(threshold),
        scorer is not None,
        left_df[[left_on]].reset_index(drop=True),
        right_df[[right_on]].reset_index(drop=True),
        decision=decision,
    )
    return out, details


def fit_reference(
    keys: pd.Series, queries: pd.Series, encoder: Any, scorer: Any, opts: JoinOptions
) -> Reference:
    """The join's :class:`~pearl.tables.reference.Reference`: the right key column fitted
    (its kind read with the left one), searched as the join searches (exact up to
    :data:`REFERENCE_EXACT_MAX` keys with the combined matcher; the cosine always)."""
    return Reference(
        encoder,
        matcher=scorer if scorer is not None else "cosine",
        batch_size=opts.batch_size,
        exact_max=REFERENCE_EXACT_MAX,
    ).fit(keys, queries=queries)


def _right_frame(right: Any, right_on: str) -> pd.DataFrame:
    """A whole right table as pandas (its rows in order), checked for its key column."""
    frame = _to_pandas(right, "right").reset_index(drop=True)
    if right_on not in frame.columns:
        raise MissingKeyError(f"right has no column {right_on!r}; columns: {list(frame.columns)}")
    return frame


def _streamed(
    left: pd.Series,
    lkeys: list[str],
    live: np.ndarray,
    right: Any,
    opts: JoinOptions,
    encoder: Any,
    scorer: Any,
    right_chunksize: int | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, pd.DataFrame, Any]:
    """The search of a right table read chunk by chunk (an iterable of tables, or
    ``right_chunksize``): each distinct live left key's candidates (right rows) and scores,
    each live key's place among the distinct ones, the right rows read, and the decision
    estimated on the tables (with the combined matcher; else None)."""
    stream = _RightStream(right, str(opts.right_on), right_chunksize)
    # the n-gram weights need every right key: read the chunks' strings first (they are
    # kept for the output anyway); their embeddings are still computed chunk by chunk
    idf = stream.read_all() if scorer is not None else None
    values = False  # phones, postcodes, numbers, dates: compared normalised, equal or not
    if scorer is not None:
        lkeys, idf, values = stream.normalise(left, list(lkeys))
    queries, inverse = distinct(lkeys[i] for i in live)
    decision = None
    if scorer is not None:  # decided on the tables, as the whole-table join decides
        assert idf is not None  # every right key, read above
        li, ls, decision = decided_search(
            queries,
            stream.keys(),
            encoder,
            idf,
            scorer,
            top_k=opts.top_k,
            batch_size=opts.batch_size,
            # exact up to REFERENCE_EXACT_MAX keys a chunk, approximate above (exact
            # n-gram products grow with the square of the table)
            exact_max=REFERENCE_EXACT_MAX,
            values=values,
        )
    else:
        li, ls = match_strings(
            queries, stream.keys(), encoder, top_k=opts.top_k, batch_size=opts.batch_size
        )
    return stream.rows_of(li), ls, inverse, stream.frame(), decision


def _join_records(
    left_df: pd.DataFrame, right: Any, opts: JoinOptions, model: Any, known_matches: Any
) -> tuple[pd.DataFrame, JoinDetails]:
    """The multi-column branch of :func:`fuzzy_join` (record linkage), with its
    :class:`JoinDetails`."""
    from pearl.tables.record_join import multi_column_join

    check_unique_columns(left_df, "left")
    encoder = get_encoder(model)
    return multi_column_join(
        left_df,
        right,
        opts,
        encoder=encoder,
        scorer=scorer_for(opts.matcher, encoder),
        known_matches=known_matches,
        one_key=_join_one_key,
    )
