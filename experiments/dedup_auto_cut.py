"""A lead for issue 37 part 2: the cut of the clustering chosen without labels.

``deduplicate`` cuts its average-linkage tree at a fixed similarity (0.8), which leaves
most misspellings alone (recall about 0.5 in ``benchmarks/quality/dedup_typos.py``). Here
the cut is the one of best silhouette over every number of clusters (as skrub does), on a
similarity that mixes pearl-static's embedding cosine (weight ``w``) with the character
n-gram cosine of pearl's matcher, on the same generated typo tasks. A prototype, not
library code: nothing in ``deduplicate`` changes. Writes
experiments/results/dedup_auto_cut.{md,json}.

    python experiments/dedup_auto_cut.py [--weights 0,0.3,0.5]
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
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform
from sklearn.metrics import silhouette_score

import pearl
from pearl.data.corpus import read_corpus
from pearl.evaluation.pairs import pairwise_cluster_scores as pairwise
from pearl.tables.ngrams import NgramVectorizer

OUT = Path(__file__).resolve().parent / "results"


def auto_cut(values: list[str], encoder, w_emb: float) -> list[int]:
    """Average-linkage clusters of the distinct values, cut at the best silhouette."""
    uniq = list(dict.fromkeys(values))
    ng = NgramVectorizer().fit(uniq).transform(uniq)
    emb = encoder.encode(uniq, normalize_embeddings=True)
    sim = w_emb * (emb @ emb.T) + (1 - w_emb) * (ng @ ng.T).toarray()
    d = np.clip(1 - sim, 0, None)
    np.fill_diagonal(d, 0)
    d = (d + d.T) / 2
    tree = linkage(squareform(d, checks=False), "average")
    best, labels = -2.0, np.zeros(len(uniq), dtype=int)
    for k in range(2, len(uniq)):
        lab = fcluster(tree, k, "maxclust")
        if 2 <= len(set(lab)) < len(uniq):
            s = silhouette_score(d, lab, metric="precomputed")
            if s > best:
                best, labels = s, lab
    lookup = dict(zip(uniq, labels, strict=True))
    return [int(lookup[v]) for v in values]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="data_out/corpus/corpus.tsv")
    ap.add_argument("--weights", default="0,0.3,0.5")
    ap.add_argument("--names", type=int, default=40)
    args = ap.parse_args()
    pool = sorted(
        {
            r.phrase
            for r in read_corpus(args.corpus)
            if r.label.endswith("ORG")
            and re.fullmatch(r"[A-Z][a-z]+( [A-Z][A-Za-z.]+){1,3}", r.phrase)
        }
    )
    names = random.Random(0).sample(pool, args.names)  # the names of dedup_typos.py
    encoder = pearl.PhraseEncoder("pearl-static")
    tasks = [*GENERATORS, "mixed"]
    rows = []
    for w in (float(x) for x in args.weights.split(",")):
        t = time.perf_counter()
        f1 = {
            kind: pairwise(
                auto_cut(make_task(names, kind, 6, 3, 0)[0], encoder, w),
                make_task(names, kind, 6, 3, 0)[1],
            )["f1"]
            for kind in tasks
        }
        rows.append(
            {
                "embedding_weight": w,
                **f1,
                "mean": round(float(np.mean(list(f1.values()))), 4),
                "seconds_all_tasks": round(time.perf_counter() - t, 2),
            }
        )
        print(rows[-1], flush=True)
    command = f"python experiments/dedup_auto_cut.py --weights {args.weights}"
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "dedup_auto_cut.json").write_text(
        json.dumps({"command": command, "rows": rows}, indent=2) + "\n"
    )
    lines = [
        "# Deduplication with the cut chosen by silhouette (prototype)",
        "",
        f"`{command}`: pairwise F1 on the tasks of `benchmarks/quality/dedup_typos.py` "
        "(skrub's deduplicate: mean 0.997 there)",
        "",
        "| embedding weight | " + " | ".join(tasks) + " | mean | seconds |",
        "|---:|" + "---:|" * (len(tasks) + 2),
    ]
    lines += [
        f"| {r['embedding_weight']} | "
        + " | ".join(f"{r[k]:.3f}" for k in tasks)
        + f" | {r['mean']:.3f} | {r['seconds_all_tasks']:.2f} |"
        for r in rows
    ]
    (OUT / "dedup_auto_cut.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
