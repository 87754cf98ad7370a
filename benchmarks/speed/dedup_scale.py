"""``deduplicate`` at scale: 10,000 to 1,000,000 distinct values with pearl-static.

Values: phrases of the training corpus (``pearl build-corpus``; no benchmark file), each
with up to three misspellings (keyboard slip, dropped letter, swapped letters; seeded),
until ``n`` distinct values; the true cluster of a value is its phrase. Each size runs
``pearl.cluster`` with its defaults (combined matcher, cut 0.6, ``top_k=5``) in a fresh
process, which reports its wall time (loading the model, encoding, the match graph and the
linkage) and its peak resident memory; the pairwise precision, recall and F1 against the
phrases are a sanity check that the approximate neighbours (above 20,000 values) still
find the typos. Run it with nothing else on the machine. Writes
results/benchmarks/dedup_scale.{md,json}.

    python benchmarks/speed/dedup_scale.py [--sizes 10000,100000,1000000]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

from pearl_lab.typos import make_values

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"


def run_one(corpus: str, n: int, model: str) -> dict:
    import pearl
    from pearl.evaluation.pairs import pairwise_cluster_scores

    values, truth = make_values(corpus, n)
    t0 = time.perf_counter()
    labels = pearl.cluster(values, model=model, show_progress_bar=False)
    seconds = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "values": n,
        "model": model,
        "seconds": round(seconds, 1),
        "peak_memory_mb": round(peak_mb),
        "clusters": int(labels.max()) + 1,
        "true_clusters": len(set(truth)),
        **pairwise_cluster_scores(labels, truth),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="data_out/corpus/corpus.tsv")
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--model", default="pearl-static")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(run_one(args.corpus, args.one, args.model)))
        return
    rows = []
    for n in [int(s) for s in args.sizes.split(",")]:
        cmd = [sys.executable, __file__, "--one", str(n), "--corpus", args.corpus]
        done = subprocess.run(cmd + ["--model", args.model], capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(done.stderr[-2000:])
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(rows[-1], flush=True)
    command = f"python benchmarks/speed/dedup_scale.py --sizes {args.sizes}"
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "dedup_scale.json").write_text(
        json.dumps({"command": command, "rows": rows}, indent=2) + "\n"
    )
    lines = [
        "# deduplicate at scale",
        "",
        f"`{command}` (nothing else running; 2 CPU cores): `pearl.cluster` with its defaults "
        f"and {args.model}, on corpus phrases and their misspellings. Seconds include loading "
        "the model and encoding; memory is the process's peak resident set.",
        "",
        "| distinct values | seconds | peak memory (MB) | clusters | true clusters | "
        "precision | recall | F1 |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {r['values']:,} | {r['seconds']} | {r['peak_memory_mb']:,} | {r['clusters']:,} | "
        f"{r['true_clusters']:,} | {r['precision']:.3f} | {r['recall']:.3f} | {r['f1']:.3f} |"
        for r in rows
    ]
    (OUT / "dedup_scale.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
