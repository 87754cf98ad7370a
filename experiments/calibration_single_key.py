"""Is the join's match probability calibrated? A reliability table (issue 54, part 4).

Each left row's best candidate (``threshold=0``) is binned by its match probability; per
bin: the links, their mean probability and the share that is a true pair. A calibrated
probability has the two close in every bin. The generated tables of
``linkage_unmatched.py`` (people, companies; 30% of the left rows without a partner),
joined on one key column (the fields joined by spaces, as a user without record linkage
would) and on their several columns, with pearl-static. Development data only.

    python experiments/calibration_single_key.py [--people 1000,10000] [--companies 1000]

Writes ``experiments/results/calibration_single_key.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from linkage_unmatched import one_key
from pearl_lab.synthetic import companies, people

import pearl

OUT = Path(__file__).resolve().parent / "results"
BINS = (0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0)
KEYS = {
    "people": ["first", "surname", "city", "dob"],
    "companies": ["name", "street", "city", "phone", "postcode"],
}


def reliability(p: np.ndarray, correct: np.ndarray) -> list[dict]:
    """Per probability bin: links, mean probability, share correct."""
    rows = []
    for lo, hi in zip(BINS[:-1], BINS[1:], strict=True):
        inside = (p >= lo) & ((p < hi) if hi < 1.0 else (p <= hi))
        n = int(inside.sum())
        rows.append(
            {
                "bin": f"{lo:.2f}-{hi:.2f}",
                "links": n,
                "mean_p": float(p[inside].mean()) if n else None,
                "correct": float(correct[inside].mean()) if n else None,
            }
        )
    return rows


def run(kind: str, n: int, model: str, single: bool) -> dict:
    a, b, true = (people if kind == "people" else companies)(n)
    keys = KEYS[kind]
    if single:
        a, b, keys = one_key(a, keys), one_key(b, keys), "key"
    out = pearl.fuzzy_join(a, b, on=keys, model=model, how="inner", threshold=0)
    p = out["match_score"].to_numpy(np.float64)
    correct = np.array(
        [(x, y) in true for x, y in zip(out["rec_id"], out["rec_id_right"], strict=True)]
    )
    return {
        "data": f"{kind}, {n:,} x {n:,}",
        "keys": "one key" if single else "several columns",
        "bins": reliability(p, correct),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--people", default="1000,10000")
    ap.add_argument("--companies", default="1000")
    ap.add_argument("-m", "--model", default="pearl-static")
    args = ap.parse_args()
    results = []
    for kind, sizes in (("people", args.people), ("companies", args.companies)):
        for n in [int(x) for x in sizes.split(",") if x]:
            for single in (True, False):
                results.append(run(kind, n, args.model, single))
                print(json.dumps(results[-1]), flush=True)
    OUT.mkdir(exist_ok=True)
    (OUT / "calibration_single_key.json").write_text(json.dumps(results, indent=1) + "\n")
    lines = [
        "# Reliability of the join's match probability",
        "",
        f"`python experiments/calibration_single_key.py --people {args.people} "
        f"--companies {args.companies} -m {args.model}`: each left row's best candidate "
        "(`threshold=0`) binned by its probability; 30% of the left rows have no partner.",
        "",
        "| data | keys | bin | links | mean probability | share correct |",
        "|---|---|---|---:|---:|---:|",
    ]
    for r in results:
        for b in r["bins"]:
            if b["links"]:
                lines.append(
                    f"| {r['data']} | {r['keys']} | {b['bin']} | {b['links']:,} | "
                    f"{b['mean_p']:.3f} | {b['correct']:.3f} |"
                )
    (OUT / "calibration_single_key.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
