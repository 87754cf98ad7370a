"""One-key deduplication decided by the records' Fellegi-Sunter model (issue 80).

A key is split into its words (digits taken out) and its digit runs; the two parts are
compared as the fields of a record (:func:`pearl.tables.record_linkage.cluster_records`),
so a digit typo is a level with an estimated weight, not a cap (this script's first
split: punctuation kept, no NFKC). Compared with the installed ``pearl.cluster`` of the
key (the rules; at 0f0c53c, reverted, the shipped split) on
the decision suite's stacked tables and FEBRL1.

    python experiments/dedup_one_key_fields.py [--kinds people,ocr]
"""

from __future__ import annotations

import os
import time

import numpy as np
import pandas as pd
from pearl_lab.suite import KINDS, cluster_pairs, stacked_from_command_line

import pearl
from pearl.tables.encoding import get_encoder
from pearl.tables.matcher import scorer_for
from pearl.tables.record_linkage import cluster_records

#: random pairs for u (RANDOM_PAIRS in the environment)
RANDOM = int(os.environ.get("RANDOM_PAIRS", 50000))


def split_key(key: pd.Series) -> pd.DataFrame:
    k = key.astype("string")
    words = k.str.replace(r"\d+", " ", regex=True).str.split().str.join(" ")
    digits = k.str.findall(r"\d+").str.join(" ")
    return pd.DataFrame({"words": words.replace("", pd.NA), "digits": digits.replace("", pd.NA)})


def fields_cluster(key: pd.Series, model: str, threshold: float = 0.6) -> np.ndarray:
    enc = get_encoder(model)
    table = split_key(key)
    if table["digits"].isna().all():
        table = table[["words"]]
    return cluster_records(
        table,
        encoder=enc,
        scorer=scorer_for("combined", enc),
        threshold=threshold,
        random_pairs=RANDOM,
    )


def row(name, key, pairs, model):
    out = {"set": name}
    for how, fn in (
        ("pearl.cluster", lambda: pearl.cluster(key, model=model)),
        ("fields", lambda: fields_cluster(key, model)),
    ):
        t0 = time.perf_counter()
        labels = fn()
        m = cluster_pairs(labels, pairs)
        out[how] = (
            f"{m['f1']:.3f} ({m['precision']:.3f}/{m['recall']:.3f})"
            f" {time.perf_counter() - t0:.1f}s"
        )
    print(out, flush=True)
    return out


def main():
    args, sets = stacked_from_command_line(",".join(KINDS))
    for name, key, pairs in sets:
        row(name, key, pairs, args.model)


if __name__ == "__main__":
    main()
