"""The cut of ``deduplicate`` chosen on development data, measured on held-out names.

``deduplicate`` cuts its average-linkage tree where the average similarity inside a
cluster falls below ``threshold``. Its old default (0.8, embedding cosine) leaves most
misspellings alone (recall about 0.5 in ``benchmarks/quality/dedup_typos.py``). Here the
threshold is chosen per model and matcher on *development* tasks: the typo generators of
dedup_typos.py applied to 40 other ORG names of the training corpus (drawn with seed 1,
none of the seed-0 names that dedup_typos.py reports on). The rule, fixed before the run:
for each model, the (matcher, threshold) of highest mean pairwise F1 over the five dev
tasks, ties to the higher threshold (fewer merges). Writes
experiments/results/dedup_threshold.{md,json}.

    python experiments/dedup_threshold.py
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

import numpy as np
from pearl_lab.typos import GENERATORS, make_task

import pearl
from pearl.data.corpus import read_corpus
from pearl.evaluation.pairs import pairwise_cluster_scores as pairwise

OUT = Path(__file__).resolve().parent / "results"
THRESHOLDS = [round(t, 2) for t in np.arange(0.3, 0.91, 0.05)]


def dev_names(corpus: str, n: int) -> list[str]:
    pool = sorted(
        {
            r.phrase
            for r in read_corpus(corpus)
            if r.label.endswith("ORG")
            and re.fullmatch(r"[A-Z][a-z]+( [A-Z][A-Za-z.]+){1,3}", r.phrase)
        }
    )
    reported = set(random.Random(0).sample(pool, n))  # the names dedup_typos.py reports on
    return random.Random(1).sample([p for p in pool if p not in reported], n)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="data_out/corpus/corpus.tsv")
    ap.add_argument("--models", default="pearl-minilm,pearl-static,all-MiniLM-L6-v2")
    args = ap.parse_args()
    names = dev_names(args.corpus, 40)
    tasks = {kind: make_task(names, kind, 6, 3, 1) for kind in [*GENERATORS, "mixed"]}
    rows, chosen = [], {}
    for model in args.models.split(","):
        enc = pearl.PhraseEncoder(model)
        for matcher in ("cosine", "combined"):
            for t in THRESHOLDS:
                f1 = {
                    k: pairwise(list(pearl.cluster(v, threshold=t, model=enc, matcher=matcher)), y)[
                        "f1"
                    ]
                    for k, (v, y) in tasks.items()
                }
                rows.append(
                    {
                        "model": model,
                        "matcher": matcher,
                        "threshold": t,
                        **f1,
                        "mean": round(float(np.mean(list(f1.values()))), 4),
                    }
                )
        best = max(
            (r for r in rows if r["model"] == model), key=lambda r: (r["mean"], r["threshold"])
        )
        chosen[model] = best
        print(model, best, flush=True)
    command = "python experiments/dedup_threshold.py"
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "dedup_threshold.json").write_text(
        json.dumps(
            {"command": command, "dev_names": names, "rows": rows, "chosen": chosen}, indent=2
        )
        + "\n"
    )
    kinds = list(tasks)
    lines = [
        "# The cut of deduplicate, chosen on development names",
        "",
        f"`{command}`: mean pairwise F1 over the five typo tasks of dedup_typos.py, on "
        "40 development names (seed 1, disjoint from the reported seed-0 names)",
        "",
        "| model | matcher | best threshold | " + " | ".join(kinds) + " | mean |",
        "|---|---|---:|" + "---:|" * (len(kinds) + 1),
    ]
    for model in chosen:
        for matcher in ("cosine", "combined"):
            r = max(
                (r for r in rows if r["model"] == model and r["matcher"] == matcher),
                key=lambda r: (r["mean"], r["threshold"]),
            )
            lines.append(
                f"| {model} | {matcher} | {r['threshold']} | "
                + " | ".join(f"{r[k]:.3f}" for k in kinds)
                + f" | {r['mean']:.3f} |"
            )
    lines += [
        "",
        "Mean F1 by threshold:",
        "",
        "| model | matcher | " + " | ".join(str(t) for t in THRESHOLDS) + " |",
        "|---|---|" + "---:|" * len(THRESHOLDS),
    ]
    for model in chosen:
        for matcher in ("cosine", "combined"):
            means = {
                r["threshold"]: r["mean"]
                for r in rows
                if r["model"] == model and r["matcher"] == matcher
            }
            lines.append(
                f"| {model} | {matcher} | "
                + " | ".join(f"{means[t]:.3f}" for t in THRESHOLDS)
                + " |"
            )
    (OUT / "dedup_threshold.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
