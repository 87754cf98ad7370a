"""A transformer's encoding in float32 and in bfloat16 (``PhraseEncoder(compute_dtype=...)``).

Issue 52's bar for a faster transformer: at least 2x the phrases/s of the same float folder
in plain sentence-transformers (``encode_speed.py`` measures that ratio), with a cosine of
at least 0.995 between each phrase's vector and its float32 vector. This script times
float32 against bfloat16 through pearl on the same PPDB phrases (alternating rounds after a
warm-up, median) and reports the per-phrase cosines. Writes
results/benchmarks/compute_dtype.{json,md} (``--name`` for another stem).

    python benchmarks/speed/compute_dtype.py [--model pearl-minilm] [--n 5000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from functools import partial
from pathlib import Path

from pearl_lab import alternating_rounds, data_root, ppdb_phrases

from pearl import PhraseEncoder
from pearl.encoders.base import normalize_rows
from pearl.encoders.precision import native_bf16

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="pearl-minilm")
    ap.add_argument("--n", type=int, default=5_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--data", type=Path, default=data_root())
    ap.add_argument("--name", default="compute_dtype")
    args = ap.parse_args()
    texts = ppdb_phrases(args.n, args.data)
    enc = {d: PhraseEncoder(args.model, compute_dtype=d) for d in ("float32", "bfloat16")}
    vecs = {d: normalize_rows(e.encode(texts, batch_size=args.batch_size)) for d, e in enc.items()}
    runs = {d: partial(e.encode, texts, batch_size=args.batch_size) for d, e in enc.items()}
    times = alternating_rounds(runs, args.rounds)
    med = {d: statistics.median(v) for d, v in times.items()}
    cos = (vecs["float32"] * vecs["bfloat16"]).sum(1)
    result = {
        "model": args.model,
        "n_phrases": len(texts),
        "batch_size": args.batch_size,
        "native_bf16": native_bf16(),
        "seconds": times,
        "median_seconds": med,
        "speedup": round(med["float32"] / med["bfloat16"], 3),
        "min_cosine": float(cos.min()),
        "mean_cosine": float(cos.mean()),
        "cpus": os.cpu_count(),
        "command": f"python benchmarks/speed/compute_dtype.py --model {args.model} "
        f"--n {args.n} --rounds {args.rounds} --batch-size {args.batch_size}",
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{args.name}.json").write_text(json.dumps(result, indent=2) + "\n")
    rows = [f"| {d} | {med[d]:.2f} | {len(texts) / med[d]:.0f} |" for d in enc]
    md = [
        "# float32 and bfloat16 matrix products",
        "",
        f"`{result['command']}` on {os.cpu_count()} CPUs (native bfloat16: "
        f"{result['native_bf16']}), {len(texts):,} PPDB phrases, median of {args.rounds} "
        "alternating rounds after warm-up.",
        "",
        "| compute dtype | median s | phrases/s |",
        "|---|---:|---:|",
        *rows,
        "",
        f"bfloat16 is **{result['speedup']:.2f}x** float32's speed; per-phrase cosine to the "
        f"float32 vectors: min **{result['min_cosine']:.5f}**, mean {result['mean_cosine']:.6f} "
        "(bar: >= 0.995).",
    ]
    (OUT / f"{args.name}.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
