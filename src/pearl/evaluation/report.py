"""Result files: one JSON per model, and a markdown table over all of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from pearl._io import read_json, write_text_atomic
from pearl.evaluation.published import PUBLISHED_PHRASE, PUBLISHED_SHORT_TEXT, PUBLISHED_SIZE
from pearl.evaluation.resume import record_path
from pearl.evaluation.runner import averages, task_scores
from pearl.evaluation.tasks import PHRASE_TASKS, SHORT_TEXT_TASKS, TASKS

__all__ = ["save_record", "load_records", "render_markdown", "write_report"]


def save_record(record: dict[str, Any], out_dir: str | Path) -> Path:
    """Write ``<out_dir>/<model>.json``, replacing an earlier run of the same model.

    Parameters
    ----------
    record : dict
        A record of :func:`pearl.evaluate`.
    out_dir : path-like

    Returns
    -------
    Path
        The file written.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = record_path(record, out_dir)
    try:
        old = read_json(path, "result record") if path.is_file() else None
    except OSError:
        old = None  # an unreadable earlier record is replaced, not merged
    old = old if isinstance(old, dict) else None
    if (
        old
        and old.get("fingerprint") == record.get("fingerprint")
        and old.get("quick") == record.get("quick")
    ):
        # keep tasks of earlier runs that this run did not repeat
        merged = dict(old.get("tasks", {}))
        merged.update(record["tasks"])
        record = {**record, "tasks": merged}
        record["averages"] = averages(task_scores(merged))
    write_text_atomic(path, json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    return path


def load_records(out_dir: str | Path) -> list[dict[str, Any]]:
    """All result records in a folder: baselines without parameters first, then by size.

    Parameters
    ----------
    out_dir : path-like

    Returns
    -------
    list of dict

    Raises
    ------
    ValueError
        For a JSON file that is not a pearl record.
    """
    records = []
    for p in sorted(Path(out_dir).glob("*.json")):
        try:
            record = read_json(p, "result record")
        except OSError as exc:
            raise ValueError(f"unreadable result record {p}: {exc}") from exc
        if (
            not isinstance(record, dict)
            or not isinstance(record.get("model"), str)
            or not isinstance(record.get("tasks", {}), dict)
        ):
            raise ValueError(f"{p} is not a pearl result record (no 'model' and 'tasks')")
        records.append(record)
    return sorted(
        records,
        key=lambda r: (r.get("parameters") or 0, r["model"] != "String Distance", r["model"]),
    )


def format_score(v: float | None, std: float | None = None) -> str:
    """A score as the tables print it: one decimal, "± std" when given, "–" when None."""
    if v is None:
        return "–"
    return f"{v:.1f}" if std is None else f"{v:.1f} ± {std:.1f}"


def _size(params: int | None) -> str:
    return "-" if not params else f"{params / 1e6:.1f}M"


def probe_runs(record: dict[str, Any]) -> int | None:
    """How many probe runs a record's PPDB / PPDB-filtered scores average (None: neither
    task was run)."""
    for key in ("ppdb", "ppdb_filtered"):
        res = record.get("tasks", {}).get(key, {})
        if res.get("status") == "ok":
            return len(res.get("details", {}).get("runs") or [None])
    return None


def seed0_scores(record: dict[str, Any]) -> dict[str, float]:
    """A record's task scores with PPDB / PPDB-filtered as their seed-0 probe alone (the
    paper's single-probe protocol), so a five-probe record compares with a single-probe one."""
    scores = task_scores(record.get("tasks", {}))
    for key in ("ppdb", "ppdb_filtered"):
        first = record.get("tasks", {}).get(key, {}).get("details", {}).get("first_run")
        if key in scores and first is not None:
            scores[key] = float(first)
    return scores


def _probe_note(records: list[dict[str, Any]]) -> list[str]:
    """A line saying which measured rows use which PPDB protocol, when they differ."""
    by: dict[int, list[str]] = {}
    for r in records:
        n = probe_runs(r)
        if n is not None:
            by.setdefault(n, []).append(r["model"])
    if len(by) < 2:
        return []
    parts = [
        f"{'the single probe (seed 0)' if n == 1 else f'the mean of {n} probe runs'}: "
        f"{', '.join(names)}"
        for n, names in sorted(by.items())
    ]
    return ["", "PPDB and PPDB-f of the measured rows: " + "; ".join(parts) + "."]


def render_markdown(records: list[dict[str, Any]], published: bool = True) -> str:
    """Markdown tables: phrase tasks, short-text tasks, and wall time per task.

    Parameters
    ----------
    records : list of dict
        From :func:`load_records`.
    published : bool, default=True
        Add the paper's published rows.

    Returns
    -------
    str
    """
    quick = any(r.get("quick") for r in records)
    lines: list[str] = []
    if quick:
        lines += [
            "**QUICK RUN: every task subsampled (`--quick`); these figures are a smoke "
            "test, not comparable with full runs or with the paper.**",
            "",
        ]
    lines += _phrase_section(records, published)
    lines += _short_text_section(records, published)
    lines += _wall_time_section(records)
    return "\n".join(lines) + "\n"


def _phrase_section(records: list[dict[str, Any]], published: bool) -> list[str]:
    lines: list[str] = []
    cols = [TASKS[k].column for k in PHRASE_TASKS]
    lines += [
        "### Phrase tasks",
        "",
        "| Model | Size | Source | " + " | ".join(cols) + " | Avg-7 | Avg-9 |",
        "|---|---|---|" + "---:|" * (len(cols) + 2),
    ]
    for r in records:
        t = r["tasks"]
        cells = [
            format_score(t[k]["score"])
            if t.get(k, {}).get("status") == "ok"
            else ("n/a" if t.get(k, {}).get("status") == "n/a" else "–")
            for k in PHRASE_TASKS
        ]
        av = r.get("averages", {})
        lines.append(
            f"| {r['model']} | {_size(r.get('parameters'))} | measured | "
            + " | ".join(cells)
            + f" | {format_score(av.get('avg7'))} | "
            f"{format_score(av.get('avg9'))} |"
        )
    if published:
        for name, row in PUBLISHED_PHRASE.items():
            av = averages(row)
            cells = [format_score(row.get(k)) for k in PHRASE_TASKS]
            lines.append(
                f"| {name} | {PUBLISHED_SIZE[name]} | published | "
                + " | ".join(cells)
                + f" | {format_score(av['avg7'])} | {format_score(av['avg9'])} |"
            )
    lines += _probe_note(records)
    lines += [
        "",
        "Scores in percent: accuracy (PPDB, PPDB-f, Turney, YAGO, UMLS, AutoFJ), Pearson r x 100 "
        "(BIRD), NMI x 100 (CoNLL-03, BC5CDR). Avg-7: mean over the seven datasets whose files "
        "are the paper's own (all but YAGO and UMLS); Avg-9: mean over all nine. "
        "\\* measured YAGO/UMLS use the stand-in dictionaries (158,868 / 90,618 names), the "
        "published ones the paper's 572K / 750K-name dictionaries, so those columns are not "
        "comparable. Averages of published rows are recomputed here from their per-dataset "
        "figures; the paper's own Avg column differs for some rows (e.g. E5-base 61.1, "
        "Phrase-BERT 54.5 in the paper). n/a: String Distance has no embeddings and only "
        "takes part in the tasks "
        "that compare pairs of strings (Turney, BIRD, YAGO, UMLS, AutoFJ). Published rows are "
        "copied from the paper's Table 1, not measured here.",
        "",
    ]
    missing = [
        (r["model"], [TASKS[k].column for k in PHRASE_TASKS if k not in r["tasks"]])
        for r in records
    ]
    missing = [(m, cols) for m, cols in missing if cols]
    if missing:
        lines += [
            "– in a measured row: not run for that model ("
            + "; ".join(f"{m}: {', '.join(c)}" for m, c in missing)
            + ").",
            "",
        ]
    return lines


def _short_text_section(records: list[dict[str, Any]], published: bool) -> list[str]:
    lines: list[str] = []
    scols = [TASKS[k].column for k in SHORT_TEXT_TASKS]
    lines += [
        "### Short-text classification",
        "",
        "| Model | Source | " + " | ".join(scols) + " | Avg |",
        "|---|---|" + "---:|" * (len(scols) + 1),
    ]
    for r in records:
        t = r["tasks"]
        if not any(t.get(k, {}).get("status") == "ok" for k in SHORT_TEXT_TASKS):
            continue
        cells = [
            format_score(t[k]["score"], t[k].get("std"))
            if t.get(k, {}).get("status") == "ok"
            else "–"
            for k in SHORT_TEXT_TASKS
        ]
        lines.append(
            f"| {r['model']} | measured | "
            + " | ".join(cells)
            + f" | {format_score(r.get('averages', {}).get('short_text'))} |"
        )
    if published:
        for name, row in PUBLISHED_SHORT_TEXT.items():
            cells = [format_score(*row[k]) for k in SHORT_TEXT_TASKS]
            avg = float(np.mean([row[k][0] for k in SHORT_TEXT_TASKS]))
            lines.append(
                f"| {name} | published | " + " | ".join(cells) + f" | {format_score(avg)} |"
            )
    lines += [
        "",
        "Mean ± std of test accuracy over 10 seeded runs. The measured sets are built from the "
        "offline copies (TweetEval sentiment, 3 classes; ATIS, 8 intents) split by length at "
        "the median; the paper's Twitter corpus is a different one, so measured and published "
        "rows are not directly comparable.",
        "",
    ]
    return lines


def _wall_time_section(records: list[dict[str, Any]]) -> list[str]:
    lines = [
        "### Wall time per task (seconds, including encoding not yet cached)",
        "",
        "| Model | " + " | ".join(TASKS[k].column for k in TASKS) + " |",
        "|---|" + "---:|" * len(TASKS),
    ]
    for r in records:
        t = r["tasks"]
        cells = [
            f"{t[k]['wall_time_s']:.0f}" if t.get(k, {}).get("status") == "ok" else "–"
            for k in TASKS
        ]
        lines.append(f"| {r['model']} | " + " | ".join(cells) + " |")
    errors = [
        (r["model"], k, v["error"])
        for r in records
        for k, v in r["tasks"].items()
        if v.get("status") == "error"
    ]
    if errors:
        lines += ["", "### Errors", ""] + [f"- {m} / {k}: {e}" for m, k, e in errors]
    return lines


def write_report(out_dir: str | Path, name: str = "results.md") -> Path:
    """Render every record in ``out_dir`` into ``out_dir/<name>``.

    Parameters
    ----------
    out_dir : path-like
    name : str, default="results.md"

    Returns
    -------
    Path
        The report written.
    """
    records = load_records(out_dir)
    path = Path(out_dir) / name
    write_text_atomic(path, render_markdown(records))
    return path
