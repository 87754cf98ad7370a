"""What a PEARL model's phrase-type head predicts for the CoNLL-03 test mentions.

A diagnostic of the type loss: CoNLL-03 clustering only improves if context-free entity
names are typed correctly. For each gold type (PER, LOC, ORG) the table gives the share of
mentions that the type head assigns to each of its most frequent labels. The head reads the
unnormalised fused vector it was trained on (a trailing ``Normalize`` module is skipped).
Writes results/benchmarks/type_head.{json,md}.

    python experiments/type_head.py --model pearl-minilm
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import torch

from pearl.evaluation.tasks.clustering import LABELS, load_mentions
from pearl.models import fusion_module, load_pearl_model

OUT = Path(__file__).resolve().parents[1] / "results" / "benchmarks"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="pearl-minilm")
    ap.add_argument("--data", default="../shared/data/benchmark")
    ap.add_argument("--top", type=int, default=4)
    args = ap.parse_args()
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize

    from pearl.encoders.resolve import resolve_model_path

    model = load_pearl_model(resolve_model_path(args.model))
    fusion = fusion_module(model)
    if fusion is None or fusion.type_head is None:
        raise SystemExit(f"{args.model} has no phrase-type head")
    unnormalised = SentenceTransformer(
        modules=[m for m in model if not isinstance(m, Normalize)], device="cpu"
    )
    types = LABELS["conll2003"]
    phrases, gold = load_mentions(Path(args.data) / "conll2003" / "test.json", types)
    with torch.inference_mode():
        x = unnormalised.encode(phrases, batch_size=256, convert_to_tensor=True)
        pred = fusion.type_logits(x).argmax(-1).tolist()
    names = [fusion.labels[i] for i in pred]
    table = {}
    for t, gold_type in enumerate(types):
        got = Counter(n for n, g in zip(names, gold, strict=True) if g == t)
        total = sum(got.values())
        table[gold_type] = {
            "mentions": total,
            "predicted": {k: round(100 * v / total, 1) for k, v in got.most_common(args.top)},
        }
    OUT.mkdir(exist_ok=True)
    (OUT / "type_head.json").write_text(json.dumps({"model": args.model, "table": table}, indent=2))
    lines = [
        f"# Type head on CoNLL-03 test mentions ({args.model})",
        "",
        f"`python experiments/type_head.py --model {args.model}`",
        "",
        "| gold type | mentions | most frequent predicted labels (% of mentions) |",
        "|---|---:|---|",
    ]
    for gold_type, row in table.items():
        preds = ", ".join(f"{k} {v}" for k, v in row["predicted"].items())
        lines.append(f"| {gold_type} | {row['mentions']} | {preds} |")
    (OUT / "type_head.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
