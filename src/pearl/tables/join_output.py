"""The joined table a fuzzy join returns: the right columns renamed apart from the left
ones (:func:`output_columns`), the match columns named apart (:func:`match_names`), and
the rows assembled from each left row's ranked candidates (:func:`assemble_join`,
:func:`finish_join`). Shared by the single-key join, record linkage and the Dask join."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["JoinDetails", "assemble_join", "finish_join", "match_names", "output_columns"]


@dataclass(frozen=True)
class JoinDetails:
    """What a join decided on, beside the joined table (for a report).

    Attributes
    ----------
    ids, scores : ndarray of shape (n_left, k)
        Each left row's ranked right rows (-1: none) and their ``match_score``
        (``-inf``: none).
    threshold : float
        The decision point (``threshold=``, or the one ``precision=`` chose).
    probability : bool
        Whether the scores are match probabilities (not cosines).
    left_keys, right_keys : DataFrame
        The key columns of both tables, in the order ``ids`` index them.
    model : FellegiSunter or None
        The record-linkage model of a join on several key columns (how each pair of key
        columns was compared: ``model.kinds_``).
    decision : TableDecision or None
        The one-key join's decision estimated on the tables
        (:mod:`pearl.tables.decision`): ``scores`` are then each link's chance of being
        right.
    """

    ids: np.ndarray
    scores: np.ndarray
    threshold: float
    probability: bool
    left_keys: pd.DataFrame
    right_keys: pd.DataFrame
    model: Any = None
    decision: Any = None


def assemble_join(
    left_df: pd.DataFrame,
    right_df: pd.DataFrame,
    ids: np.ndarray,
    scores: np.ndarray,
    *,
    threshold: float,
    how: str,
    return_score: bool,
    add_rank: bool,
    names: dict[str, str] | None = None,
) -> pd.DataFrame:
    """The joined table from each left row's top-k right row ids and scores.

    ``right_df`` is indexed by the ids in ``ids`` (its columns already renamed); a left row
    whose matches all fall below ``threshold`` keeps empty right columns (``how="left"``)
    or is dropped (``how="inner"``).
    """
    rows: list[int] = []
    right_rows: list[int] = []
    score_col: list[float] = []
    rank_col: list[float] = []
    top_k = ids.shape[1]
    for i in range(len(ids)):
        matched = False
        for r in range(top_k):
            j, s = ids[i, r], scores[i, r]
            if j >= 0 and s >= threshold:
                rows.append(i)
                right_rows.append(j)
                score_col.append(float(s))
                rank_col.append(r + 1)
                matched = True
        if not matched and how == "left":
            rows.append(i)
            right_rows.append(-1)
            score_col.append(np.nan)
            rank_col.append(np.nan)
    out_left = left_df.iloc[rows].reset_index(drop=True)
    out_right = right_df.reindex(np.asarray(right_rows, dtype=np.int64)).reset_index(drop=True)
    out = pd.concat([out_left, out_right], axis=1)
    names = names or {"score": "match_score", "rank": "match_rank"}
    if return_score:
        out[names["score"]] = pd.Series(score_col, dtype="float64")
    if add_rank:
        out[names["rank"]] = pd.Series(rank_col, dtype="Int64")
    return out


def output_columns(left_cols, right_cols, suffix: str, score: bool, rank: bool) -> dict[str, str]:
    """The renaming of the right columns; a clash that would overwrite or duplicate an
    input column is a ``ValueError`` naming it (the match columns are named apart by
    :func:`match_names`). ``score`` and ``rank`` are kept for callers of the old
    signature."""
    left_cols, right_cols = list(left_cols), list(right_cols)
    rename = {c: f"{c}{suffix}" for c in right_cols if c in left_cols}
    final_right = [rename.get(c, c) for c in right_cols]
    clashes = sorted({c for c in final_right if c in left_cols or final_right.count(c) > 1})
    if clashes:
        raise ValueError(
            f"the joined table would have two columns named {clashes}: rename those columns "
            f"of the inputs, or pass another suffix (now {suffix!r})"
        )
    return rename


def match_names(columns, score: bool = True, rank: bool = True) -> dict[str, str]:
    """The names of the columns a join adds: ``match_score`` and ``match_rank``, or, where
    the table already has them (a join of a joined table), ``match_score_2``,
    ``match_score_3``... so that an added column never replaces or duplicates another."""
    taken, names = {str(c) for c in columns}, {}
    for key, base, wanted in (("score", "match_score", score), ("rank", "match_rank", rank)):
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}_{n}"
        names[key] = name
        if wanted:
            taken.add(name)
    return names


def finish_join(left_df, right_df, ids, scores, *, threshold, how, return_score, suffix, rank):
    """The joined table: ``right_df``'s columns renamed apart from ``left_df``'s (with
    ``suffix``), the match columns named apart (``rank``: add ``match_rank``), then
    :func:`assemble_join`."""
    right_df = right_df.rename(
        columns=output_columns(left_df.columns, right_df.columns, suffix, return_score, rank)
    )
    names = match_names([*left_df.columns, *right_df.columns], return_score, rank)
    return assemble_join(
        left_df,
        right_df,
        ids,
        scores,
        threshold=threshold,
        how=how,
        return_score=return_score,
        add_rank=rank,
        names=names,
    )
