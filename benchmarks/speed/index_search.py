"""EntityIndex.search: the combined matcher's time against the cosine search's.

Index: ``--names`` training-corpus phrases (``pearl build-corpus``; no benchmark file);
queries: ``--queries`` of them with one keyboard slip each (seeded). Each search is a
user's call (encoding the queries included), best of ``--repeat`` runs of each,
the two matchers alternated, after one warm-up search that
loads the model and makes the index's n-gram rows; and the first search of each matcher
on a new index (made from the names' vectors, so that both pay the same build), which
for the combined matcher includes the set-up of the n-gram rows and their sketch. Run with
nothing else on the machine.
Writes results/benchmarks/index_search.{md,json}.

    python benchmarks/speed/index_search.py [--model pearl-static] [--names 20000]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"


def main() -> None:
    import pearl
    from pearl.augment.char import keyboard_typo
    from pearl.data.corpus import read_corpus

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="data_out/corpus/corpus.tsv")
    ap.add_argument("--model", default="pearl-static")
    ap.add_argument("--names", type=int, default=20_000)
    ap.add_argument("--queries", type=int, default=5_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    rng = random.Random(0)
    names = rng.sample(sorted({r.phrase for r in read_corpus(args.corpus)}), args.names)
    source = rng.sample(range(len(names)), args.queries)
    queries = [keyboard_typo(names[i], rng) for i in source]
    index = pearl.EntityIndex(args.model).build(names, show_progress_bar=False)
    best = {"cosine": np.inf, "combined": np.inf}
    got = {}
    for matcher in best:
        index.search(queries[:100], top_k=1, matcher=matcher)  # warm-up
    for _ in range(args.repeat):  # alternated: a slow spell of the machine hits both
        for matcher in best:
            t = time.perf_counter()
            got[matcher] = index.search(queries, top_k=1, matcher=matcher)
            best[matcher] = min(best[matcher], time.perf_counter() - t)
    vectors = index.encoder.encode(names, normalize=True, show_progress_bar=False)
    for matcher in ("cosine", "combined"):
        best[f"{matcher}, first call on a new index"] = np.inf
    for _ in range(args.repeat):
        for matcher in ("cosine", "combined"):
            key = f"{matcher}, first call on a new index"
            fresh = pearl.EntityIndex(args.model).add_embeddings(names, vectors)
            t = time.perf_counter()
            got[key] = fresh.search(queries, top_k=1, matcher=matcher)
            best[key] = min(best[key], time.perf_counter() - t)
    rows = [
        {
            "matcher": m,
            "seconds": round(best[m], 3),
            "top1": round(100 * float(np.mean(got[m].ids[:, 0] == np.asarray(source))), 2),
        }
        for m in best
    ]
    print(rows, flush=True)
    ratio = rows[1]["seconds"] / rows[0]["seconds"]
    first_ratio = rows[3]["seconds"] / rows[2]["seconds"]
    command = (
        f"python benchmarks/speed/index_search.py --model {args.model} --names {args.names} "
        f"--queries {args.queries}"
    )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "index_search.json").write_text(
        json.dumps(
            {
                "command": command,
                "rows": rows,
                "ratio": round(ratio, 2),
                "first_call_ratio": round(first_ratio, 2),
            },
            indent=2,
        )
        + "\n"
    )
    lines = [
        "# EntityIndex.search: combined against cosine",
        "",
        f"`{command}` (nothing else running; 2 CPU cores): {args.queries:,} one-typo queries "
        f"against {args.names:,} corpus phrases, encoding included, best of {args.repeat} "
        "(the two alternated).",
        "",
        "| matcher | seconds | top-1 (%) |",
        "|---|---:|---:|",
        *[f"| {r['matcher']} | {r['seconds']:.2f} | {r['top1']:.1f} |" for r in rows],
        "",
        f"The combined search takes {ratio:.2f}x the cosine search's time, and "
        f"{first_ratio:.2f}x on the first call on a new index.",
    ]
    (OUT / "index_search.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
