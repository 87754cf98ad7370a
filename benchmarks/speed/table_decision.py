"""What the one-key join's decision estimated on the tables costs: the wall time of
``fuzzy_join`` on generated companies (``pearl_lab.suite``, 70% of the left rows with a
partner, the fields joined into one key) and, on the same tables, of
``pearl.tables.decoys.table_decision`` alone (both sides' decoys ranked and the model
fitted: the part of the join that the decision adds), and of the join with the right
table read in two chunks (``right_chunksize``: the streamed search, whose decision is
made in the same pass over the chunks). Each figure is the best of
``--repeat`` runs, the process cache of embeddings emptied before each join (the model
stays loaded; the decision reads the queries' embeddings the join made). Run it while
nothing else runs. Writes results/benchmarks/table_decision.{md,json}.

    python benchmarks/speed/table_decision.py [--cases pearl-static:1000,pearl-static:5000]
        [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

from pearl_lab.suite import make, one_key

import pearl
from pearl.tables import clear_caches
from pearl.tables.decoys import table_decision
from pearl.tables.reference import Reference

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"
CASES = "pearl-static:1000,pearl-static:5000,pearl-static:20000,pearl-minilm:1000"


def best_of(repeat: int, work, clear: bool = True) -> float:
    times = []
    for _ in range(repeat):
        if clear:
            clear_caches()
        t0 = time.perf_counter()
        work()
        times.append(time.perf_counter() - t0)
    return min(times)


def measure(model: str, n: int, repeat: int) -> dict:
    a, b, _, keys = make("companies", n, 0.7)
    a, b = one_key(a, keys), one_key(b, keys)
    pearl.fuzzy_join(a.head(50), b.head(50), on="key", model=model)  # the model loaded
    join = best_of(repeat, lambda: pearl.fuzzy_join(a, b, on="key", model=model))
    half = max(n // 2, 1)
    streamed = best_of(
        repeat, lambda: pearl.fuzzy_join(a, b, on="key", model=model, right_chunksize=half)
    )
    ref = Reference(model).fit(b.key, queries=a.key)
    queries = list(dict.fromkeys(ref.normalise_queries(a.key)))
    ng = ref.ngrams_.transform(queries)  # made once for the search and the decision
    _, probs, apart = ref.rank_evidence(queries, 1, ng=ng)

    def decide() -> None:
        ref.decoys_ = None  # the reference's decoys made again
        table_decision(ref, probs[:, 0], apart[:, 0], queries, ng)

    # the queries' embeddings stay cached: the join has just encoded them
    decision = best_of(repeat, decide, clear=False)
    return {
        "model": model,
        "rows": n,
        "join_s": join,
        "decision_s": decision,
        "streamed_join_s": streamed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=CASES, help="MODEL:ROWS, comma-separated")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--name", default="", help="suffix of the record's file names")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    rows = []
    for case in args.cases.split(","):
        model, n = case.split(":")
        rows.append(measure(model, int(n), args.repeat))
        print(rows[-1], file=sys.stderr)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    command = "python " + " ".join(["benchmarks/speed/table_decision.py", *sys.argv[1:]])
    meta = {"date": time.strftime("%Y-%m-%d"), "commit": commit, "command": command}
    lines = [
        f"# The one-key join's decision: its cost ({meta['date']}, commit {commit})",
        "",
        f"`{command}`",
        "",
        "Companies, 70% of the left rows with a partner, one key; best of "
        f"{args.repeat} runs each.",
        "",
        "| model | rows (left = right) | fuzzy_join (s) | of which the decision (s) | share "
        "| right table in two chunks (s) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        share = r["decision_s"] / r["join_s"]
        lines.append(
            f"| {r['model']} | {r['rows']:,} | {r['join_s']:.2f} | {r['decision_s']:.2f} | "
            f"{share:.0%} | {r['streamed_join_s']:.2f} |"
        )
    OUT.mkdir(parents=True, exist_ok=True)
    stem = "table_decision" + (f"_{args.name}" if args.name else "")
    (OUT / f"{stem}.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    (OUT / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
