"""One-key deduplication decided by the join's local false-link rate, the null taken from
each value's second-best candidate (issue 80 experiment).

    python experiments/dedup_second_best.py [--kinds people,ocr]
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from pearl_lab.suite import FEBRL_KEYS, KINDS, febrl1, make, one_key
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from pearl.tables.decision import fit_decision
from pearl.tables.reference import Reference

K = 4


def cluster_pairs(labels: np.ndarray, true: set) -> dict:
    """Pair precision, recall and F1 of cluster ``labels`` (as the decision suite counts)."""
    labels = np.asarray(labels)
    sizes = np.bincount(labels[labels >= 0]) if (labels >= 0).any() else np.zeros(0)
    found = int((sizes * (sizes - 1) // 2).sum())
    hits = sum(labels[i] >= 0 and labels[i] == labels[j] for i, j in true)
    p, r = hits / max(found, 1), hits / max(len(true), 1)
    return {"precision": p, "recall": r, "f1": 2 * p * r / max(p + r, 1e-12)}


def second_best_labels(key: pd.Series, model: str, cut: float = 0.5, info=None):
    texts = key.astype(str).tolist()
    uniq = list(dict.fromkeys(texts))
    ref = Reference(model).fit(uniq)
    ids, p, apart = ref.rank_evidence(uniq, K + 1)
    n = len(uniq)
    self_ = ids == np.arange(n)[:, None]
    # drop self, shift left
    order = np.argsort(self_, axis=1, kind="stable")
    ids, p, apart = (np.take_along_axis(x, order, 1)[:, :K] for x in (ids, p, apart))
    p = np.where(ids >= 0, p, -np.inf)
    fit = fit_decision(p[:, 0], apart[:, 0], p[:, 1], apart[:, 1])
    if info is not None:
        info["unmatched"] = None if fit is None else fit.unmatched
    chance = fit.probability(p, apart)
    rows, cols = np.nonzero((chance >= cut) & (ids >= 0))
    g = coo_matrix((np.ones(len(rows)), (rows, ids[rows, cols])), shape=(n, n))
    _, lab = connected_components(g, directed=False)
    at = {t: i for i, t in enumerate(uniq)}
    return np.array([lab[at[t]] for t in texts])


def row(name, key, pairs, model):
    info = {}
    m = cluster_pairs(second_best_labels(key, model, info=info), pairs)
    print(
        f"{name:32s} F1 {m['f1']:.3f} P {m['precision']:.3f} R {m['recall']:.3f} "
        f"unmatched {info['unmatched']:.3f}",
        flush=True,
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kinds", default=",".join(KINDS) + ",febrl1")
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
