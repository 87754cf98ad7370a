"""A few rows looked up in a large register: ``fuzzy_join`` of 100 or 1,000 left rows
against 100,000 right rows, on several key columns (record linkage) and on one.

The tables are ``pearl_lab.synthetic``'s linkage generators (no benchmark file): ``people``
(first name, surname, city, date of birth) and ``companies`` (name, street, city, phone,
postcode), the left table cut to its first rows; for one key, the companies' name and
street joined ("Acme Corp 12 Oak Road"; 100,000 distinct right keys). pearl runs with its
defaults after a warm-up call (libraries imported, model loaded); each case twice, the
best time kept; the links scored against the true pairs among the rows kept. Run it while
nothing else runs.

    python benchmarks/speed/lookup.py [-m pearl-static] [--left 100,1000] [--right 100000]
        [--name lookup]

Writes results/benchmarks/NAME.{json,md}. ``PYTHONPATH=<old checkout>/src`` times older code.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from pearl_lab.synthetic import companies, link_scores, people

import pearl

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"
KEYS = {
    "people": ["first", "surname", "city", "dob"],
    "companies": ["name", "street", "city", "phone", "postcode"],
}


def one_key(table):
    """The companies with one key: name and street joined."""
    return table.assign(key=table["name"] + " " + table["street"])


def cases(n_right: int, lefts: list[int]):
    """(table, key columns, left rows, left, right, true pairs) of every case."""
    for name, make in (("people", people), ("companies", companies)):
        a, b, true = make(n_right)
        for n in lefts:
            yield name, KEYS[name], n, a.iloc[:n], b, true
    a, b, true = companies(n_right)
    a, b = one_key(a), one_key(b).drop_duplicates("key")
    for n in lefts:
        yield "companies", "key", n, a.iloc[:n], b, true


def run(model: str, n_right: int, lefts: list[int]) -> list[dict]:
    rows = []
    for table, keys, n, a, b, true in cases(n_right, lefts):
        kept = set(b["rec_id"])
        truth = {(x, y) for x, y in true if x < n and y in kept}  # left rec_id is its row
        best = None
        for _ in range(2):
            t0 = time.perf_counter()
            out = pearl.fuzzy_join(a, b, on=keys, model=model, how="inner")
            seconds = time.perf_counter() - t0
            best = seconds if best is None else min(best, seconds)
        pred = set(zip(out["rec_id"], out["rec_id_right"], strict=True))
        on = "+".join(keys) if isinstance(keys, list) else "name street (one key)"
        row = {"table": table, "keys": on, "left": n, "right": len(b), "seconds": best}
        rows.append({**row, **link_scores(pred, truth)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-m", "--model", default="pearl-static")
    ap.add_argument("--left", default="100,1000", help="left rows of each case")
    ap.add_argument("--right", type=int, default=100_000, help="right rows")
    ap.add_argument("--name", default="lookup")
    args = ap.parse_args()
    lefts = [int(x) for x in args.left.split(",") if x]
    a, b, _ = people(50, seed=99)
    pearl.fuzzy_join(a, b, on=KEYS["people"], model=args.model)  # warm-up
    rows = run(args.model, args.right, lefts)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{args.name}.json").write_text(json.dumps(rows, indent=1) + "\n")
    command = f"python benchmarks/speed/lookup.py -m {args.model} --left {args.left}"
    command += f" --right {args.right}" + (f" --name {args.name}" if args.name != "lookup" else "")
    lines = [
        "# A few rows looked up in a large register",
        "",
        f"`{command}`",
        "",
        "| table | key columns | left rows | right rows | s (best of 2) | precision | recall |",
        "|---|---|---:|---:|---:|---:|---:|",
        *[
            f"| {r['table']} | {r['keys']} | {r['left']:,} | {r['right']:,} | "
            f"{r['seconds']:.1f} | {r['precision']:.4f} | {r['recall']:.4f} |"
            for r in rows
        ],
        "",
        "Wall time of `fuzzy_join` with the model loaded (its defaults), on this machine's "
        "2 CPUs with nothing else running.",
    ]
    (OUT / f"{args.name}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
