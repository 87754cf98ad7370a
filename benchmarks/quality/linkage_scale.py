"""A multi-column join's links as the left table grows: 20,000 to 1,000,000 left rows
against 1,000 right records, joined on two key columns with ``pearl join``.

Generated tables (no benchmark file): a pool of 20,000 distinct (name, city) records, of
which the right table is 1,000; the left table's rows are drawn from the pool with
replacement, so about one in twenty is a right record, equal on both keys, and the rest
have no partner. Three pools: **recurring names** (a name from three word lists, held by
records of several cities, as in a register of firms), **numbered names** (the same
with a number 1-99: names unique, and a different firm one digit apart) and **initialled
names** (people: a first name, a middle initial and a surname from short lists, in ten
cities: names one edit apart are common, and so is a shared city). Each size runs
``pearl join LEFT RIGHT --left-on name city --right-on title town -m MODEL`` in a fresh
process and counts, against the equal pairs: links, equal pairs linked, wrong links, and
the wall time of the command. Writes results/benchmarks/linkage_scale.{md,json}.

    python benchmarks/quality/linkage_scale.py [--sizes 20000,50000,200000,1000000]
        [--pools recurring,numbered,initialled]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
from pearl_lab.synthetic import CITY, FIRST, LAST, TRADES, WORDS

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"

#: the lab's synthetic companies' words (pearl_lab.synthetic), and five cities more
CITY = [*CITY, *"tokyo osaka seoul cairo lima".split()]


#: the pools: the name of each, and whether its names are numbered or initialled people
POOLS = {"recurring names": "firms", "numbered names": "numbered", "initialled names": "people"}
INITIALS = "ABCDEFGHIJKLMNOPRSTW"


def pool(kind: str, n: int = 20_000, seed: int = 0) -> list[tuple[str, str]]:
    """``n`` distinct (name, city) records of a kind of :data:`POOLS` in a seeded random
    order."""
    rng, records = random.Random(seed), set()
    while len(records) < n:
        if kind == "people":  # the lab's ten cities, as the people tables have them
            name = f"{rng.choice(FIRST)} {rng.choice(INITIALS)}. {rng.choice(LAST)}".title()
            records.add((name, rng.choice(CITY[:10]).title()))
            continue
        name = f"{rng.choice(WORDS)} {rng.choice(LAST)} {rng.choice(TRADES)}".title()
        if kind == "numbered":
            name += f" {rng.randint(1, 99)}"
        records.add((name, rng.choice(CITY).title()))
    out = sorted(records)
    rng.shuffle(out)
    return out


def run_one(records, n_left: int, model: str, folder: Path, seed: int = 1) -> dict:
    rng = random.Random(seed)
    right = pd.DataFrame(records[:1000], columns=["title", "town"])
    left = pd.DataFrame([records[rng.randrange(len(records))] for _ in range(n_left)])
    left.columns = ["name", "city"]
    lpath, rpath, opath = folder / "left.csv", folder / "right.csv", folder / "out.csv"
    left.to_csv(lpath, index=False)
    right.to_csv(rpath, index=False)
    argv = ["pearl", "join", str(lpath), str(rpath), "--left-on", "name", "city"]
    argv += ["--right-on", "title", "town", "-m", model, "-o", str(opath)]
    t0 = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if done.returncode:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr}")
    out = pd.read_csv(opath, dtype=str, keep_default_na=False, na_values=[""])
    truth = set(records[:1000])
    equal = [(a, b) in truth for a, b in zip(left["name"], left["city"], strict=True)]
    equal_s = pd.Series(equal)
    linked = out["match_score"].notna()
    right_one = (out["title"] == out["name"]) & (out["town"] == out["city"])
    return {
        "left_rows": n_left,
        "equal_pairs": int(equal_s.sum()),
        "links": int(linked.sum()),
        "equal_pairs_linked": int((linked & right_one & equal_s).sum()),
        "wrong_links": int((linked & ~(right_one & equal_s)).sum()),
        "seconds": round(seconds, 1),
        "warnings": [line for line in done.stderr.splitlines() if "warning" in line],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="20000,50000,200000,1000000")
    ap.add_argument("-m", "--model", default="pearl-static")
    ap.add_argument("--pools", default="", help="e.g. initialled,numbered (default: all)")
    ap.add_argument("--name", default="linkage_scale", help="output stem")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, kind in POOLS.items():
            if args.pools and name.split()[0] not in args.pools.split(","):
                continue
            records = pool(kind)
            for n in [int(x) for x in args.sizes.split(",") if x]:
                row = {"pool": name}
                row |= run_one(records, n, args.model, Path(tmp))
                rows.append(row)
                print(json.dumps(row), flush=True)
    command = "python benchmarks/quality/linkage_scale.py " + " ".join(sys.argv[1:])
    OUT.mkdir(parents=True, exist_ok=True)
    import pearl

    commit = subprocess.run(
        ["git", "-C", str(Path(pearl.__file__).parent), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    day = time.strftime("%Y-%m-%d")
    record = {"command": command.strip(), "model": args.model, "date": day, "commit": commit}
    record["rows"] = rows
    (OUT / f"{args.name}.json").write_text(json.dumps(record, indent=2) + "\n")
    lines = [
        "# Multi-column join: links as the left table grows",
        "",
        f"`{command.strip()}` (model {args.model}; 1,000 right records; {day}, pearl at "
        f"{commit}; wall time of the whole command, beside whatever else ran)",
        "",
        "| pool | left rows | equal pairs | links | equal pairs linked | wrong links | s |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['pool']} | {r['left_rows']:,} | {r['equal_pairs']:,} | {r['links']:,} | "
            f"{r['equal_pairs_linked']:,} | {r['wrong_links']:,} | {r['seconds']} |"
        )
    (OUT / f"{args.name}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
