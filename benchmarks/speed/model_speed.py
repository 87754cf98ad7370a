"""Encoding throughput of several models on the same phrases, in one run.

The same --n distinct PPDB phrases (timing only) are encoded by each model through
``pearl.PhraseEncoder.encode``, in alternating rounds after a warm-up; the median round is
reported. Torch uses this machine's threads (2 here). Static models are also timed at a
larger batch (--static-batch-size), their natural setting: their cost per batch is mostly
Python overhead. Writes results/benchmarks/model_speed.{json,md}.

    python benchmarks/speed/model_speed.py [-m all-MiniLM-L6-v2 -m pearl-minilm -m pearl-static]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from functools import partial
from pathlib import Path

import torch
from pearl_lab import alternating_rounds, data_root, ppdb_phrases

from pearl import PhraseEncoder

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-m", "--model", action="append")
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--static-batch-size", type=int, default=1024)
    ap.add_argument("--data", type=Path, default=data_root())
    args = ap.parse_args()
    models = args.model or ["all-MiniLM-L6-v2", "pearl-minilm", "pearl-static"]
    texts = ppdb_phrases(args.n, args.data)
    runs = {}
    for name in models:
        enc = PhraseEncoder(name)
        static = "Static" in type(enc.model[0]).__name__
        runs[(name, args.batch_size)] = (enc, args.batch_size)
        if static:
            runs[(name, args.static_batch_size)] = (enc, args.static_batch_size)
    for enc, b in runs.values():  # warm-up
        enc.encode(texts[:2000], batch_size=b)
    times = alternating_rounds(
        {key: partial(enc.encode, texts, batch_size=b) for key, (enc, b) in runs.items()},
        args.rounds,
    )
    rows = [
        {
            "model": m,
            "batch_size": b,
            "median_seconds": statistics.median(v),
            "phrases_per_s": len(texts) / statistics.median(v),
            "seconds": v,
        }
        for (m, b), v in times.items()
    ]
    ref = next(
        (r for r in rows if r["model"] == "pearl-minilm" and r["batch_size"] == args.batch_size),
        None,
    )
    cmd = (
        "python benchmarks/speed/model_speed.py "
        + " ".join(f"-m {m}" for m in models)
        + (f" --n {args.n} --rounds {args.rounds}")
    )
    md = [
        "# Encoding throughput",
        "",
        f"`{cmd}`: {len(texts):,} PPDB phrases, median of {args.rounds} alternating rounds "
        f"after a warm-up, {torch.get_num_threads()} torch threads on {os.cpu_count()} CPUs, "
        "nothing else running.",
        "",
        f"| model | batch | median s | phrases/s | x pearl-minilm (batch {args.batch_size}) |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        x = f"{r['phrases_per_s'] / ref['phrases_per_s']:.1f}" if ref else "–"
        md.append(
            f"| {r['model']} | {r['batch_size']} | {r['median_seconds']:.2f} | "
            f"{r['phrases_per_s']:,.0f} | {x} |"
        )
    OUT.mkdir(exist_ok=True)
    (OUT / "model_speed.json").write_text(
        json.dumps({"command": cmd, "rows": rows}, indent=2) + "\n"
    )
    (OUT / "model_speed.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
