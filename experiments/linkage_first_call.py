"""The first multi-column linkage call of a fresh process against splink's (issue 54's
speed target, pearl-static): ``--runs`` fresh processes, each warms up as
``linkage_unmatched.py`` does (libraries imported and the model loaded by a join of 20
other people), then times pearl's first and second call on ``--people`` x ``--people``
synthetic people (the default decision point, then ``precision=0.9``) and splink's run
(its settings in ``linkage_unmatched.run_splink``), the three in the same process.

    python experiments/linkage_first_call.py --people 10000 --runs 8   # needs splink

Writes ``experiments/results/linkage_first_call.{md,json}``. Run it with nothing else
on the machine (pause a background run with SIGSTOP).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "results"
KEYS = ["first", "surname", "city", "dob"]


def one_run(n: int) -> dict:
    """The three times of one fresh process (this one)."""
    from pearl_lab.synthetic import people

    sys.path.insert(0, str(HERE))
    import linkage_unmatched as lu

    lu.warm_up("pearl-static", single=False)
    a, b, true = people(n)
    rows = lu.run(a, b, KEYS, true, "pearl-static")
    splink = lu.run_splink(a, b, true)
    return {
        "pearl, first call": rows[0]["seconds"],
        "pearl, second call": rows[1]["seconds"],
        "splink": splink["seconds"],
        "pearl F1": rows[0]["f1"],
        "splink F1": splink["f1"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--people", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one_run(args.people)))
        return
    runs = []
    for _ in range(args.runs):
        cmd = [sys.executable, __file__, "--one", "--people", str(args.people)]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        runs.append(json.loads(out.strip().splitlines()[-1]))
        print(runs[-1], flush=True)
    OUT.mkdir(exist_ok=True)
    (OUT / "linkage_first_call.json").write_text(json.dumps(runs, indent=1) + "\n")
    lines = [
        "# Multi-column linkage: pearl-static's first call against splink",
        "",
        f"`python experiments/linkage_first_call.py --people {args.people} --runs {args.runs}`:"
        f" {args.people:,} x {args.people:,} synthetic people, {args.runs} fresh processes,"
        " each after a warm-up join of 20 other people; seconds of wall time.",
        "",
        "| what | median | min | max |",
        "|---|---:|---:|---:|",
    ]
    for key in ("pearl, first call", "pearl, second call", "splink"):
        xs = [r[key] for r in runs]
        lines.append(f"| {key} | {statistics.median(xs):.2f} | {min(xs):.2f} | {max(xs):.2f} |")
    worse = sum(r["pearl, first call"] > r["splink"] for r in runs)
    lines += [
        "",
        f"pearl's first call took longer than splink's in {worse} of {args.runs} processes;"
        f" F1 {runs[0]['pearl F1']:.4f} (pearl) and {runs[0]['splink F1']:.4f} (splink).",
    ]
    (OUT / "linkage_first_call.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
