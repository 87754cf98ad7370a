"""Deduplication of typo'd spellings: pearl's ``deduplicate`` against skrub's.

The data is made here, never taken from skrub's tests: ``--names`` organisation names typed
ORG in the training corpus (``pearl build-corpus``; no benchmark file), each written
correctly ``--count`` times and misspelt a few times by one generator per task (keyboard
slips, dropped letters, swapped letters, abbreviations, or all of them mixed). Each method
clusters the column without labels (its defaults: no number of clusters given) and is scored
by pairwise precision, recall and F1 over the rows (two rows are a pair when they share a
cluster), with its wall time (a model is loaded before the clock starts, the embeddings of
earlier runs are forgotten; the best of ``--repeat`` runs, 3 by default). Writes
results/benchmarks/dedup_typos.{md,json}; with another ``--names``,
dedup_typos_NAMES.{md,json} (skrub's search over every number of clusters grows fast with
the distinct values: ``--names 200`` is where the time target is read).

    python benchmarks/quality/dedup_typos.py [--names 40] [--count 6] [--typos 3] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from pathlib import Path

import numpy as np
from pearl_lab.typos import GENERATORS, make_task

import pearl
from pearl.data.corpus import read_corpus
from pearl.evaluation.pairs import pairwise_cluster_scores
from pearl.tables import clear_caches

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"


def methods(skrub: bool = True) -> dict:
    """The methods compared, by label: skrub's ``deduplicate`` (when ``skrub``), pearl's
    defaults, pearl-static with the same matcher and cut, and pearl's former default."""
    import pearl
    from pearl.tables.dedup import DEFAULT_THRESHOLD

    def pearl_dedup(model, **options):
        def run(values):
            return list(pearl.deduplicate(values, model=model, **options))

        return run

    cut = DEFAULT_THRESHOLD["probability"]
    out = {}
    if skrub:
        import skrub as sk

        out["skrub deduplicate (defaults)"] = lambda values: list(sk.deduplicate(values))
    out[f"pearl deduplicate (defaults: {pearl.DEFAULT_MODEL}, combined, {cut})"] = pearl_dedup(
        pearl.DEFAULT_MODEL
    )
    out[f"pearl deduplicate, pearl-static (combined, {cut})"] = pearl_dedup("pearl-static")
    out["pearl deduplicate, all-MiniLM-L6-v2, cosine 0.8 (the former default)"] = pearl_dedup(
        "all-MiniLM-L6-v2", matcher="cosine", threshold=0.8
    )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="data_out/corpus/corpus.tsv")
    ap.add_argument("--names", type=int, default=40)
    ap.add_argument("--count", type=int, default=6, help="correct spellings per name")
    ap.add_argument("--typos", type=int, default=3, help="misspellings per name")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per method (best kept)")
    args = ap.parse_args()
    pool = sorted(
        {
            r.phrase
            for r in read_corpus(args.corpus)
            if r.label.endswith("ORG")
            and re.fullmatch(r"[A-Z][a-z]+( [A-Z][A-Za-z.]+){1,3}", r.phrase)
        }
    )
    names = random.Random(args.seed).sample(pool, args.names)
    for model in (pearl.DEFAULT_MODEL, "pearl-static", "all-MiniLM-L6-v2"):
        pearl.cluster(["warm up"], model=model)  # loaded once, outside the clock
    rows = []
    for kind in [*GENERATORS, "mixed"]:
        values, truth = make_task(names, kind, args.count, args.typos, args.seed)
        for label, run in methods().items():
            times = []
            for _ in range(args.repeat):  # the same clusters each time; the best time
                # no embedding computed by an earlier run or task: each run encodes its column
                clear_caches(models=False)
                t = time.perf_counter()
                pred = run(values)
                times.append(time.perf_counter() - t)
            seconds = min(times)
            rows.append(
                {
                    "task": kind,
                    "method": label,
                    **pairwise_cluster_scores(pred, truth),
                    "seconds": round(seconds, 4),
                    "rows": len(values),
                    "clusters": len(set(pred)),
                }
            )
            print(rows[-1], flush=True)
    command = (
        "python benchmarks/quality/dedup_typos.py --names {names} --count {count} --typos {typos} "
        "--repeat {repeat}"
    ).format(**vars(args))
    OUT.mkdir(parents=True, exist_ok=True)
    stem = "dedup_typos" if args.names == 40 else f"dedup_typos_{args.names}"
    (OUT / f"{stem}.json").write_text(
        json.dumps({"command": command, "names": names, "rows": rows}, indent=2) + "\n"
    )
    lines = [
        "# Deduplication of generated typos",
        "",
        f"`{command}` ({args.names} ORG names "
        f"of the training corpus, {args.count} correct and {args.typos} misspelt rows "
        f"each; {args.names} true clusters; pairwise scores over rows; seconds: the best of "
        f"{args.repeat} runs)",
        "",
        "| task | method | precision | recall | F1 | clusters | seconds | time / skrub's |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    skrub = {r["task"]: r["seconds"] for r in rows if r["method"].startswith("skrub")}
    ratio = {id(r): r["seconds"] / skrub[r["task"]] for r in rows if r["task"] in skrub}
    lines += [
        f"| {r['task']} | {r['method']} | {r['precision']:.3f} | {r['recall']:.3f} | "
        f"{r['f1']:.3f} | {r['clusters']} | {r['seconds']:.3f} | "
        + (f"{ratio[id(r)]:.3f} |" if id(r) in ratio else "|")
        for r in rows
    ]
    mean = {}
    for r in rows:
        mean.setdefault(r["method"], []).append(r)
    lines += ["", "| method | mean F1 | largest time / skrub's |", "|---|---:|---:|"]
    lines += [
        f"| {m} | {np.mean([r['f1'] for r in v]):.3f} | "
        + (f"{max(ratio[id(r)] for r in v):.3f} |" if all(id(r) in ratio for r in v) else "|")
        for m, v in mean.items()
    ]
    (OUT / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
