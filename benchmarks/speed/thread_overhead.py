"""Encoding on the main thread versus in a worker thread of the same process.

Dask runs each task in an executor thread. This measures that setting alone, without Dask:
the same --n PPDB phrases encoded by all-MiniLM-L6-v2 on the main thread and in a
``ThreadPoolExecutor`` thread (each after a warm-up), and torch's thread count in both.
Writes results/benchmarks/thread_overhead.{json,md}.

    python benchmarks/speed/thread_overhead.py [--n 10000]
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch

from pearl import PhraseEncoder
from pearl.paths import data_root

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"


def main() -> None:
    from encode_speed import phrases

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    args = ap.parse_args()
    texts = phrases(args.n, data_root())
    enc = PhraseEncoder("all-MiniLM-L6-v2")

    def timed() -> tuple[float, int]:
        enc.encode(texts[:500])
        t = time.perf_counter()
        enc.encode(texts)
        return time.perf_counter() - t, torch.get_num_threads()

    res = {"main thread": timed()}
    with ThreadPoolExecutor(1) as ex:
        res["executor thread"] = ex.submit(timed).result()
    rows = {k: {"seconds": s, "torch_threads": n} for k, (s, n) in res.items()}
    ratio = rows["executor thread"]["seconds"] / rows["main thread"]["seconds"]
    OUT.mkdir(exist_ok=True)
    (OUT / "thread_overhead.json").write_text(json.dumps({"n": len(texts), "rows": rows,
                                                         "ratio": ratio}, indent=2) + "\n")
    md = ["# Encoding on the main thread vs a worker thread", "",
          f"`python benchmarks/speed/thread_overhead.py --n {args.n}`: {len(texts):,} PPDB "
          "phrases, "
          "all-MiniLM-L6-v2, nothing else running.", "",
          "| thread | seconds | torch threads |", "|---|---:|---:|"]
    md += [f"| {k} | {v['seconds']:.2f} | {v['torch_threads']} |" for k, v in rows.items()]
    md += ["", f"Worker thread / main thread: {ratio:.2f}x. Dask runs tasks in such threads, "
           "which is where most of the Dask join's overhead at 1 worker comes from "
           "(results/benchmarks/dask_join.md).", ""]
    (OUT / "thread_overhead.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
