"""Record linkage on few key columns (issue 54): pearl's multi-column ``fuzzy_join`` of
the synthetic people and companies tables (30% of the left rows without a partner) on two
or three of their columns, where a record's fields identify it weakly and the
Fellegi-Sunter model has little to learn from, at the default decision point and at
``precision=0.9``. Neither table is a held-out benchmark.

    python experiments/linkage_few_fields.py [-m pearl-static] [--name linkage_few_fields]

Writes ``experiments/results/<name>.{json,md}``. Run it with ``PYTHONPATH`` on another
checkout's ``src`` to record the code before a change.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

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
