"""Which matcher and candidate rule ``EntityIndex.search`` should use (issue 33, part 1).

Three offline name sources, distinct from each other and from every benchmark file:

- ``simulation``: the combined matcher's training simulation drawn afresh (seed 1):
  20,000 training-corpus phrases as the index, one augmented view of each as the query
  (``pearl.training.matcher_weights.matcher_training_views``);
- ``aliases``: ``pearl aliases`` groups (built with the AutoFJ titles excluded): one form
  of a name in the index (every group's), another as the query (10,000 groups, seed 1);
- ``pycountry``: ``experiments/dev_proxy.py``'s tasks (official names of countries among
  countries and subdivisions; one-edit typos of subdivisions).

Options: ``cosine``; ``combined-emb`` (the former rule: the ``--candidates`` nearest names
by embedding, re-ranked by the model's learned matcher); ``combined`` (the new rule, shared
with ``fuzzy_join`` and ``deduplicate``: as many by embedding and by n-grams, re-ranked by
the learned matcher); ``mix`` (the same candidates ranked by 0.7 x embedding cosine + 0.3 x
n-gram cosine, no learning).

The rule, fixed before the run: for the default model, the option with the highest mean
top-1 over the four tasks (simulation, aliases, pycountry official, pycountry typo)
becomes ``EntityIndex.search``'s default; an option within 0.5 points of the best that
is simpler wins (cosine, then mix, then combined-emb, then combined). Writes
experiments/results/index_matchers{,_cN}.{md,json}.

    python experiments/index_matchers.py [--candidates 10]

The first record (the choice of the matcher, ``index_matchers.{md,json}``) took 50
candidates per signal, the default then; ``experiments/index_candidates.py`` later chose
10, whose record is ``index_matchers_c10.{md,json}``.

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

import numpy as np
from pearl_lab import data_root
from pearl_lab.dev import tasks as pycountry_tasks

import pearl
from pearl.tables.matcher import MatchScorer, scorer_for
from pearl.training.matcher_weights import alias_queries, matcher_training_views

OUT = Path(__file__).resolve().parent / "results"
OPTIONS = ["cosine", "mix", "combined-emb", "combined"]  # simplest first


def make_tasks(corpus: str, aliases: str) -> dict[str, tuple[list[str], list[str], list[int]]]:
    """Each task as (queries, index names, the position of each query's answer)."""
    sample, views, _ = matcher_training_views(
        corpus, 20_000, 1, data_root() / "lexicon" / "wordnet"
    )
    out = {"simulation": (views, sample, list(range(len(sample))))}
    queries, targets = alias_queries(aliases, 10_000, 1)
    names = list(dict.fromkeys(targets))
    where = {n: i for i, n in enumerate(names)}
    out["aliases"] = (queries, names, [where[t] for t in targets])
    for k, v in pycountry_tasks().items():
        out[f"pycountry {k}"] = v
    return out


def run(
    index, queries: list[str], q_emb: np.ndarray, option: str, scorer, width: int = 10
) -> np.ndarray:
    """Top-1 ids; the queries are encoded once per task (what ``search`` does inside)."""
    if option == "cosine":
        return index.search_embeddings(q_emb, 1, queries=queries).ids[:, 0]
    if option == "combined-emb":
        wide = index.search_embeddings(q_emb, width, queries=queries)
        return index.rescore(wide, scorer, 1).ids[:, 0]
    matcher = MatchScorer((0.7, 0.3, 0.0), 0.0) if option == "mix" else scorer
    return index.rescore(index.candidates(q_emb, queries, width), matcher, 1).ids[:, 0]


def mean_top1(rows: list[dict], models: list[str], options: list[str]) -> dict:
    """Each (model, option)'s top-1 averaged over the tasks."""
    return {
        (m, o): float(np.mean([r["top1"] for r in rows if r["model"] == m and r["option"] == o]))
        for m in models
        for o in options
    }


def top1_table(rows: list[dict], models: list[str], options: list[str], tasks: list[str]):
    """The markdown lines of a (model, option) x task table of top-1, with the mean."""
    means = mean_top1(rows, models, options)
    lines = [
        "| model | option | " + " | ".join(tasks) + " | mean |",
        "|---|---|" + "---:|" * (len(tasks) + 1),
    ]
    for m in models:
        for o in options:
            cells = [
                next(r["top1"] for r in rows if (r["model"], r["task"], r["option"]) == (m, t, o))
                for t in tasks
            ]
            lines.append(
                f"| {m} | {o} | "
                + " | ".join(f"{c:.1f}" for c in cells)
                + f" | {means[(m, o)]:.1f} |"
            )
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="data_out/corpus/corpus.tsv")
    ap.add_argument("--aliases", default="data_out/aliases.csv")
    ap.add_argument("--models", default="pearl-minilm,pearl-static,all-MiniLM-L6-v2")
    ap.add_argument("--candidates", type=int, default=10, help="per signal (search's default)")
    ap.add_argument("--name", help="output file stem (default index_matchers[_cN])")
    args = ap.parse_args()
    tasks = make_tasks(args.corpus, args.aliases)
    rows = []
    for model in args.models.split(","):
        enc = pearl.PhraseEncoder(model)
        scorer = scorer_for("combined", enc)
        for task, (queries, names, answers) in tasks.items():
            index = pearl.EntityIndex(enc).build(names, show_progress_bar=False)
            q_emb = enc.encode(queries, normalize=True, show_progress_bar=False)
            for option in OPTIONS:
                t = time.perf_counter()
                got = run(index, queries, q_emb, option, scorer, args.candidates)
                rows.append(
                    {
                        "model": model,
                        "task": task,
                        "option": option,
                        "queries": len(queries),
                        "names": len(names),
                        "top1": round(100 * float(np.mean(got == np.asarray(answers))), 2),
                        "seconds": round(time.perf_counter() - t, 2),
                    }
                )
                print(rows[-1], flush=True)
    means = mean_top1(rows, args.models.split(","), OPTIONS)
    best = max(means[(pearl.DEFAULT_MODEL, o)] for o in OPTIONS)
    chosen = next(o for o in OPTIONS if means[(pearl.DEFAULT_MODEL, o)] >= best - 0.5)
    command = f"python experiments/index_matchers.py --candidates {args.candidates}" + "".join(
        f" --{k} {getattr(args, k)}"
        for k in ("aliases", "models", "name")
        if getattr(args, k) != ap.get_default(k)
    )
    OUT.mkdir(parents=True, exist_ok=True)
    stem = args.name or (
        "index_matchers" if args.candidates == 50 else f"index_matchers_c{args.candidates}"
    )
    (OUT / f"{stem}.json").write_text(
        json.dumps({"command": command, "rows": rows, "chosen": chosen}, indent=2) + "\n"
    )
    lines = [
        "# EntityIndex: matcher and candidate rule on three offline name sources",
        "",
        f"`{command}`: top-1 accuracy (%); the seconds of each search (queries encoded "
        f"beforehand) are in the JSON, taken beside other work (not a timing). Chosen by "
        f"the rule of the script for {pearl.DEFAULT_MODEL}: **{chosen}**.",
        "",
        *top1_table(rows, args.models.split(","), OPTIONS, list(tasks)),
    ]
    (OUT / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
