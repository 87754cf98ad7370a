"""Issue 37 part 2, second step: pairs that abbreviate each other, as a signal of the
clustering.

After ``dedup_one_edit.py`` (links one typo apart raised to 0.95, now ``cluster``'s
default), abbreviations are what ``cluster`` still misses ("Cam. Corp." / "Campeau Corp.",
"Kidder Pea." / "Kidder Peabody": the matcher gives 0.55-0.70). Here a link between two
values with as many words, each word equal or abbreviating the other's (2+ letters, same
first letter, letters in order, a final dot aside:
:func:`pearl.tables.match_graph.abbreviation_apart`), gets ``max(p, boost)``, on
the same development families (typos of 40 seed-1 corpus names, dense lists of seeds
1-3; never a benchmark file), rows weighing, cut 0.6, top_k 5, one-edit links at 0.95
(recorded so at 073be8f; run today, the typo rule is ``cluster``'s ``EDITS``, one edit per
6 characters: experiments/dedup_edit_length.py).

The rule, fixed before the run: for the default model, the boost of highest overall score
(mean of the typo family's mean F1 and the dense family's mean F1) becomes ``cluster``'s
default; ties go to no boost, then the lower boost. Writes
experiments/results/dedup_abbreviations.{md,json}.

    python experiments/dedup_abbreviations.py
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from dedup_dense_lists import development_tasks, family_scores, unique_graph

import pearl
from pearl.evaluation.pairs import pairwise_cluster_scores
from pearl.tables.dedup import EDITS
from pearl.tables.linkage import graph_average_linkage
from pearl.tables.match_graph import abbreviation_apart

OUT = Path(__file__).resolve().parent / "results"
BOOSTS = [None, 0.8, 0.95]


def labels(values: list[str], encoder, cut: float = 0.6, top_k: int = 5) -> dict:
    """Row labels for each abbreviation boost."""
    uniq, inverse, counts, graph = unique_graph(values, encoder, top_k, edits=EDITS)
    abbreviated = abbreviation_apart(uniq, graph.rows, graph.cols)
    out = {}
    for boost in BOOSTS:
        w = graph.weights
        if boost is not None:
            w = np.where(abbreviated, np.maximum(w, boost), w)
        lab = graph_average_linkage(len(uniq), graph.rows, graph.cols, w, cut, counts)
        out[boost] = lab[inverse].tolist()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="data_out/corpus/corpus.tsv")
    ap.add_argument("--models", default="pearl-minilm,pearl-static")
    args = ap.parse_args()
    typos, dense = development_tasks(args.corpus)
    rows = []
    for model in args.models.split(","):
        enc = pearl.PhraseEncoder(model)
        f1: dict = {}
        for task, (v, y) in {**typos, **dense}.items():
            for boost, lab in labels(v, enc).items():
                f1.setdefault(boost, {})[task] = pairwise_cluster_scores(lab, y)["f1"]
        for boost, scores in f1.items():
            rows.append(
                {"model": model, "boost": boost, **scores, **family_scores(scores, typos, dense)}
            )
            print(rows[-1], flush=True)
    default = [r for r in rows if r["model"] == pearl.DEFAULT_MODEL]
    chosen = max(default, key=lambda r: (r["overall"], r["boost"] is None, -(r["boost"] or 0)))
    command = "python experiments/dedup_abbreviations.py"
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "dedup_abbreviations.json").write_text(
        json.dumps({"command": command, "rows": rows, "chosen": chosen}, indent=2) + "\n"
    )
    lines = [
        "# Pairs that abbreviate each other in the clustering (development data)",
        "",
        f"`{command}`: mean pairwise F1 on the typo tasks of `dedup_threshold.py` and the "
        "dense lists of `dedup_dense_lists.py` (corpus names, no benchmark file); overall = "
        "the mean of the two; combined matcher, rows weighing, cut 0.6, top_k 5, links one "
        "typo apart at 0.95. A link between abbreviations gets max(p, boost). Chosen by the "
        f"rule of the script for {pearl.DEFAULT_MODEL}: **boost {chosen['boost']}** "
        f"(overall {chosen['overall']:.3f}).",
        "",
        "| model | boost | " + " | ".join([*typos, *dense]) + " | typos | dense lists | overall |",
        "|---|---|" + "---:|" * (len(typos) + len(dense) + 3),
    ]
    for r in rows:
        cells = " | ".join(f"{r[k]:.3f}" for k in [*typos, *dense])
        lines.append(
            f"| {r['model']} | {r['boost'] or 'none'} | {cells} | {r['typos']:.3f} | "
            f"{r['dense']:.3f} | {r['overall']:.3f} |"
        )
    (OUT / "dedup_abbreviations.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
