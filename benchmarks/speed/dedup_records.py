"""Multi-column deduplication (``pearl.cluster`` of a table of records) against splink's
``dedupe_only``, on synthetic tables with duplicates (issue 54, part 6).

Each table is the two sides of ``pearl_lab.synthetic``'s linkage generators stacked:
``people`` (first name, surname, city, date of birth; 70% of the first ``n`` rows are a
second row with one typo) and ``companies`` (name, street, city, phone, postcode; 70% a
second row as another source writes it). No benchmark file. pearl runs with its defaults
(threshold 0.6) after a warm-up call on 50 rows (libraries imported, model loaded);
splink with settings written here for these columns (the same as
``experiments/linkage_unmatched.py`` uses for linkage: blocking on the date of birth and
on first name + surname, or on the postcode and on the phone reduced to its digits; u by
random sampling, m by EM on each blocking rule), clustered at probability 0.5. Pairwise
precision, recall and F1 of the clusters against the true duplicates; wall time. Run it
while nothing else runs.

    python benchmarks/speed/dedup_records.py [-m pearl-static] [--sizes 10000,50000]
        [--no-splink] [--name dedup_records]

Writes results/benchmarks/NAME.{json,md}. ``PYTHONPATH=<old checkout>/src`` times older code
(the record ``dedup_records_efc1558``: before the sample check).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
from pearl_lab.synthetic import companies, people

import pearl

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"
KEYS = {
    "people": ["first", "surname", "city", "dob"],
    "companies": ["name", "street", "city", "phone", "postcode"],
}


def stacked(kind: str, n: int) -> tuple[pd.DataFrame, set]:
    """The generator's two tables as one (``2 n`` rows) and its true duplicate pairs."""
    left, right, truth = (people if kind == "people" else companies)(n)
    table = pd.concat([left[KEYS[kind]], right[KEYS[kind]]], ignore_index=True)
    return table, {(i, n + j) for i, j in truth}


def pair_scores(labels, truth: set) -> dict:
    """Pairwise precision, recall and F1 of cluster ``labels`` (-1: alone)."""
    labels = np.asarray(labels)
    rows = np.flatnonzero(labels >= 0)
    pred = set()
    for _, group in pd.Series(rows).groupby(labels[rows]):
        g = group.tolist()
        pred.update((a, b) for i, a in enumerate(g) for b in g[i + 1 :])
    tp = len(pred & truth)
    p, r = tp / max(len(pred), 1), tp / max(len(truth), 1)
    return {"pairs": len(pred), "precision": p, "recall": r, "f1": 2 * p * r / max(p + r, 1e-12)}


def run_pearl(table: pd.DataFrame, model: str) -> tuple[dict, np.ndarray]:
    pearl.cluster(table.head(50), model=model)  # warm-up: imports and the model
    t0 = time.perf_counter()
    labels = pearl.cluster(table, model=model)
    return {"tool": f"pearl ({model})", "seconds": time.perf_counter() - t0}, labels


def run_splink(kind: str, table: pd.DataFrame) -> tuple[dict, np.ndarray]:
    import splink.comparison_library as cl
    from splink import DuckDBAPI, Linker, SettingsCreator, block_on

    t0 = time.perf_counter()
    table = table.astype(str).assign(rec_id=range(len(table)))
    if kind == "companies":
        table["phone"] = table["phone"].str.replace(r"\D", "", regex=True)
        rules = [block_on("postcode"), block_on("phone")]
        comparisons = [cl.JaroWinklerAtThresholds(c, [0.95, 0.88]) for c in ("name", "street")]
        comparisons += [cl.ExactMatch(c) for c in ("city", "phone", "postcode")]
        sure = block_on("phone", "postcode")
    else:
        rules = [block_on("first", "surname"), block_on("dob")]
        comparisons = [cl.NameComparison("first"), cl.NameComparison("surname")]
        comparisons += [cl.LevenshteinAtThresholds("city", [1, 2])]
        comparisons += [
            cl.DateOfBirthComparison("dob", input_is_string=True, datetime_format="%Y-%m-%d")
        ]
        sure = block_on("first", "surname", "dob")
    settings = SettingsCreator(
        unique_id_column_name="rec_id",
        link_type="dedupe_only",
        blocking_rules_to_generate_predictions=rules,
        comparisons=comparisons,
    )
    linker = Linker(DuckDBAPI().register(table), settings)
    linker.training.estimate_probability_two_random_records_match([sure], recall=0.7)
    linker.training.estimate_u_using_random_sampling(max_pairs=1e6)
    for rule in rules:
        linker.training.estimate_parameters_using_expectation_maximisation(rule)
    pred = linker.inference.predict(threshold_match_probability=0.5)
    clusters = linker.clustering.cluster_pairwise_predictions_at_threshold(pred, 0.5)
    found = clusters.as_pandas_dataframe()
    labels = np.full(len(table), -1)
    codes = pd.factorize(found["cluster_id"])[0]
    labels[found["rec_id"].astype(int).to_numpy()] = codes
    return {"tool": "splink (DuckDB), p >= 0.5", "seconds": time.perf_counter() - t0}, labels


def write(rows: list[dict], name: str, command: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.json").write_text(json.dumps(rows, indent=1) + "\n")
    lines = ["# Multi-column deduplication against splink", "", f"`{command}`", ""]
    lines += ["| table | rows | tool | seconds | pairs | precision | recall | F1 |"]
    lines += ["|---|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r['table']} | {r['rows']:,} | {r['tool']} | {r['seconds']:.2f} | "
            f"{r['pairs']:,} | {r['precision']:.4f} | {r['recall']:.4f} | {r['f1']:.4f} |"
        )
    (OUT / f"{name}.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-m", "--model", default="pearl-static")
    ap.add_argument("--sizes", default="10000,50000", help="n of each generator (2n rows)")
    ap.add_argument("--tables", default="people,companies")
    ap.add_argument("--no-splink", action="store_true")
    ap.add_argument("--name", default="dedup_records")
    args = ap.parse_args()
    rows = []
    for kind in args.tables.split(","):
        for n in (int(s) for s in args.sizes.split(",")):
            table, truth = stacked(kind, n)
            runs = [run_pearl(table, args.model)]
            if not args.no_splink:
                runs.append(run_splink(kind, table))
            for row, labels in runs:
                row = {"table": kind, "rows": len(table), **row, **pair_scores(labels, truth)}
                print(json.dumps(row), flush=True)
                rows.append(row)
    command = "python benchmarks/speed/dedup_records.py"
    for flag, value, default in [
        ("-m", args.model, "pearl-static"),
        ("--sizes", args.sizes, "10000,50000"),
        ("--tables", args.tables, "people,companies"),
        ("--name", args.name, "dedup_records"),
    ]:
        command += f" {flag} {value}" if value != default else ""
    write(rows, args.name, command + (" --no-splink" if args.no_splink else ""))


if __name__ == "__main__":
    main()
