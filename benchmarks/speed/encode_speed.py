"""Encoding speed: the backbone through sentence-transformers and through pearl, and a
shipped pearl model against its backbone.

Targets: ``PhraseEncoder`` takes at most 1.05x the time of a plain
``SentenceTransformer.encode`` of the same folder; the shipped model's phrases/s is
reported as a ratio of its backbone's, and as a ratio of the same shipped folder encoded
by plain sentence-transformers (issue 52 asks 2x). All encoders run in one process on the same PPDB
phrases, alternating, after a warm-up; the median of the rounds is compared. Writes
results/benchmarks/encode_speed.{json,md}.

    python benchmarks/speed/encode_speed.py [--model all-MiniLM-L6-v2] \
        [--shipped pearl-minilm] [--n 5000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
from pathlib import Path

import torch
from pearl_lab import alternating_rounds, data_root, ppdb_phrases
from sentence_transformers import SentenceTransformer

from pearl import PhraseEncoder
from pearl.encoders.resolve import resolve_model_path

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="all-MiniLM-L6-v2", help="the backbone")
    ap.add_argument(
        "--shipped",
        default="pearl-minilm",
        help="a model trained from --model, compared with it ('' for none)",
    )
    ap.add_argument("--n", type=int, default=5_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--data", type=Path, default=data_root())
    ap.add_argument(
        "--name",
        default="encode_speed",
        help="results file name (default encode_speed, the shipped model's)",
    )
    args = ap.parse_args()

    texts = ppdb_phrases(args.n, args.data)
    path = resolve_model_path(args.model)
    st = SentenceTransformer(path, device="cpu")
    pe = PhraseEncoder(args.model)
    runs = {
        "sentence_transformers": lambda: st.encode(
            texts, batch_size=args.batch_size, show_progress_bar=False
        ),
        "pearl": lambda: pe.encode(texts, batch_size=args.batch_size, show_progress_bar=False),
    }
    if args.shipped:
        shipped = PhraseEncoder(args.shipped)
        runs["shipped"] = lambda: shipped.encode(
            texts, batch_size=args.batch_size, show_progress_bar=False
        )
        # the folder names pearl's own module (installed here), so loading it runs no
        # code from the folder; sentence-transformers asks for the flag all the same
        shipped_st = SentenceTransformer(
            resolve_model_path(args.shipped), device="cpu", trust_remote_code=True
        )
        runs["shipped_st"] = lambda: shipped_st.encode(
            texts, batch_size=args.batch_size, show_progress_bar=False
        )
    for fn in runs.values():  # warm-up
        fn()
    times = alternating_rounds(runs, args.rounds)
    med = {k: statistics.median(v) for k, v in times.items()}
    ratio = med["pearl"] / med["sentence_transformers"]
    result = {
        "model": args.model,
        "n_phrases": len(texts),
        "batch_size": args.batch_size,
        "rounds": args.rounds,
        "seconds": times,
        "median_seconds": med,
        "ratio_pearl_over_st": round(ratio, 4),
        "target_ratio": 1.05,
        "passed": ratio <= 1.05,
        "phrases_per_second_pearl": round(len(texts) / med["pearl"], 1),
        "shipped": args.shipped or None,
        "shipped_over_backbone_speed": (
            round(med["pearl"] / med["shipped"], 3) if args.shipped else None
        ),
        "shipped_over_plain_st_speed": (
            round(med["shipped_st"] / med["shipped"], 3) if args.shipped else None
        ),
        "torch_threads": torch.get_num_threads(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "command": "python benchmarks/speed/encode_speed.py "
        + " ".join(
            f"--{k.replace('_', '-')} {v}"
            for k, v in vars(args).items()
            if k != "data" and not (k == "name" and v == "encode_speed")
        ),
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{args.name}.json").write_text(json.dumps(result, indent=2) + "\n")
    md = [
        "# Encoding speed",
        "",
        f"`{result['command']}` on {os.cpu_count()} CPUs, {len(texts):,} PPDB phrases, "
        f"batch {args.batch_size}, median of {args.rounds} alternating rounds after warm-up.",
        "",
        "| encoder | median s | phrases/s |",
        "|---|---:|---:|",
        f"| SentenceTransformer.encode | {med['sentence_transformers']:.2f} | "
        f"{len(texts) / med['sentence_transformers']:.0f} |",
        f"| pearl PhraseEncoder.encode | {med['pearl']:.2f} | {len(texts) / med['pearl']:.0f} |",
    ]
    if args.shipped:
        md.append(
            f"| pearl PhraseEncoder.encode, {args.shipped} | {med['shipped']:.2f} | "
            f"{len(texts) / med['shipped']:.0f} |"
        )
        md.append(
            f"| SentenceTransformer.encode, {args.shipped} | {med['shipped_st']:.2f} | "
            f"{len(texts) / med['shipped_st']:.0f} |"
        )
    md += [
        "",
        f"Ratio pearl / ST time: **{ratio:.3f}** (target <= 1.05: "
        f"{'met' if result['passed'] else 'NOT met'}).",
    ]
    if args.shipped:
        md.append(
            f"{args.shipped} encodes **{result['shipped_over_backbone_speed']:.2f}x** "
            f"its backbone's phrases/s, and **{result['shipped_over_plain_st_speed']:.2f}x** "
            "the phrases/s of the same folder in plain sentence-transformers (target 2x)."
        )
    md.append("")
    (OUT / f"{args.name}.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
