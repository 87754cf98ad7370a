"""Does the join's match probability hold in a small reference table? (issue 54, part 4)

The combined matcher's probability of a candidate among others reads its score and its
lead over the best other candidate; it was calibrated on a reference of 20,000 corpus
phrases (``pearl.training.matcher_weights``). A user's lookup table often holds tens of
rows. Here: references of ``--sizes`` corpus phrases (``pearl build-corpus``; no benchmark
file), and as many queries: 70% a reference row with one keyboard slip, 30% another
corpus phrase with one slip (no partner). ``fuzzy_join(threshold=0)`` links each query to
its best candidate; a link is correct when it is the query's source phrase (case and
spaces aside) or, for a query without a partner, a phrase written the same. Repeated over
seeds until about ``--queries`` queries a size. Reported per size: the links at the
default threshold (0.5), their mean probability and precision, the recall of the
partnered queries, what ``precision=0.9`` delivers, and a reliability table.

    python experiments/calibration_reference_size.py [-m pearl-static] [--sizes 10,100,10000]

Writes ``experiments/results/calibration_reference_size[_NAME].{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np
import pandas as pd

import pearl
from pearl.augment.char import keyboard_typo
from pearl.data.corpus import read_corpus

OUT = Path(__file__).resolve().parent / "results"
BINS = (0.0, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0)


def _same(x: str) -> str:
    return " ".join(str(x).lower().split())


def one_table(pool: list[str], n: int, rng: random.Random):
    """A reference of ``n`` phrases and its queries: (queries, source or None, reference)."""
    drawn = rng.sample(pool, 2 * n)
    reference, others = drawn[:n], drawn[n:]
    queries, sources = [], []
    for i in range(n):
        if rng.random() < 0.7:
            queries.append(keyboard_typo(reference[i], rng))
            sources.append(reference[i])
        else:
            queries.append(keyboard_typo(others[i], rng))
            sources.append(None)
    return queries, sources, reference


def correct_links(out: pd.DataFrame, queries, sources) -> np.ndarray:
    """Whether each link names the query's source (or, unpartnered, the query's text)."""
    want = {q: _same(s if s is not None else q) for q, s in zip(queries, sources, strict=True)}
    return np.array(
        [want[q] == _same(r) for q, r in zip(out["q"], out["name"], strict=True)], dtype=bool
    )


def run_size(pool, n: int, encoder, n_queries: int) -> dict:
    probs, right, partnered, p9 = [], [], [], []
    for seed in range(max(1, n_queries // n)):  # at least one table (of n queries)
        queries, sources, reference = one_table(pool, n, random.Random(seed))
        left, ref = pd.DataFrame({"q": queries}), pd.DataFrame({"name": reference})
        out = pearl.fuzzy_join(
            left, ref, left_on="q", right_on="name", model=encoder, how="inner", threshold=0
        )
        probs.append(out["match_score"].to_numpy(np.float64))
        right.append(correct_links(out, queries, sources))
        has = {q: s is not None for q, s in zip(queries, sources, strict=True)}
        partnered.append(np.array([has[q] for q in out["q"]]))
        o9 = pearl.fuzzy_join(
            left, ref, left_on="q", right_on="name", model=encoder, how="inner", precision=0.9
        )
        p9.append(correct_links(o9, queries, sources))
    p, ok, has, ok9 = (np.concatenate(x) for x in (probs, right, partnered, p9))
    at = p >= 0.5
    bins = []
    for lo, hi in zip(BINS[:-1], BINS[1:], strict=True):
        inside = (p >= lo) & ((p < hi) if hi < 1.0 else (p <= hi))
        if inside.any():
            bins.append(
                {
                    "bin": f"{lo:.2f}-{hi:.2f}",
                    "links": int(inside.sum()),
                    "mean_p": float(p[inside].mean()),
                    "correct": float(ok[inside].mean()),
                }
            )
    return {
        "size": n,
        "queries": int(len(p)),
        "links_at_0.5": int(at.sum()),
        "mean_p_at_0.5": float(p[at].mean()) if at.any() else None,
        "precision_at_0.5": float(ok[at].mean()) if at.any() else None,
        "recall_at_0.5": float((ok & at & has).sum() / max(has.sum(), 1)),
        "precision_0.9_links": int(len(ok9)),
        "precision_0.9_delivers": float(ok9.mean()) if len(ok9) else None,
        "bins": bins,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="data_out/corpus/corpus.tsv")
    ap.add_argument("-m", "--model", default="pearl-static")
    ap.add_argument("--sizes", default="10,30,100,1000,10000")
    ap.add_argument("--queries", type=int, default=3000)
    ap.add_argument("--name", default="")
    args = ap.parse_args()
    pool = sorted({r.phrase for r in read_corpus(args.corpus) if 3 <= len(r.phrase) <= 40})
    encoder = pearl.PhraseEncoder(args.model)
    results = []
    for n in (int(x) for x in args.sizes.split(",")):
        t = time.perf_counter()
        results.append(run_size(pool, n, encoder, args.queries))
        results[-1]["seconds"] = round(time.perf_counter() - t, 1)
        print(json.dumps({k: v for k, v in results[-1].items() if k != "bins"}), flush=True)
    stem = "calibration_reference_size" + (f"_{args.name}" if args.name else "")
    OUT.mkdir(exist_ok=True)
    (OUT / f"{stem}.json").write_text(json.dumps(results, indent=1) + "\n")
    lines = [
        "# The join's match probability by reference size",
        "",
        f"`python experiments/calibration_reference_size.py -m {args.model} --sizes "
        f"{args.sizes} --queries {args.queries}`: corpus phrases, 70% of the queries a "
        "reference row with one keyboard slip, 30% without a partner.",
        "",
        "| reference rows | queries | links at 0.5 | mean p | precision | recall | "
        "`precision=0.9` links | delivers |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['size']:,} | {r['queries']:,} | {r['links_at_0.5']:,} | "
            f"{r['mean_p_at_0.5']:.3f} | {r['precision_at_0.5']:.3f} | {r['recall_at_0.5']:.3f} | "
            f"{r['precision_0.9_links']:,} | {r['precision_0.9_delivers']:.3f} |"
        )
    lines += ["", "| reference rows | bin | links | mean p | share correct |"]
    lines.append("|---:|---|---:|---:|---:|")
    for r in results:
        for b in r["bins"]:
            lines.append(
                f"| {r['size']:,} | {b['bin']} | {b['links']:,} | {b['mean_p']:.3f} | "
                f"{b['correct']:.3f} |"
            )
    (OUT / f"{stem}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
