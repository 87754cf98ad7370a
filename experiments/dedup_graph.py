"""The match graph of ``cluster`` on development data: how many neighbours, which cut.

``cluster`` links each distinct value to its ``top_k`` nearest values by embedding and
by n-grams and runs average linkage over that sparse graph (unlinked pairs count as 0),
which removes the quadratic cap. Here it is measured on the two development families of
``dedup_threshold.py`` (typos of 40 seed-1 corpus names) and ``dedup_dense_lists.py``
(dense lists of similar corpus names, seeds 1-3): never a benchmark file. ``top_k`` =
"all" links every pair, which is the former exact average linkage.

The rule, fixed before the run: for the default model and the combined matcher, each
``top_k``'s threshold is the one of highest overall score (the mean of the two families'
mean F1; ties to the higher threshold). The default ``top_k`` is the smallest whose best
overall is within 0.005 of the best of any ``top_k``, "all" included; its threshold
becomes the default cut. Writes experiments/results/dedup_graph.{md,json}.

    python experiments/dedup_graph.py
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from dedup_dense_lists import dense_tasks
from dedup_threshold import dev_names
from pearl_lab.typos import GENERATORS, make_task

import pearl
from pearl.evaluation.pairs import pairwise_cluster_scores

OUT = Path(__file__).resolve().parent / "results"
THRESHOLDS = [round(t, 2) for t in np.arange(0.3, 0.91, 0.05)]
TOP_KS = [5, 10, 20, "all"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="data_out/corpus/corpus.tsv")
    ap.add_argument("--models", default="pearl-minilm,pearl-static")
    args = ap.parse_args()
    names = dev_names(args.corpus, 40)
    typos = {kind: make_task(names, kind, 6, 3, 1) for kind in [*GENERATORS, "mixed"]}
    dense = dense_tasks(args.corpus)
    rows = []
    for model in args.models.split(","):
        enc = pearl.PhraseEncoder(model)
        for top_k in TOP_KS:
            for t in THRESHOLDS:
                f1 = {}
                for name, (v, y) in {**typos, **dense}.items():
                    k = len(set(v)) if top_k == "all" else top_k
                    f1[name] = pairwise_cluster_scores(
                        pearl.cluster(v, threshold=t, model=enc, top_k=k), y
                    )["f1"]
                typo = float(np.mean([f1[k] for k in typos]))
                den = float(np.mean([f1[k] for k in dense]))
                rows.append(
                    {
                        "model": model,
                        "top_k": top_k,
                        "threshold": t,
                        **{k: round(v, 4) for k, v in f1.items()},
                        "typos": round(typo, 4),
                        "dense": round(den, 4),
                        "overall": round((typo + den) / 2, 4),
                    }
                )
                print(rows[-1], flush=True)
    best = {}
    for top_k in TOP_KS:
        cand = [r for r in rows if r["model"] == pearl.DEFAULT_MODEL and r["top_k"] == top_k]
        best[str(top_k)] = max(cand, key=lambda r: (r["overall"], r["threshold"]))
    top = max(r["overall"] for r in best.values())
    chosen = next(best[str(k)] for k in TOP_KS if best[str(k)]["overall"] >= top - 0.005)
    command = "python experiments/dedup_graph.py"
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "dedup_graph.json").write_text(
        json.dumps({"command": command, "rows": rows, "best": best, "chosen": chosen}, indent=2)
        + "\n"
    )
    lines = [
        "# The match graph of cluster: neighbours and cut (development data)",
        "",
        f"`{command}`: mean pairwise F1 on the typo tasks of `dedup_threshold.py` and the "
        "dense lists of `dedup_dense_lists.py` (corpus names, no benchmark file); overall = "
        "the mean of the two; combined matcher; top_k = all is the former exact linkage. "
        f"Chosen by the rule of the script for {pearl.DEFAULT_MODEL}: **top_k "
        f"{chosen['top_k']}, threshold {chosen['threshold']}** (overall "
        f"{chosen['overall']:.3f}).",
        "",
        "Best threshold per model and top_k:",
        "",
        "| model | top_k | threshold | typos | dense lists | overall |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for model in args.models.split(","):
        for top_k in TOP_KS:
            r = max(
                (r for r in rows if r["model"] == model and r["top_k"] == top_k),
                key=lambda r: (r["overall"], r["threshold"]),
            )
            lines.append(
                f"| {model} | {top_k} | {r['threshold']} | {r['typos']:.3f} | "
                f"{r['dense']:.3f} | {r['overall']:.3f} |"
            )
    lines += ["", "Overall by threshold:", "", "| model | top_k | "]
    lines[-1] += " | ".join(str(t) for t in THRESHOLDS) + " |"
    lines.append("|---|---|" + "---:|" * len(THRESHOLDS))
    for model in args.models.split(","):
        for top_k in TOP_KS:
            o = {
                r["threshold"]: r["overall"]
                for r in rows
                if r["model"] == model and r["top_k"] == top_k
            }
            lines.append(
                f"| {model} | {top_k} | " + " | ".join(f"{o[t]:.3f}" for t in THRESHOLDS) + " |"
            )
    (OUT / "dedup_graph.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
