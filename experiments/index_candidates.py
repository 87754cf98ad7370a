"""How many candidates per signal ``EntityIndex.search`` re-ranks, and how the n-gram
candidates are searched above 5,000 names (issue 33: the combined search at most 2x the
cosine search's time).

Tasks: the three offline name sources of ``experiments/index_matchers.py`` (no benchmark
file). Options: ``flat-N``: the N nearest by embedding and the N nearest by the flat
float sketch of the n-gram rows (the rule before this experiment, N = 50); ``pq-N``: the
same with the sketch product-quantised and scanned with SIMD lookups
(``pearl.tables.match_graph.sketch_index``). The seconds are the search's (queries
encoded beforehand), taken beside other work: they rank options, they are not a timing.

The rule, fixed before the run: the default becomes the first option in the order
pq-10, pq-20, pq-30, flat-20, pq-50, flat-50 (cheapest first, by a trial on corpus
phrases) whose mean top-1 over the four tasks is at most 0.5 points below flat-50's for
each of pearl-minilm and pearl-static. Writes experiments/results/index_candidates.{md,json}.

    python experiments/index_candidates.py

Recorded at commit 7720bfc: it calls ``EntityIndex.candidates`` and ``rescore`` (and
``match_graph.sketch_index``), which later folded into
``pearl.tables.search.ReferenceIndex``. Re-run it from a worktree of that commit
(``git worktree add data_out/at-7720bfc 7720bfc``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from unittest import mock

import numpy as np
from index_matchers import make_tasks, mean_top1, top1_table

import pearl
from pearl.tables import match_graph
from pearl.tables.matcher import scorer_for

OUT = Path(__file__).resolve().parent / "results"
OPTIONS = ["pq-10", "pq-20", "pq-30", "flat-20", "pq-50", "flat-50"]  # cheapest first


def flat_sketch_index(r_ng, dim: int = 128):
    """The former n-gram candidate search: the flat float sketch."""
    import faiss

    index = faiss.IndexFlatIP(dim)
    index.add(match_graph.sketch(r_ng, dim))
    return index


def top1(enc, scorer, task, option: str) -> tuple[float, float]:
    """Top-1 (%) and seconds of the combined search of a task's queries (embeddings given)."""
    queries, q_emb, names, n_emb, answers = task
    kind, n = option.split("-")
    make = flat_sketch_index if kind == "flat" else match_graph.sketch_index
    with mock.patch.object(match_graph, "sketch_index", make):
        index = pearl.EntityIndex(enc).add_embeddings(names, n_emb)
        index.search(queries[:1], top_k=1)  # makes the n-gram rows and their index
        t = time.perf_counter()
        got = index.rescore(index.candidates(q_emb, queries, int(n)), scorer, 1).ids[:, 0]
        seconds = time.perf_counter() - t
    return 100 * float(np.mean(got == np.asarray(answers))), seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="data_out/corpus/corpus.tsv")
    ap.add_argument("--aliases", default="data_out/aliases.csv")
    ap.add_argument("--models", default="pearl-minilm,pearl-static")
    args = ap.parse_args()
    models = args.models.split(",")
    tasks = make_tasks(args.corpus, args.aliases)
    rows = []
    for model in models:
        enc = pearl.PhraseEncoder(model)
        scorer = scorer_for("combined", enc)
        for task, (queries, names, answers) in tasks.items():
            encoded = (
                queries,
                enc.encode(queries, normalize=True, show_progress_bar=False),
                names,
                enc.encode(names, normalize=True, show_progress_bar=False),
                answers,
            )
            for option in OPTIONS:
                acc, seconds = top1(enc, scorer, encoded, option)
                rows.append(
                    {
                        "model": model,
                        "task": task,
                        "option": option,
                        "queries": len(queries),
                        "names": len(names),
                        "top1": round(acc, 2),
                        "seconds": round(seconds, 2),
                    }
                )
                print(rows[-1], flush=True)
    mean = mean_top1(rows, models, OPTIONS)
    chosen = next(o for o in OPTIONS if all(mean[m, o] >= mean[m, "flat-50"] - 0.5 for m in models))
    command = "python experiments/index_candidates.py"
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "index_candidates.json").write_text(
        json.dumps({"command": command, "rows": rows, "chosen": chosen}, indent=2) + "\n"
    )
    lines = [
        "# EntityIndex: candidates per signal and the n-gram candidate search",
        "",
        f"`{command}`: top-1 accuracy (%) of the combined search on three offline name "
        f"sources (seconds in the JSON, taken beside other work). Chosen by the rule of the "
        f"script: **{chosen}**.",
        "",
        *top1_table(rows, models, OPTIONS, list(tasks)),
    ]
    (OUT / "index_candidates.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
