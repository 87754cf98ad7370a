"""A benchmark run started again: the tasks an earlier record of the same model and
settings holds are kept, not run (``pearl eval`` after Ctrl-C, SIGTERM or a crash)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

from pearl._io import read_json

__all__ = ["record_path", "resume_tasks"]


def record_path(record: dict[str, Any], out_dir: str | os.PathLike) -> Path:
    """Where a results folder holds the record of ``record``'s model (``<model>.json``)."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", record["model"]).strip("_") or "model"
    return Path(out_dir) / f"{slug}.json"


def resume_tasks(
    folder: str | os.PathLike | None, record: dict[str, Any], keys: list[str], say: bool
) -> list[str]:
    """The tasks of ``keys`` to run: those the record of this model in ``folder`` does not
    hold as finished with the same model and settings (the ones it holds are put into
    ``record``); with ``say``, one line on standard error says what the run will do."""
    finished, estimate = _finished(folder, record, keys)
    todo = [k for k in keys if k not in finished]
    if say:
        from tqdm.auto import tqdm

        tqdm.write(_plan(record["model"], todo, finished, estimate), file=sys.stderr)
    record["tasks"].update(finished)
    return todo


#: what two records must share for a task of one to stand for the other's
_SETTINGS = ("fingerprint", "quick", "seed", "retrieval_index")


def _finished(
    folder: str | os.PathLike | None, record: dict[str, Any], keys: list[str]
) -> tuple[dict[str, Any], float | None]:
    """The tasks of ``keys`` that the record of this model in ``folder`` holds as finished
    with the same model and settings, and the seconds the others took there (None where
    it has no time for one of them)."""
    if folder is None:
        return {}, None
    path = record_path(record, folder)
    try:
        old = read_json(path, "result record") if path.is_file() else None
    except OSError:
        return {}, None  # an unreadable record: every task is run (and the record replaced)
    if not isinstance(old, dict) or record["fingerprint"] is None:
        return {}, None
    same = all(old.get(f) == record[f] for f in _SETTINGS) and old.get("seeds") == record["seeds"]
    tasks = old.get("tasks") if same and isinstance(old.get("tasks"), dict) else None
    if tasks is None:
        return {}, None
    done = {k: v for k, v in tasks.items() if k in keys and isinstance(v, dict)}
    done = {k: v for k, v in done.items() if v.get("status") == "ok"}
    times = [
        t.get("wall_time_s") if isinstance(t := tasks.get(k), dict) else None
        for k in keys
        if k not in done
    ]
    seconds = [float(t) for t in times if isinstance(t, int | float)]
    return done, sum(seconds) if seconds and len(seconds) == len(times) else None


def _plan(model: str, todo: list[str], finished: dict[str, Any], estimate: float | None) -> str:
    """One line saying what a run will do (and about how long, where an earlier run of the
    same tasks says it)."""
    line = f"pearl eval {model}: {len(todo)} task(s) to run"
    if todo:
        line += f" ({', '.join(todo)})"
    if finished:
        line += f"; {len(finished)} already done with this model and these settings, kept"
    if estimate is not None and todo:
        line += f"; about {max(1, round(estimate / 60))} min by the earlier run's times"
    return line
