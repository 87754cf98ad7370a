"""Many tables joined against one register: ``fuzzy_join`` on each against ``pearl.Joiner``
fitted once.

The register is ``--right`` synthetic companies (``pearl_lab.synthetic.companies``, seed
5: names, typos and other legal suffixes; no benchmark file), the left tables its left
side cut into ``--tables`` parts. Each way joins every part on the company name with the
model's defaults; the figure is the wall time of all the joins (the Joiner's ``fit``
included), the best of ``--repeat`` runs, each run after the process cache of embeddings
is emptied (the model stays loaded). The outputs of the two ways are compared cell for
cell. Run it while nothing else runs. Writes results/benchmarks/fitted_reference.{md,json}.

    python benchmarks/speed/fitted_reference.py [--models pearl-static,pearl-minilm]
        [--right 20000,5000] [--tables 4] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

from pearl_lab.synthetic import companies

import pearl
from pearl.tables import clear_caches

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"


def run(model: str, n_right: int, n_tables: int, repeat: int) -> dict:
    """Both ways on one model and register size: times, and whether the outputs agree."""
    left, right, _ = companies(n_right, seed=5)
    parts = [left.iloc[i::n_tables].reset_index(drop=True) for i in range(n_tables)]
    pearl.fuzzy_join(parts[0].head(5), right.head(5), on="name", model=model)  # load
    each, fitted = [], []
    for _ in range(repeat):
        clear_caches(models=False)
        t = time.perf_counter()
        one = [pearl.fuzzy_join(p, right, on="name", model=model) for p in parts]
        each.append(time.perf_counter() - t)
        clear_caches(models=False)
        t = time.perf_counter()
        joiner = pearl.Joiner(right, on="name", model=model).fit(parts[0])
        two = [joiner.transform(p) for p in parts]
        fitted.append(time.perf_counter() - t)
    same = all(a.equals(b) for a, b in zip(one, two, strict=True))
    return {
        "model": model,
        "right_rows": n_right,
        "left_tables": n_tables,
        "left_rows_each": len(parts[0]),
        "fuzzy_join_each_s": round(min(each), 2),
        "joiner_s": round(min(fitted), 2),
        "ratio": round(min(fitted) / min(each), 3),
        "same_output": same,
        "links": int(sum(t["match_score"].notna().sum() for t in one)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="pearl-static,pearl-minilm")
    ap.add_argument("--right", default="20000,5000", help="register rows, one per model")
    ap.add_argument("--tables", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    models, sizes = args.models.split(","), [int(n) for n in args.right.split(",")]
    rows = []
    for model, n in zip(models, sizes, strict=True):
        rows.append(run(model, n, args.tables, args.repeat))
        print(rows[-1], flush=True)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    command = " ".join(["python", "benchmarks/speed/fitted_reference.py", *sys.argv[1:]])
    record = {"command": command, "commit": commit, "date": time.strftime("%Y-%m-%d")}
    record["rows"] = rows
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "fitted_reference.json").write_text(json.dumps(record, indent=2) + "\n")
    lines = [
        "# Many tables against one register: `fuzzy_join` each time, or `Joiner` fitted once",
        "",
        f"`{command}` at commit {commit}, {record['date']}. Synthetic companies "
        "(`pearl_lab.synthetic.companies`, seed 5); the left side cut into "
        f"{args.tables} tables, each joined on the name with the defaults; wall time of "
        f"all the joins, best of {args.repeat} (the Joiner's `fit` included).",
        "",
        "| model | register rows | left tables x rows | fuzzy_join each | Joiner fit + "
        "transforms | ratio | same output | links |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['model']} | {r['right_rows']:,} | {r['left_tables']} x "
            f"{r['left_rows_each']:,} | {r['fuzzy_join_each_s']} s | {r['joiner_s']} s | "
            f"{r['ratio']} | {'yes' if r['same_output'] else 'NO'} | {r['links']:,} |"
        )
    (OUT / "fitted_reference.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
