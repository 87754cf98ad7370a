"""Record linkage on few key columns (issue 54): pearl's multi-column ``fuzzy_join`` of
the synthetic people and companies tables (30% of the left rows without a partner) on two
or three of their columns, where a record's fields identify it weakly and the
Fellegi-Sunter model has little to learn from, at the default decision point and at
``precision=0.9``; and the same rows deduplicated (``pearl.cluster`` of the right rows
stacked on the left rows, pairwise precision and recall; "links": pairs within clusters).
Neither table is a held-out benchmark.

    python experiments/linkage_few_fields.py [-m pearl-static] [--name linkage_few_fields]

Writes ``experiments/results/<name>.{json,md}``. Run it with ``PYTHONPATH`` on another
checkout's ``src`` to record the code before a change.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
import warnings
from pathlib import Path

import pandas as pd
from pearl_lab.synthetic import companies, link_scores, people

import pearl

OUT = Path(__file__).resolve().parent / "results"
CASES = [
    ("companies", 1000, ["name", "city"]),
    ("companies", 10000, ["name", "city"]),
    ("companies", 2000, ["name", "street"]),
    ("companies", 500, ["name", "street", "city", "phone"]),
    ("people", 2000, ["first", "surname", "city"]),
    ("people", 2000, ["surname", "dob"]),
]


def deduplicated(a, b, true: set, keys: list[str], model: str, gen: str, n: int) -> dict:
    """``pearl.cluster`` of the right rows stacked on the left rows (each partner a
    duplicate of its right row), scored on the pairs within its clusters."""
    stacked = pd.concat([b[keys], a[keys]], ignore_index=True)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labels = pd.Series(pearl.cluster(stacked, model=model))
    seconds = time.perf_counter() - t0
    pred = set()
    for _, group in labels[labels >= 0].groupby(labels[labels >= 0]):
        pred |= set(itertools.combinations(sorted(group.index), 2))
    # the right table's row i is stacked at i, the left table's row j at len(b) + j
    left_at = {r: len(b) + j for j, r in enumerate(a["rec_id"])}
    right_at = {r: i for i, r in enumerate(b["rec_id"])}
    truth = {tuple(sorted((right_at[r], left_at[q]))) for q, r in true}
    row = {"data": f"{gen}, {n:,} + {n:,} rows", "keys": "+".join(keys), "decision": "cluster"}
    return {**row, "seconds": seconds, **link_scores(pred, truth)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-m", "--model", default="pearl-static")
    ap.add_argument("--name", default="linkage_few_fields", help="output stem")
    args = ap.parse_args()
    generators = {"companies": companies, "people": people}
    rows = []
    for gen, n, keys in CASES:
        a, b, true = generators[gen](n)
        for decision, kw in [
            ("default (threshold 0.5)", {}),
            ("precision=0.9", {"precision": 0.9}),
        ]:
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a switched-off field is in the record
                out = pearl.fuzzy_join(a, b, on=keys, model=args.model, how="inner", **kw)
            row = {"data": f"{gen}, {n:,} x {n:,}", "keys": "+".join(keys), "decision": decision}
            pred = set(zip(out["rec_id"], out["rec_id_right"], strict=True))
            row.update(seconds=time.perf_counter() - t0, **link_scores(pred, true))
            rows.append(row)
            print(json.dumps(row), flush=True)
        rows.append(deduplicated(a, b, true, keys, args.model, gen, n))
        print(json.dumps(rows[-1]), flush=True)
    OUT.mkdir(exist_ok=True)
    (OUT / f"{args.name}.json").write_text(json.dumps(rows, indent=1) + "\n")
    lines = [
        "# Record linkage on few key columns",
        "",
        f"`python experiments/linkage_few_fields.py -m {args.model} --name {args.name}`",
        "",
        "| data | key columns | decision | links | precision | recall | F1 | s |",
        "|---|---|---|---:|---:|---:|---:|---:|",
        *[
            f"| {r['data']} | {r['keys']} | {r['decision']} | {r['links']:,} | "
            f"{r['precision']:.4f} | {r['recall']:.4f} | {r['f1']:.4f} | {r['seconds']:.1f} |"
            for r in rows
        ],
        "",
        "Wall time with the model loaded, taken beside other work: not a benchmark.",
    ]
    (OUT / f"{args.name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
