"""Labelling a join's borderline pairs by hand (``pearl review``): each pair nearest the
decision threshold is shown, the answer (yes, no, skip) recorded, and the labels saved as
a table that both ``fuzzy_join(known_matches=...)`` (``pearl join --known-matches``) and
``pearl finetune`` read, so that the labels move the next estimate.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from pearl._terminal import printable
from pearl.tables.report import JoinReport

__all__ = ["REVIEW_COLUMNS", "review_pairs", "check_review_table", "whole_numbers"]

#: the columns of a review file: the rows' positions (0 = the first data row), their key
#: values joined by spaces (``pearl finetune``'s ``left, right, label``), the answer (1: the
#: same entity, 0: not) and the score the join gave
REVIEW_COLUMNS = ["left_row", "right_row", "left", "right", "label", "match_score"]

ANSWERS = {"y": 1, "yes": 1, "n": 0, "no": 0, "s": None, "skip": None}


def check_review_table(table: pd.DataFrame, name: str = "review file") -> pd.DataFrame:
    """``table`` as a review table (the :data:`REVIEW_COLUMNS`, integer rows and 0/1
    labels), or a ``ValueError`` naming what is wrong."""
    missing = [c for c in REVIEW_COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(
            f"{name} is not a review file: no column(s) {missing} (a review file has "
            f"{REVIEW_COLUMNS})"
        )
    out = table[REVIEW_COLUMNS].copy()
    for c in ("left_row", "right_row", "label"):
        out[c] = whole_numbers(out[c], f"{name}: left_row, right_row and label")
    if not out["label"].isin([0, 1]).all():
        raise ValueError(f"{name}: label must be 0 or 1")
    return out


def whole_numbers(values: pd.Series, what: str) -> np.ndarray:
    """``values`` as int64, or a ``ValueError`` starting with ``what`` and showing the
    first value that is not a whole number: row 1.5 is an error, never row 1."""
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(np.float64)
    whole = np.isfinite(numbers) & (numbers == np.round(numbers)) & (np.abs(numbers) < 2**53)
    if not whole.all():
        bad = values.iloc[int(np.flatnonzero(~whole)[0])]
        raise ValueError(f"{what} must be integers (not {bad!r})")
    return numbers.astype(np.int64)


def _text(keys: pd.DataFrame, row: int) -> str:
    values = [str(v) for v in keys.iloc[row].tolist() if not pd.isna(v) and str(v).strip()]
    return " ".join(values)


def _show(keys: pd.DataFrame, row: int) -> str:
    """A row's key values as the reviewer sees them: control characters escaped, so that
    a cell cannot conceal, move or rewrite what the terminal shows."""
    return " | ".join(
        f"{printable(c)}={'' if pd.isna(v) else printable(v)}" for c, v in keys.iloc[row].items()
    )


def review_pairs(
    report: JoinReport,
    n: int = 20,
    *,
    ask: Callable[[str], str] = input,
    show: Callable[[str], None] = print,
    labelled: pd.DataFrame | None = None,
    save: Callable[[pd.DataFrame], None] | None = None,
) -> pd.DataFrame:
    """Ask about the ``n`` pairs nearest the threshold that are not labelled yet.

    Parameters
    ----------
    report : JoinReport
        The join (:func:`~pearl.tables.report.join_report`).
    n : int, default=20
        Pairs to ask about in this session.
    ask : callable, default=input
        Takes the prompt and returns the answer: ``y``/``yes`` (the same entity),
        ``n``/``no``, ``s``/``skip`` (not recorded), ``q``/``quit`` (stop); anything else
        asks again. End of input (``EOFError``) or Ctrl-C stops, as ``q`` does, and
        keeps the answers given.
    show : callable, default=print
        Shows each pair.
    labelled : DataFrame, optional
        Labels of an earlier session (a review table): kept, and their pairs not asked
        again.
    save : callable, optional
        Called with the labels so far (the returned table's form) after every answer that
        is recorded, so that a session killed between questions (a closed terminal, a
        signal) loses no answer given (``pearl review`` writes its file so).

    Returns
    -------
    DataFrame
        The earlier labels and the new ones (:data:`REVIEW_COLUMNS`).
    """
    done = (
        check_review_table(labelled)
        if labelled is not None
        else pd.DataFrame({c: pd.Series(dtype="int64") for c in REVIEW_COLUMNS})
    )
    seen = set(zip(done["left_row"], done["right_row"], strict=True))
    d = report.details
    s = report.best_scores
    rows = np.flatnonzero(~np.isnan(s))
    rows = rows[np.argsort(np.abs(s[rows] - d.threshold), kind="stable")]
    todo = [int(i) for i in rows if (int(i), int(d.ids[i, 0])) not in seen][:n]
    new = []
    for k, i in enumerate(todo):
        j = int(d.ids[i, 0])
        decision = "linked" if s[i] >= d.threshold else "not linked"
        show(
            f"\n[{k + 1}/{len(todo)}] match_score {s[i]:.3f} ({decision} at {d.threshold:.3g})\n"
            f"  left  row {i}: {_show(d.left_keys, i)}\n  right row {j}: {_show(d.right_keys, j)}"
        )
        answer = _ask(ask)
        if answer == "quit":
            break
        if answer is not None:
            left, right = _text(d.left_keys, i), _text(d.right_keys, j)
            new.append((i, j, left, right, answer, float(s[i])))
            if save is not None:
                save(_labels(done, new))
    return _labels(done, new)


def _labels(done: pd.DataFrame, new: list[tuple]) -> pd.DataFrame:
    """The earlier labels and the new answers, as one review table."""
    fresh = pd.DataFrame(new, columns=REVIEW_COLUMNS)
    return pd.concat([done, fresh], ignore_index=True) if len(done) else fresh


def _ask(ask: Callable[[str], str]) -> int | str | None:
    """1, 0, None (skip) or "quit"."""
    while True:
        try:
            answer = ask("same entity? [y]es / [n]o / [s]kip / [q]uit: ").strip().lower()
        except (EOFError, KeyboardInterrupt):  # what was answered is kept
            return "quit"
        if answer in ("q", "quit"):
            return "quit"
        if answer in ANSWERS:
            return ANSWERS[answer]
