"""Lexical diversity of nearest neighbours (Phrase-BERT, Table 4) for several models.

Vocabulary: the --vocab most frequent phrases of the training corpus (never a benchmark
file); queries: --queries of them drawn with --seed. For each model, the top-10
neighbours of each query (itself excluded) and the three measures of
``pearl.evaluation.diversity``. Writes results/benchmarks/lexical_diversity.{md,json}.

    python benchmarks/quality/lexical_diversity.py -m all-MiniLM-L6-v2 -m pearl-minilm
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from pearl.data.corpus import read_corpus
from pearl.encoders import load_encoder
from pearl.evaluation.diversity import lexical_diversity

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-m", "--model", action="append", required=True)
    ap.add_argument("--corpus", type=Path, default=Path("data_out/corpus/corpus.tsv"))
    ap.add_argument("--vocab", type=int, default=50_000)
    ap.add_argument("--queries", type=int, default=1_000)
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    records = sorted(read_corpus(args.corpus), key=lambda r: (-r.frequency, r.phrase))
    vocab = [r.phrase for r in records[: args.vocab]]
    rng = np.random.default_rng(args.seed)
    queries = [vocab[i] for i in rng.choice(len(vocab), size=args.queries, replace=False)]
    rows = []
    for name in args.model:
        res = lexical_diversity(load_encoder(name), vocab, queries, top_k=args.k)
        rows.append({"model": name, **res})
        print(rows[-1], flush=True)
    cmd = (
        "python benchmarks/quality/lexical_diversity.py "
        + " ".join(f"-m {m}" for m in args.model)
        + f" --vocab {args.vocab} --queries {args.queries}"
    )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "lexical_diversity.json").write_text(
        json.dumps({"command": cmd, "rows": rows}, indent=2) + "\n"
    )
    md = [
        "# Lexical diversity of nearest neighbours",
        "",
        f"`{cmd}`: the {args.vocab:,} most "
        f"frequent corpus phrases as vocabulary, {args.queries:,} of them as queries, top "
        f"{args.k} neighbours. New tokens: distinct neighbour words absent from the query "
        "per query word (higher = more diverse); LCS precision: longest common substring "
        "over the neighbour's length, % (lower = more diverse); Levenshtein: mean edit "
        "distance (higher = more diverse).",
        "",
        "| model | new tokens | LCS precision | Levenshtein |",
        "|---|---:|---:|---:|",
    ]
    md += [
        f"| {r['model']} | {r['new_tokens']:.2f} | {r['lcs_precision']:.1f} | "
        f"{r['levenshtein']:.1f} |"
        for r in rows
    ]
    (OUT / "lexical_diversity.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
