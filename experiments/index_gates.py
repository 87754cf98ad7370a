"""Can a per-query gate keep both the combined matcher's top-1 and cosine's? (issue 33)

``EntityIndex.search``'s combined matcher beats cosine on typos and the training
simulation, and loses to it on pycountry's official names ("French Republic" finds French
Guiana by its letters): ``experiments/results/index_matchers_c10_fixed_aliases.md``. This
script asks whether a rule that chooses, query by query, between the combined top-1 and
the embedding's top-1 can be at least cosine and at least the fixed mix on every task.
Two gates, each over a grid of thresholds, on the same candidates (10 per signal):

- ``deficit``: take the embedding's top-1 when the combined top-1's embedding cosine is
  more than ``d`` below it;
- ``ngram``: take the embedding's top-1 when the combined top-1's n-gram cosine is below
  ``t`` (letters only count when they nearly match).

The rule, fixed before the run: a gate and threshold would replace the combined matcher
only if, for pearl-minilm and pearl-static, their top-1 is at least cosine's and the
mix's on all four tasks (the tasks of ``index_matchers.py``, the alias groups rebuilt by
the fixed ``pearl aliases``). Writes experiments/results/index_gates.{md,json}.

    python experiments/index_gates.py

Recorded at commit 7720bfc: it calls ``EntityIndex.candidates`` and ``rescore`` (and
``match_graph.sketch_index``), which later folded into
``pearl.tables.search.ReferenceIndex``. Re-run it from a worktree of that commit
(``git worktree add data_out/at-7720bfc 7720bfc``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from index_matchers import make_tasks

import pearl
from pearl.tables.matcher import scorer_for
from pearl.tables.ngrams import NgramVectorizer

OUT = Path(__file__).resolve().parent / "results"
GATES = {"deficit": (0.02, 0.05, 0.08, 0.1, 0.15, 0.2, 0.3), "ngram": (0.2, 0.3, 0.4, 0.5, 0.6)}


def top1s(enc, scorer, queries, names, width=10) -> dict[str, np.ndarray]:
    """The top-1 id of every option and gate for one task."""
    index = pearl.EntityIndex(enc).build(names, show_progress_bar=False)
    q = enc.encode(queries, normalize=True, show_progress_bar=False)
    cand = index.candidates(q, queries, width, with_names=False)
    ids, emb = cand.ids, cand.scores
    vectorizer = NgramVectorizer().fit(names)  # what the index fits on its names
    q_ng, n_ng = vectorizer.transform(queries), vectorizer.transform(names)
    ng = np.zeros(ids.shape)
    at = np.nonzero(ids >= 0)
    ng[at] = np.asarray(n_ng[ids[at]].multiply(q_ng[at[0]]).sum(axis=1)).ravel()
    raw = scorer.score(np.where(ids >= 0, emb, 0.0), ng)
    raw[ids < 0] = -np.inf
    mix = np.where(ids >= 0, 0.7 * emb + 0.3 * ng, -np.inf)
    rows = np.arange(len(ids))
    best_emb, best = emb.argmax(1), raw.argmax(1)
    out = {
        "cosine": ids[rows, best_emb],
        "mix": ids[rows, mix.argmax(1)],
        "combined": ids[rows, best],
    }
    deficit = emb[rows, best_emb] - emb[rows, best]
    for d in GATES["deficit"]:
        out[f"deficit {d}"] = np.where(deficit > d, out["cosine"], out["combined"])
    for t in GATES["ngram"]:
        out[f"ngram {t}"] = np.where(ng[rows, best] < t, out["cosine"], out["combined"])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="data_out/corpus/corpus.tsv")
    ap.add_argument("--aliases", default="data_out/aliases-fixed.csv")
    ap.add_argument("--models", default="pearl-minilm,pearl-static")
    args = ap.parse_args()
    tasks = make_tasks(args.corpus, args.aliases)
    table: dict[str, dict[str, dict[str, float]]] = {}
    for model in args.models.split(","):
        enc = pearl.PhraseEncoder(model)
        scorer = scorer_for("combined", enc)
        for task, (queries, names, answers) in tasks.items():
            got = top1s(enc, scorer, queries, names)
            for option, top in got.items():
                cell = round(100 * float(np.mean(top == np.asarray(answers))), 2)
                table.setdefault(model, {}).setdefault(option, {})[task] = cell
            print(model, task, flush=True)
    adopted = [
        o
        for o in next(iter(table.values()))
        if o not in ("cosine", "mix", "combined")
        and all(
            table[m][o][t] >= max(table[m]["cosine"][t], table[m]["mix"][t])
            for m in table
            for t in tasks
        )
    ]
    command = "python experiments/index_gates.py" + "".join(
        f" --{k} {getattr(args, k)}"
        for k in ("corpus", "aliases", "models")
        if getattr(args, k) != ap.get_default(k)
    )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "index_gates.json").write_text(
        json.dumps({"command": command, "top1": table, "adopted": adopted}, indent=2) + "\n"
    )
    lines = [
        "# EntityIndex: per-query gates between the combined and the cosine top-1",
        "",
        f"`{command}`: top-1 accuracy (%), 10 candidates per signal. Gates meeting the rule "
        f"(at least cosine and the mix on every task, both models): "
        f"**{', '.join(adopted) or 'none'}**.",
        "",
        "| model | option | " + " | ".join(tasks) + " |",
        "|---|---|" + "---:|" * len(tasks),
    ]
    for m, options in table.items():
        for o, cells in options.items():
            lines.append(f"| {m} | {o} | " + " | ".join(f"{cells[t]:.1f}" for t in tasks) + " |")
    (OUT / "index_gates.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
