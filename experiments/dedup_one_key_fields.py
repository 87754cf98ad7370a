"""One-key deduplication decided by the records' Fellegi-Sunter model (issue 80).

A key is split into its words (digits taken out) and its digit runs; the two parts are
compared as the fields of a record (:func:`pearl.tables.record_linkage.cluster_records`),
so a digit typo is a level with an estimated weight, not a cap (this script's first
split: punctuation kept, no NFKC). Compared with the installed ``pearl.cluster`` of the
key (the rules up to b84c3f8; since 0f0c53c the shipped split, ``dedup._key_fields``) on
the decision suite's stacked tables and FEBRL1.

    python experiments/dedup_one_key_fields.py [--kinds people,ocr]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd
from pearl_lab.suite import FEBRL_KEYS, KINDS, febrl1, make, one_key

import pearl
from pearl.tables.encoding import get_encoder
from pearl.tables.matcher import scorer_for
from pearl.tables.record_linkage import cluster_records

#: random pairs for u (RANDOM_PAIRS in the environment)
RANDOM = int(os.environ.get("RANDOM_PAIRS", 50000))


def cluster_pairs(labels: np.ndarray, true: set) -> dict:
    """Pair precision, recall and F1 of cluster ``labels`` (as the decision suite counts)."""
    labels = np.asarray(labels)
    sizes = np.bincount(labels[labels >= 0]) if (labels >= 0).any() else np.zeros(0)
    found = int((sizes * (sizes - 1) // 2).sum())
    hits = sum(labels[i] >= 0 and labels[i] == labels[j] for i, j in true)
    p, r = hits / max(found, 1), hits / max(len(true), 1)
    return {"precision": p, "recall": r, "f1": 2 * p * r / max(p + r, 1e-12)}


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
    ap = argparse.ArgumentParser()
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--shares", default="0.2,0.7,0.95")
    ap.add_argument("-m", "--model", default="pearl-static")
    args = ap.parse_args()
    for kind in args.kinds.split(","):
        if kind == "febrl1":
            for removed in (0.0, 0.7):
                table, pairs = febrl1(removed)
                row(
                    f"febrl1 removed={removed}",
                    one_key(table, FEBRL_KEYS)["key"],
                    pairs,
                    args.model,
                )
            continue
        for share in map(float, args.shares.split(",")):
            n = 5000 if kind == "febrl4" else args.n
            a, b, true, keys = make(kind, n, share)
            both = pd.concat([a[keys], b[keys]], ignore_index=True)
            at_a = {r: k for k, r in enumerate(a["rec_id"])}
            at_b = {r: len(a) + k for k, r in enumerate(b["rec_id"])}
            pairs = {(at_a[i], at_b[j]) for i, j in true}
            row(f"{kind} share={share}", one_key(both, keys)["key"], pairs, args.model)


if __name__ == "__main__":
    main()
