"""Deduplication on real names: the 50 AutoFJ datasets turned into deduplication tasks.

Each dataset's left and right titles form one column; the clusters come from the ground
truth (a right title belongs to the cluster of the left title it matches; every other
title is its own cluster). Each method clusters the column without labels (its defaults)
and is scored by pairwise precision, recall and F1 over the rows, with its wall time
(encoding included). Evaluation only: nothing is chosen on these files. skrub's
``deduplicate`` runs on the datasets of at most ``--skrub-max`` titles (its cost grows
faster than quadratically). Writes results/benchmarks/dedup_autofj.{md,json}.

    python benchmarks/quality/dedup_autofj.py [--data ../shared/data] [--skrub-max 2000]
        [--methods skrub,pearl-static]

``--methods``: only the methods whose label contains one of these words (the full run
with the transformers takes over an hour here); the files are then named
dedup_autofj_<words>.{md,json}. ``--resume``: a stopped run goes on from its partial file
(the rows done are kept, their times included).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from dedup_typos import methods  # the same methods as on the typo tasks (this folder)
from pearl_lab import data_root

from pearl.evaluation.pairs import pairwise_cluster_scores
from pearl.evaluation.tasks.autofj import dataset_names, load_autofj

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"


def make_task(folder: Path) -> tuple[list[str], list[str]]:
    """The titles of both sides and the true cluster of each."""
    left, right, truth = load_autofj(folder)
    values = left + right
    clusters = [f"L:{t}" for t in left] + [
        f"L:{truth[t]}" if t in truth else f"R:{t}" for t in right
    ]
    return values, clusters


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=None, help="data root (default: pearl.paths)")
    ap.add_argument("--skrub-max", type=int, default=2000)
    ap.add_argument("--limit", type=int, default=0, help="first N datasets only (smoke run)")
    ap.add_argument("--methods", default="", help="comma-separated words of method labels")
    ap.add_argument(
        "--resume", action="store_true", help="keep the rows of a stopped run's partial file"
    )
    args = ap.parse_args()
    words = [w for w in args.methods.split(",") if w]
    stem = "dedup_autofj" + ("_" + "_".join(words) if words else "")
    root = (args.data / "benchmark" if args.data else (data_root() / "benchmark")) / "autofj"
    names = dataset_names(root)[: args.limit or None]
    partial = OUT / f"{stem}.partial.json"
    rows = json.loads(partial.read_text())["rows"] if args.resume and partial.is_file() else []
    done = {(r["dataset"], r["method"]) for r in rows}
    for name in names:
        values, truth = make_task(root / "benchmark" / name)
        for label, run in methods(skrub=len(values) <= args.skrub_max).items():
            if words and not any(w in label for w in words) or (name, label) in done:
                continue
            t = time.perf_counter()
            pred = run(values)
            seconds = time.perf_counter() - t
            rows.append(
                {
                    "dataset": name,
                    "values": len(values),
                    "method": label,
                    **pairwise_cluster_scores(pred, truth),
                    "seconds": round(seconds, 2),
                }
            )
            print(rows[-1], flush=True)
        OUT.mkdir(parents=True, exist_ok=True)  # what is done so far survives a stop
        partial.write_text(json.dumps({"rows": rows}) + "\n")
    partial.unlink(missing_ok=True)
    command = (
        f"python benchmarks/quality/dedup_autofj.py --skrub-max {args.skrub_max}"
        + (f" --limit {args.limit}" if args.limit else "")
        + (f" --methods {args.methods}" if words else "")
    )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{stem}.json").write_text(
        json.dumps({"command": command, "rows": rows}, indent=2) + "\n"
    )
    (OUT / f"{stem}.md").write_text(render(rows, command, len(names)))
    print(render(rows, command, len(names)))


def render(rows: list[dict], command: str, n_datasets: int) -> str:
    by_method: dict[str, list[dict]] = {}
    for r in rows:
        by_method.setdefault(r["method"], []).append(r)
    skrub_sets = {r["dataset"] for r in by_method.get("skrub deduplicate (defaults)", [])}
    lines = [
        "# Deduplication of the AutoFJ titles",
        "",
        f"`{command}`: {n_datasets} AutoFJ datasets, each dataset's left and right titles "
        "as one column, clusters from the ground truth; pairwise scores over rows; mean over "
        "the datasets (evaluation only). Seconds include encoding.",
        "",
        "| method | datasets | precision | recall | F1 | seconds (sum) |"
        + f" F1 on the {len(skrub_sets)} datasets skrub ran on | seconds there |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for method, rs in by_method.items():
        sub = [r for r in rs if r["dataset"] in skrub_sets]
        lines.append(
            f"| {method} | {len(rs)} | {np.mean([r['precision'] for r in rs]):.3f} | "
            f"{np.mean([r['recall'] for r in rs]):.3f} | {np.mean([r['f1'] for r in rs]):.3f} | "
            f"{sum(r['seconds'] for r in rs):.0f} | "
            + (
                f"{np.mean([r['f1'] for r in sub]):.3f} | {sum(r['seconds'] for r in sub):.0f} |"
                if sub
                else "– | – |"
            )
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
