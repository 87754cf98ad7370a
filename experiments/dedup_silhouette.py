"""Issue 37 part 2: the cut of ``cluster`` chosen without labels, and rows that weigh.

``cluster`` cuts its average-linkage tree over the match graph at a fixed match
probability (0.6, chosen on two development families by ``dedup_graph.py``): typos want a
lower cut, dense lists of distinct but similar names a higher one, and one number serves
neither well. Two changes are measured here, on the same development families (typos of
40 seed-1 corpus names and the dense lists of seeds 1-3; never a benchmark file):

- **row weights**: the mean similarity of two clusters taken over their *rows* (each
  distinct value weighs as many times as it occurs) instead of over distinct values, so a
  frequent spelling pulls its rare variants toward it;
- **auto cut**: the cut, among 0.05, 0.10, ..., 0.95, of the best silhouette of the
  clustering on the match graph (distance 1 - probability, an unlinked pair at distance
  1; :func:`pearl.tables.linkage.graph_silhouette`), as skrub chooses its number
  of clusters, but on the sparse graph.

The rule, fixed before the run: for the default model, the variant (fixed cut or auto,
with or without row weights) of highest overall score (mean of the typo family's mean F1
and the dense family's mean F1) becomes ``cluster``'s default; ties go to the simpler
(fixed before auto, unweighted before weighted, then the higher cut). Writes
experiments/results/dedup_silhouette.{md,json}.

    python experiments/dedup_silhouette.py
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from dedup_dense_lists import development_tasks, family_scores, unique_graph

import pearl
from pearl.evaluation.pairs import pairwise_cluster_scores
from pearl.tables.linkage import cut_tree, graph_silhouette, linkage_tree

OUT = Path(__file__).resolve().parent / "results"
CUTS = [round(t, 2) for t in np.arange(0.05, 0.96, 0.05)]


def variants(values: list[str], encoder, top_k: int = 5) -> dict[str, list[int]]:
    """Row labels of every variant: ``fixed T`` / ``auto``, each ``unweighted`` or ``rows``."""
    uniq, inverse, counts, graph = unique_graph(values, encoder, top_k)
    out = {}
    for weigh, sizes in (("unweighted", None), ("rows", counts.astype(float))):
        tree = linkage_tree(len(uniq), graph.rows, graph.cols, graph.weights, CUTS[0], sizes)
        labels = {t: cut_tree(tree, t) for t in CUTS}
        sil = {
            t: graph_silhouette(len(uniq), graph.rows, graph.cols, graph.weights, lab, sizes)
            for t, lab in labels.items()
        }
        best = max(CUTS, key=lambda t: (sil[t], t))
        for t in CUTS:
            out[f"fixed {t} {weigh}"] = labels[t][inverse].tolist()
        out[f"auto {weigh}"] = labels[best][inverse].tolist()
        out[f"auto {weigh} cut"] = best
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="data_out/corpus/corpus.tsv")
    ap.add_argument("--models", default="pearl-minilm,pearl-static")
    args = ap.parse_args()
    typos, dense = development_tasks(args.corpus)
    rows, cuts = [], {}
    for model in args.models.split(","):
        enc = pearl.PhraseEncoder(model)
        scores: dict[str, dict[str, float]] = {}
        for task, (v, y) in {**typos, **dense}.items():
            got = variants(v, enc)
            for name, lab in got.items():
                if name.endswith(" cut"):
                    cuts[f"{model} {task} {name[:-4]}"] = lab
                    continue
                scores.setdefault(name, {})[task] = pairwise_cluster_scores(lab, y)["f1"]
        for name, f1 in scores.items():
            rows.append({"model": model, "variant": name, **f1, **family_scores(f1, typos, dense)})
            print(rows[-1], flush=True)

    def simplicity(r):
        kind, *rest = r["variant"].split()
        cut = float(rest[0]) if kind == "fixed" else 0.0
        return (r["overall"], kind == "fixed", rest[-1] == "unweighted", cut)

    default = [r for r in rows if r["model"] == pearl.DEFAULT_MODEL]
    chosen = max(default, key=simplicity)
    command = "python experiments/dedup_silhouette.py"
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "dedup_silhouette.json").write_text(
        json.dumps(
            {"command": command, "rows": rows, "auto_cuts": cuts, "chosen": chosen}, indent=2
        )
        + "\n"
    )
    lines = [
        "# The cut of cluster without labels, and row weights (development data)",
        "",
        f"`{command}`: mean pairwise F1 on the typo tasks of `dedup_threshold.py` and the "
        "dense lists of `dedup_dense_lists.py` (corpus names, no benchmark file); overall = "
        "the mean of the two; combined matcher, top_k 5. Chosen by the rule of the script "
        f"for {pearl.DEFAULT_MODEL}: **{chosen['variant']}** (overall {chosen['overall']:.3f}).",
        "",
        "| model | variant | typos | dense lists | overall |",
        "|---|---|---:|---:|---:|",
    ]
    for model in args.models.split(","):
        mine = [r for r in rows if r["model"] == model]
        shown = [r for r in mine if r["variant"].startswith("auto")]
        for weigh in ("unweighted", "rows"):
            shown.append(
                max(
                    (
                        r
                        for r in mine
                        if r["variant"].startswith("fixed") and r["variant"].endswith(weigh)
                    ),
                    key=simplicity,
                )
            )
        shown.append(next(r for r in mine if r["variant"] == "fixed 0.6 unweighted"))
        for r in shown:
            lines.append(
                f"| {model} | {r['variant']} | {r['typos']:.3f} | {r['dense']:.3f} | "
                f"{r['overall']:.3f} |"
            )
    lines += ["", "Cuts chosen by silhouette: " + ", ".join(f"{k} {v}" for k, v in cuts.items())]
    (OUT / "dedup_silhouette.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
