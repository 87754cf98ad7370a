"""The cut of ``deduplicate`` on two kinds of development data: typos and dense lists.

``dedup_threshold.py`` chose the cut on typo tasks only: a few distinct names, each
misspelt several times. Real columns are often lists of many distinct but similar names
(species of one genus, branches of one bank), where a low cut merges distinct entities.
Here a second family of development tasks is made from the training corpus (never a
benchmark file): typed names that share their first word with at least five others,
grouped by that word ("Bank of ...", "University of ..."; one form per entity, company
suffixes and a plural s aside), 40 groups per task; a third of
the names also appear once more, misspelt or abbreviated by the generators of
dedup_typos.py (their cluster is their name's); every other name is its own cluster.
Three tasks, drawn with seeds 1-3, none of the names dedup_typos.py reports on.

The rule, fixed before the run: for the default model, the (matcher, threshold) of the
highest mean of the two families' mean F1 (typos: dedup_threshold.py's record; dense
lists: here), ties to the higher threshold. Writes
experiments/results/dedup_dense_lists.{md,json}.

    python experiments/dedup_dense_lists.py
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import defaultdict
from pathlib import Path

import numpy as np
from pearl_lab.typos import GENERATORS

import pearl
from pearl.data.corpus import read_corpus
from pearl.evaluation.pairs import pairwise_cluster_scores

OUT = Path(__file__).resolve().parent / "results"
THRESHOLDS = [round(t, 2) for t in np.arange(0.3, 0.96, 0.05)]
NAME = re.compile(r"[A-Z][a-z]+( [A-Za-z][A-Za-z.]+){1,4}")
_SUFFIX = re.compile(r"( (co|corp|inc|ltd|limited|corporation|company|plc|group)\.?)+$")


def dense_task(groups: dict[str, list[str]], seed: int, n_groups: int = 40):
    rng = random.Random(seed)
    keys = rng.sample(sorted(groups), n_groups)
    values, truth = [], []
    for key in keys:
        for name in groups[key]:
            values.append(name)
            truth.append(name)
            if rng.random() < 1 / 3:
                values.append(rng.choice(list(GENERATORS.values()))(name, rng))
                truth.append(name)
    order = rng.sample(range(len(values)), len(values))
    return [values[i] for i in order], [truth[i] for i in order]


def name_groups(corpus: str, reported: set[str]) -> dict[str, list[str]]:
    by_first = defaultdict(set)
    for r in read_corpus(corpus):
        if (
            r.label.split("-")[-1] in ("ORG", "GPE", "FAC", "PERSON", "LOC")
            and NAME.fullmatch(r.phrase)
            and r.phrase not in reported
        ):
            by_first[r.phrase.split()[0]].add(r.phrase)
    out = {}
    for k, v in by_first.items():
        keep, seen = [], set()
        for name in sorted(v):  # one form per entity: "American Express (Co.)" once
            key = _SUFFIX.sub("", name.lower()).rstrip("s")
            if key not in seen:
                seen.add(key)
                keep.append(name)
        if len(keep) >= 6:
            out[k] = keep[:12]
    return out


def dense_tasks(corpus: str) -> dict[str, tuple[list[str], list[str]]]:
    """The three dense-list development tasks (seeds 1-3), none of the names that
    dedup_typos.py reports on."""
    record = Path(__file__).resolve().parents[1] / "results" / "benchmarks" / "dedup_typos.json"
    groups = name_groups(corpus, set(json.loads(record.read_text())["names"]))
    return {f"dense{s}": dense_task(groups, s) for s in (1, 2, 3)}


def development_tasks(corpus: str) -> tuple[dict, dict]:
    """The two development families the dedup experiments choose on: the typo tasks of
    dedup_threshold.py (40 seed-1 corpus names, each generator, seed 1) and the three
    dense lists of :func:`dense_tasks`; each a dict of task name to (values, truth)."""
    from dedup_threshold import dev_names
    from pearl_lab.typos import make_task

    names = dev_names(corpus, 40)
    typos = {kind: make_task(names, kind, 6, 3, 1) for kind in [*GENERATORS, "mixed"]}
    return typos, dense_tasks(corpus)


def family_scores(f1: dict[str, float], typos: dict, dense: dict) -> dict[str, float]:
    """Mean F1 of the typo family, of the dense family, and their mean (``overall``)."""
    typo = float(np.mean([f1[k] for k in typos]))
    den = float(np.mean([f1[k] for k in dense]))
    return {"typos": round(typo, 4), "dense": round(den, 4), "overall": round((typo + den) / 2, 4)}


def unique_graph(values: list[str], encoder, top_k: int = 5, **rules):
    """The distinct values of a column, each row's position among them, their counts,
    and ``cluster``'s match graph over them (combined matcher; ``rules`` go to
    :func:`pearl.tables.match_graph.match_graph`)."""
    from pearl.tables.match_graph import match_graph
    from pearl.tables.matcher import scorer_for

    uniq, inverse, counts = np.unique(
        np.array(values, dtype=object), return_inverse=True, return_counts=True
    )
    uniq = uniq.tolist()
    emb = encoder.encode(uniq, normalize_embeddings=True)
    graph = match_graph(uniq, emb, scorer_for("combined", encoder), top_k=top_k, **rules)
    return uniq, inverse, counts, graph


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="data_out/corpus/corpus.tsv")
    ap.add_argument("--models", default="pearl-minilm,pearl-static")
    args = ap.parse_args()
    typo_record = json.loads((OUT / "dedup_threshold.json").read_text())
    tasks = dense_tasks(args.corpus)
    rows = []
    for model in args.models.split(","):
        enc = pearl.PhraseEncoder(model)
        for matcher in ("cosine", "combined"):
            typo_mean = {
                r["threshold"]: r["mean"]
                for r in typo_record["rows"]
                if r["model"] == model and r["matcher"] == matcher
            }
            for t in THRESHOLDS:
                f1 = {
                    k: pairwise_cluster_scores(
                        pearl.cluster(v, threshold=t, model=enc, matcher=matcher), y
                    )["f1"]
                    for k, (v, y) in tasks.items()
                }
                dense = float(np.mean(list(f1.values())))
                typo = typo_mean.get(t)
                rows.append(
                    {
                        "model": model,
                        "matcher": matcher,
                        "threshold": t,
                        **f1,
                        "dense_mean": round(dense, 4),
                        "typo_mean": typo,
                        "overall": None if typo is None else round((dense + typo) / 2, 4),
                    }
                )
                print(rows[-1], flush=True)
    default_rows = [r for r in rows if r["model"] == pearl.DEFAULT_MODEL and r["overall"]]
    chosen = max(default_rows, key=lambda r: (r["overall"], r["threshold"]))
    command = "python experiments/dedup_dense_lists.py"
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "dedup_dense_lists.json").write_text(
        json.dumps(
            {
                "command": command,
                "tasks": {k: len(v[0]) for k, v in tasks.items()},
                "rows": rows,
                "chosen": chosen,
            },
            indent=2,
        )
        + "\n"
    )
    lines = [
        "# The cut of deduplicate on typos and on dense lists (development data)",
        "",
        f"`{command}`: mean pairwise F1 on three dense-list tasks made from the training "
        f"corpus ({', '.join(str(len(v[0])) for v in tasks.values())} rows) and on the typo "
        "tasks of `dedup_threshold.py`; overall = the mean of the two. Chosen for "
        f"{pearl.DEFAULT_MODEL} by the rule of the script: **{chosen['matcher']}, "
        f"{chosen['threshold']}** (overall {chosen['overall']:.3f}).",
        "",
        "| model | matcher | threshold | dense lists | typos | overall |",
        "|---|---|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {r['model']} | {r['matcher']} | {r['threshold']} | {r['dense_mean']:.3f} | "
        + (f"{r['typo_mean']:.3f} | {r['overall']:.3f} |" if r["overall"] else "– | – |")
        for r in rows
    ]
    (OUT / "dedup_dense_lists.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:6]))


if __name__ == "__main__":
    main()
