"""Issue 53: the typo rule of ``cluster`` tied to the length of the values.

Today two values one edit apart (case aside, the shorter of at least 4 characters) are
linked with probability at least 0.95 (``ONE_EDIT``, experiments/dedup_one_edit.py); a
value with two or more typos gets only the matcher's probability (about 0.2-0.5), so a
column where a frequent category has many rare, heavily misspelt copies (skrub's
``make_deduplication_data``) keeps them apart; and two short codes one edit apart ("aaa",
"aaab"; "NBC", "NBA") are merged by the matcher's probability alone (0.66 for "aaa" and
"aaab"), though a short string one edit from another is often another thing.

Variants, on the match graph of ``cluster`` (combined matcher, abbreviation rule on, rows
weighing, cut 0.6, top_k 5):

- ``one edit >= 4``: today's rule;
- ``edits len//c``: a link whose two values are at most ``k = len(shorter) // c`` edits
  apart (optimal string alignment, case aside; ``k >= 1``) gets ``max(p, 0.95)``;
- ``+ short``: besides, a link between two values one edit apart whose shorter has fewer
  than 4 characters gets ``min(p, 0.5)`` (below the cut).

Four families of development data, none from a benchmark file: the typo tasks and the
dense lists of the earlier experiments (``dedup_dense_lists.development_tasks``), and two
new ones made here from the training corpus: ``heavy`` (the 40 development names of the
typo tasks, each written 5-50 times and misspelt 2-6 times by substituting each letter
with probability 0.05 or 0.1, at least one: skrub's generator, per letter) and ``short``
(200 all-capital ORG codes of 2-5 letters from the corpus, each its own entity, written
1-5 times, a third of them once more in lower case; seeds 1-3).

The rule, fixed before the run: for the default model, the variant of highest overall
score (mean of the four families' mean pairwise F1) becomes ``cluster``'s rule; a variant
within 0.002 of today's rule does not replace it; ties among others go to the larger
``c``, then without ``short``. skrub's own test case (``make_deduplication_data`` with its
categories) is reported beside, never used to choose. Writes
experiments/results/dedup_edit_length.{md,json}.

    python experiments/dedup_edit_length.py
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

import numpy as np
from dedup_dense_lists import development_tasks, unique_graph
from dedup_threshold import dev_names
from rapidfuzz.distance import OSA
from rapidfuzz.process import cpdist

import pearl
from pearl.data.corpus import read_corpus
from pearl.evaluation.pairs import pairwise_cluster_scores
from pearl.tables.linkage import graph_average_linkage
from pearl.tables.match_graph import abbreviation_apart

OUT = Path(__file__).resolve().parent / "results"
VARIANTS = [("one edit >= 4", 0, False), ("one edit >= 4", 0, True)] + [
    (f"edits len//{c}", c, short) for c in (4, 5, 6, 8) for short in (False, True)
]
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def misspell(name: str, q: float, rng: random.Random) -> str:
    """Each letter replaced by a random lower-case letter with probability ``q`` (at least
    one letter replaced)."""
    chars = list(name)
    spots = [i for i, ch in enumerate(chars) if ch.isalpha()]
    hit = [i for i in spots if rng.random() < q] or [rng.choice(spots)]
    for i in hit:
        chars[i] = rng.choice(LETTERS)
    return "".join(chars)


def heavy_task(names: list[str], q: float, seed: int) -> tuple[list[str], list[int]]:
    rng = random.Random(seed)
    values, truth = [], []
    for g, name in enumerate(names):
        values += [name] * rng.randint(5, 50)
        values += [misspell(name, q, rng) for _ in range(rng.randint(2, 6))]
        truth += [g] * (len(values) - len(truth))
    order = rng.sample(range(len(values)), len(values))
    return [values[i] for i in order], [truth[i] for i in order]


def short_tasks(corpus: str) -> dict[str, tuple[list[str], list[str]]]:
    codes = sorted(
        {
            r.phrase
            for r in read_corpus(corpus)
            if r.label.endswith("ORG") and re.fullmatch(r"[A-Z]{2,5}", r.phrase)
        }
    )
    out = {}
    for seed in (1, 2, 3):
        rng = random.Random(seed)
        values, truth = [], []
        for code in rng.sample(codes, 200):
            values += [code] * rng.randint(1, 5)
            if rng.random() < 1 / 3:
                values.append(code.lower())
            truth += [code] * (len(values) - len(truth))
        order = rng.sample(range(len(values)), len(values))
        out[f"short{seed}"] = ([values[i] for i in order], [truth[i] for i in order])
    return out


def edits_apart(uniq: list[str], rows, cols) -> tuple[np.ndarray, np.ndarray]:
    """The OSA distance (case aside, capped at 9) and the shorter length of each link."""
    lower = [t.lower() for t in uniq]
    dist = cpdist(
        [lower[i] for i in rows], [lower[j] for j in cols], scorer=OSA.distance, workers=1
    )
    length = np.array([len(t) for t in lower])
    return np.minimum(dist, 9), np.minimum(length[rows], length[cols])


def labels(values: list[str], encoder, cut: float = 0.6) -> dict:
    uniq, inverse, counts, graph = unique_graph(values, encoder)
    rows, cols = graph.rows, graph.cols
    base = np.where(
        abbreviation_apart(uniq, rows, cols), np.maximum(graph.weights, 0.95), graph.weights
    )
    dist, shorter = edits_apart(uniq, rows, cols)
    out = {}
    for name, c, short in VARIANTS:
        allowed = np.where(shorter >= 4, 1, 0) if c == 0 else shorter // c
        w = np.where((dist >= 1) & (dist <= allowed), np.maximum(base, 0.95), base)
        if short:
            w = np.where((dist == 1) & (shorter < 4), np.minimum(w, 0.5), w)
        lab = graph_average_linkage(len(uniq), rows, cols, w, cut, counts)
        out[(name, c, short)] = lab[inverse].tolist()
    return out


def skrub_case(encoder) -> dict[str, int]:
    """Clusters found in skrub's test_deduplicate data (3, 2 and 5 true categories)."""
    from skrub.datasets import make_deduplication_data

    cats = [
        "Example Category",
        "Generic",
        "Random Word",
        "Pretty similar category",
        "Final cluster",
    ]
    out = {}
    for entries, q in [
        ([500, 100, 1500], 0.05),
        ([100, 100], 0.02),
        ([200, 50, 30, 200, 800], 0.01),
    ]:
        data = make_deduplication_data(cats[: len(entries)], entries, q, np.random.RandomState(123))
        for key, lab in labels(data, encoder).items():
            out.setdefault(str(key), []).append(len(set(lab)))
    words = ["aac", "aaa", "aaab", "aaa", "aaab", "aaa", "aaab", "aaa"]
    for key, lab in labels(words, encoder).items():
        out[str(key)].append(len(set(lab)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="data_out/corpus/corpus.tsv")
    ap.add_argument("--models", default="pearl-minilm,pearl-static")
    args = ap.parse_args()
    typos, dense = development_tasks(args.corpus)
    names = dev_names(args.corpus, 40)
    heavy = {f"heavy{q}": heavy_task(names, q, 1) for q in (0.05, 0.1)}
    short = short_tasks(args.corpus)
    families = {"typos": typos, "dense": dense, "heavy": heavy, "short": short}
    rows = []
    for model in args.models.split(","):
        enc = pearl.PhraseEncoder(model)
        f1: dict = {}
        for fam in families.values():
            for task, (v, y) in fam.items():
                for variant, lab in labels(v, enc).items():
                    f1.setdefault(variant, {})[task] = pairwise_cluster_scores(lab, y)["f1"]
        skrub = skrub_case(enc)
        for (name, c, short_cap), scores in f1.items():
            means = {k: float(np.mean([scores[t] for t in fam])) for k, fam in families.items()}
            rows.append(
                {
                    "model": model,
                    "variant": name + (" + short" if short_cap else ""),
                    "c": c,
                    "short": short_cap,
                    **{k: round(v, 4) for k, v in scores.items()},
                    **{f"mean_{k}": round(v, 4) for k, v in means.items()},
                    "overall": round(float(np.mean(list(means.values()))), 4),
                    "skrub_clusters": skrub[str((name, c, short_cap))],
                }
            )
            print(rows[-1], flush=True)
    default = [r for r in rows if r["model"] == pearl.DEFAULT_MODEL]
    today = next(r for r in default if r["c"] == 0 and not r["short"])
    best = max(default, key=lambda r: (r["overall"], r["c"], not r["short"]))
    chosen = best if best["overall"] > today["overall"] + 0.002 else today
    write(rows, chosen, families)


def write(rows: list[dict], chosen: dict, families: dict) -> None:
    command = "python experiments/dedup_edit_length.py"
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "dedup_edit_length.json").write_text(
        json.dumps({"command": command, "rows": rows, "chosen": chosen}, indent=2) + "\n"
    )
    lines = [
        "# The typo rule of cluster tied to length (development data)",
        "",
        f"`{command}`: mean pairwise F1 per family of development tasks (corpus names, no "
        "benchmark file; see the script); overall = the mean of the four families; combined "
        "matcher, abbreviation rule, rows weighing, cut 0.6, top_k 5. Chosen by the rule of "
        f"the script for {pearl.DEFAULT_MODEL}: **{chosen['variant']}** (overall "
        f"{chosen['overall']:.3f}). skrub: clusters found on skrub's test_deduplicate data "
        "(true: 3, 2, 5) and on its `aac/aaa/aaab` case (true: 3); reported, not used to "
        "choose.",
        "",
        "| model | variant | typos | dense | heavy | short | overall | skrub clusters |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['model']} | {r['variant']} | "
            + " | ".join(f"{r['mean_' + k]:.3f}" for k in families)
            + f" | {r['overall']:.3f} | {', '.join(map(str, r['skrub_clusters']))} |"
        )
    (OUT / "dedup_edit_length.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
