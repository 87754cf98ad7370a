"""Issue 33: the approximate neighbours of ``cluster`` above 20,000 values, IVF or HNSW.

``cluster``'s match graph links each value to its nearest values by embedding and by
n-gram sketch. Above :data:`pearl.tables.search.EXACT_MAX` values the search is
approximate. The former search, a faiss IVF index of 2 sqrt(n) lists with 16 probed per
query, costs each query 16 lists of n / (2 sqrt(n)) rows: its total grows as n^1.5, and at
1,000,000 values the embedding search alone ran past 6 minutes. Here it is measured beside
the current one, a faiss HNSW graph (:meth:`pearl.tables.search.ReferenceIndex.neighbours`
with ``exact_max=0``), on the values of ``benchmarks/speed/dedup_scale.py`` (training-corpus
phrases and their misspellings; no benchmark file), embedded by pearl-static: wall time
(building and searching) and the share of 2,000 sampled values' exact 6 nearest (self
included) that each search finds. Run with nothing else on the machine. Writes
experiments/results/dedup_neighbours.{md,json}.

    python experiments/dedup_neighbours.py [--sizes 100000,300000]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "results"


def ivf_neighbours(x: np.ndarray, k: int, nprobe: int = 16) -> np.ndarray:
    """The former search: faiss IVF-flat, 2 sqrt(n) lists trained on 40 rows per list."""
    import faiss

    n, dim = x.shape
    nlist = max(1, min(int(2 * np.sqrt(n)), n // 40))
    index = faiss.IndexIVFFlat(faiss.IndexFlatIP(dim), dim, nlist, faiss.METRIC_INNER_PRODUCT)
    index.cp.seed = 0
    rng = np.random.default_rng(0)
    index.train(x[np.sort(rng.choice(n, size=min(n, 40 * nlist), replace=False))])
    index.add(x)
    index.nprobe = nprobe
    return index.search(x, k + 1)[1]


def hnsw_neighbours(x: np.ndarray, k: int) -> np.ndarray:
    """The current search, with each row itself put back in front (as IVF returns it)."""
    from pearl.tables.search import ReferenceIndex

    ids, _ = ReferenceIndex(x, exact_max=0).neighbours(k)
    return np.concatenate([np.arange(len(x))[:, None], ids], axis=1)


def main() -> None:
    import faiss
    from pearl_lab.typos import make_values

    from pearl.encoders import load_encoder

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="data_out/corpus/corpus.tsv")
    ap.add_argument("--sizes", default="100000,300000")
    args = ap.parse_args()
    encoder, k, rows = load_encoder("pearl-static"), 5, []
    for n in [int(s) for s in args.sizes.split(",")]:
        values, _ = make_values(args.corpus, n)
        x = np.ascontiguousarray(encoder.encode(values, show_progress_bar=False), np.float32)
        sample = np.random.default_rng(1).choice(n, 2000, replace=False)
        _, exact = faiss.knn(x[sample], x, k + 1, metric=faiss.METRIC_INNER_PRODUCT)
        for name, search in (
            ("IVF, 2 sqrt(n) lists, 16 probes", ivf_neighbours),
            ("HNSW, 16 links, widths 32", hnsw_neighbours),
        ):
            t = time.perf_counter()
            ids = search(x, k)
            seconds = time.perf_counter() - t
            found = np.mean(
                [len(set(ids[i]) & set(e)) / (k + 1) for i, e in zip(sample, exact, strict=True)]
            )
            rows.append(
                {
                    "values": n,
                    "search": name,
                    "seconds": round(seconds, 1),
                    "recall": round(float(found), 4),
                }
            )
            print(rows[-1], flush=True)
    command = f"python experiments/dedup_neighbours.py --sizes {args.sizes}"
    (OUT / "dedup_neighbours.json").write_text(
        json.dumps({"command": command, "rows": rows}, indent=1) + "\n"
    )
    lines = [
        "# Approximate neighbours of cluster's match graph: IVF against HNSW",
        "",
        f"`{command}` (nothing else running; 2 CPU cores): pearl-static embeddings of corpus",
        "phrases and their misspellings; seconds to build and search, and the share of 2,000",
        "sampled values' exact 6 nearest (self included) found.",
        "",
        "| values | search | seconds | recall of the exact 6 nearest |",
        "|---:|---|---:|---:|",
        *[
            f"| {r['values']:,} | {r['search']} | {r['seconds']:.1f} | {r['recall']:.3f} |"
            for r in rows
        ],
    ]
    (OUT / "dedup_neighbours.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
