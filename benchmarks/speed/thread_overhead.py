"""Encoding on the main thread versus in a worker thread of the same process.

Dask runs each task in an executor thread. This measures that setting alone, without Dask:
the same --n PPDB phrases encoded by all-MiniLM-L6-v2 (each after a warm-up) in a
``ThreadPoolExecutor`` thread before any other thread has computed, then on the main thread,
then in a second executor thread while the main thread's OpenMP team still exists; and
torch's thread count in each. Writes results/benchmarks/thread_overhead.{json,md}.

    python benchmarks/speed/thread_overhead.py [--n 10000]
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch
from pearl_lab import data_root

from pearl import PhraseEncoder

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

    res = {}
    with ThreadPoolExecutor(1) as ex:  # the thread (and its OpenMP team) ends with the block
        res["executor thread, first to compute"] = ex.submit(timed).result()
    res["main thread"] = timed()
    with ThreadPoolExecutor(1) as ex:
        res["executor thread, after the main thread"] = ex.submit(timed).result()
    rows = {k: {"seconds": s, "torch_threads": n} for k, (s, n) in res.items()}
    ratio = (
        rows["executor thread, after the main thread"]["seconds"] / rows["main thread"]["seconds"]
    )
    first = rows["executor thread, first to compute"]["seconds"] / rows["main thread"]["seconds"]
    OUT.mkdir(exist_ok=True)
    (OUT / "thread_overhead.json").write_text(
        json.dumps({"n": len(texts), "rows": rows, "ratio": ratio, "first_ratio": first}, indent=2)
        + "\n"
    )
    md = [
        "# Encoding on the main thread vs a worker thread",
        "",
        f"`python benchmarks/speed/thread_overhead.py --n {args.n}`: {len(texts):,} PPDB "
        "phrases, "
        "all-MiniLM-L6-v2, nothing else running.",
        "",
        "| thread | seconds | torch threads |",
        "|---|---:|---:|",
    ]
    md += [f"| {k} | {v['seconds']:.2f} | {v['torch_threads']} |" for k, v in rows.items()]
    md += [
        "",
        f"An executor thread that is the first to compute takes {first:.2f}x the main "
        f"thread's time; one that computes while the main thread's OpenMP team exists "
        f"takes {ratio:.2f}x. This fits libgomp's throttling: it counts the threads of every "
        "team, and once they outnumber the cores its threads stop spinning between parallel "
        "regions and sleep at once, as with OMP_WAIT_POLICY=PASSIVE (which, set by hand, "
        "slowed the main thread to the same time). A Dask worker computes "
        "with torch on its one task thread only, so it does not pay this "
        "(results/benchmarks/dask_join.md).",
        "",
    ]
    (OUT / "thread_overhead.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
