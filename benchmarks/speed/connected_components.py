"""pearl's connected components (``pearl._graph``, vectorised union-find in NumPy) against
``scipy.sparse.csgraph.connected_components``: the import each costs in a fresh process,
and the time each takes on graphs of the kind clustering makes, with the same labels.

Import: ``python -X importtime``-free wall time of ``import scipy.sparse`` and then of
``scipy.sparse.csgraph`` (what pearl would add) in fresh processes, the median of
``--runs``. Graphs (seeded): random edges (n nodes, n edges), a path of n nodes (the worst
case of hooking), and many small clusters (pairs and triples, as a deduplication of typos
gives). Writes results/benchmarks/connected_components.{md,json}. Run it with nothing else
on the machine.

    python benchmarks/speed/connected_components.py [--n 1000000] [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"

IMPORT = (
    "import time; t = time.perf_counter(); import {first}; a = time.perf_counter(); "
    "import {second}; b = time.perf_counter(); print(a - t, b - a)"
)


def import_cost(runs: int) -> dict:
    """Median seconds of importing scipy.sparse, then scipy.sparse.csgraph after it."""
    firsts, seconds = [], []
    for _ in range(runs):
        code = IMPORT.format(first="numpy, scipy.sparse", second="scipy.sparse.csgraph")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        a, b = (float(x) for x in out.stdout.split())
        firsts.append(a)
        seconds.append(b)
    return {
        "scipy.sparse_s": round(statistics.median(firsts), 3),
        "csgraph_after_sparse_s": round(statistics.median(seconds), 3),
        "csgraph_min_max_s": [round(min(seconds), 3), round(max(seconds), 3)],
    }


def graphs(n: int, seed: int = 0) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    random_edges = (rng.integers(0, n, n), rng.integers(0, n, n))
    order = rng.permutation(n)
    path = (order[:-1], order[1:])
    members = rng.permutation(n)[: (n // 5) * 5].reshape(-1, 5)  # groups of 5 nodes
    small = (members[:, [0, 0, 2]].ravel(), members[:, [1, 2, 3]].ravel())  # pairs, triples
    return {"random edges": random_edges, "path": path, "small clusters": small}


def timed(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components as scipy_components

    from pearl._graph import connected_components

    def with_scipy(n, a, b):
        m = coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n))
        return scipy_components(m, directed=False)[1]

    rows = []
    for name, (a, b) in graphs(args.n).items():
        ours, theirs = connected_components(args.n, a, b), with_scipy(args.n, a, b)
        same = bool(np.array_equal(ours, theirs))
        rows.append(
            {
                "graph": name,
                "nodes": args.n,
                "edges": len(a),
                "pearl_s": round(timed(partial(connected_components, args.n, a, b), args.runs), 3),
                "scipy_s": round(timed(partial(with_scipy, args.n, a, b), args.runs), 3),
                "same_labels": same,
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    imports = import_cost(args.runs)
    print(json.dumps(imports), flush=True)
    command = "python benchmarks/speed/connected_components.py " + " ".join(sys.argv[1:])
    commit = subprocess.run(
        ["git", "-C", str(OUT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    record = {
        "command": command.strip(),
        "date": time.strftime("%Y-%m-%d"),
        "commit": commit,
        "imports": imports,
        "rows": rows,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "connected_components.json").write_text(json.dumps(record, indent=2) + "\n")
    lines = [
        "# Connected components: pearl._graph against scipy.sparse.csgraph",
        "",
        f"`{record['command']}` ({record['date']}, {commit}; median of {args.runs} runs)",
        "",
        "| graph | nodes | edges | pearl s | scipy s (with the matrix) | same labels |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['graph']} | {r['nodes']:,} | {r['edges']:,} | {r['pearl_s']} | "
            f"{r['scipy_s']} | {'yes' if r['same_labels'] else 'no'} |"
        )
    lines += [
        "",
        f"Import in a fresh process: `scipy.sparse` {imports['scipy.sparse_s']} s, then "
        f"`scipy.sparse.csgraph` {imports['csgraph_after_sparse_s']} s more (min-max "
        f"{imports['csgraph_min_max_s'][0]}-{imports['csgraph_min_max_s'][1]}).",
    ]
    (OUT / "connected_components.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
