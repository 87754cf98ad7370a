"""Avg-7 with PPDB and PPDB-filtered as the mean of several probe runs.

The paraphrase tasks train an MLP probe once (the paper's protocol), and that probe
sometimes stops early on a validation plateau, which moves PPDB-filtered by several points
for the same embeddings. This script puts the single-probe scores of full records beside
the N-run means of ``pearl eval -t ppdb,ppdb_filtered --probe-runs N`` records (matched by
model fingerprint; the other five of the seven tasks are deterministic) and writes
results/benchmarks/probe_runs.{json,md}.

    pearl eval -m MODEL -t ppdb,ppdb_filtered --probe-runs 4 -o experiments/results/probe_runs4
    python benchmarks/quality/probe_runs.py --multi experiments/results/probe_runs4 \
        --single results/all-MiniLM-L6-v2.json results/pearl-minilm.json ...
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pearl.evaluation.report import format_score
from pearl.evaluation.runner import averages, task_scores

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"
PROBED = ("ppdb", "ppdb_filtered")


def combine(single: dict, multi: dict) -> dict:
    """One row: single-probe and N-run scores of the paraphrase tasks, and both Avg-7."""
    one, many = task_scores(single["tasks"]), task_scores(multi["tasks"])
    missing = [k for k in PROBED if k not in many]
    if missing:
        raise SystemExit(f"{multi['model']}: no {', '.join(missing)} in the multi-run record")
    row = {
        "model": single["model"],
        "source": single.get("model_source"),
        "avg7_single": averages(one)["avg7"],
        "avg7_multi": averages({**one, **{k: many[k] for k in PROBED}})["avg7"],
    }
    for k in PROBED:
        t = multi["tasks"][k]
        row[k] = {
            "single": one.get(k),
            "mean": t["score"],
            "std": t.get("std"),
            "runs": t["details"].get("runs", [t["score"]]),
            "epochs": t["details"].get("epochs_per_run", [t["details"]["epochs"]]),
        }
    return row


def render(rows: list[dict], n_runs: int, command: str) -> str:
    lines = [
        "# PPDB and PPDB-filtered over several probe runs",
        "",
        f"`{command}`",
        "",
        f"Single: the paper's protocol (one probe, seed 0). Mean: {n_runs} probe runs, "
        "seeds 0..{}; epochs is how long each probe trained (patience 5, at most 100).".format(
            n_runs - 1
        ),
        "",
        "| model | PPDB single | PPDB mean | PPDB-f single | PPDB-f mean | PPDB-f runs "
        "| PPDB-f epochs | Avg-7 single | Avg-7 mean |",
        "|---|---:|---:|---:|---:|---|---|---:|---:|",
    ]
    for r in rows:
        p, f = r["ppdb"], r["ppdb_filtered"]
        lines.append(
            f"| {r['model']} | {format_score(p['single'])} | "
            f"{format_score(p['mean'], p['std'] or 0)} "
            f"| {format_score(f['single'])} | {format_score(f['mean'], f['std'] or 0)} "
            f"| {' / '.join(f'{x:.1f}' for x in f['runs'])} "
            f"| {' / '.join(str(e) for e in f['epochs'])} "
            f"| {format_score(r['avg7_single'])} | {format_score(r['avg7_multi'])} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--multi", required=True, help="folder of --probe-runs records")
    ap.add_argument("--single", nargs="+", required=True, help="full single-probe records")
    ap.add_argument("--out", default=str(OUT / "probe_runs"), help="output path stem")
    ap.add_argument(
        "--match",
        choices=["fingerprint", "model"],
        default="fingerprint",
        help="pair records by model fingerprint (default) or by model name "
        "(for records made before the fingerprint covered every file's content)",
    )
    args = ap.parse_args()
    key = "fingerprint" if args.match == "fingerprint" else "model"
    multi = {}
    for p in sorted(Path(args.multi).glob("*.json")):
        rec = json.loads(p.read_text(encoding="utf-8"))
        multi[rec.get(key)] = rec
    rows, n_runs = [], 0
    for path in args.single:
        rec = json.loads(Path(path).read_text(encoding="utf-8"))
        match = multi.get(rec.get(key))
        if match is None:
            raise SystemExit(f"no multi-run record with the {key} of {path}")
        rows.append(combine(rec, match))
        n_runs = max(n_runs, len(rows[-1]["ppdb_filtered"]["runs"]))
    command = (
        "python benchmarks/quality/probe_runs.py --multi "
        + args.multi
        + " --single "
        + " ".join(args.single)
        + (f" --match {args.match}" if key == "model" else "")
        + (f" --out {args.out}" if args.out != str(OUT / "probe_runs") else "")
    )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(
        json.dumps({"command": command, "rows": rows}, indent=2), encoding="utf-8"
    )
    md = render(rows, n_runs, command)
    out.with_suffix(".md").write_text(md, encoding="utf-8")
    print(md)


if __name__ == "__main__":
    main()
