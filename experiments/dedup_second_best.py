"""One-key deduplication decided by the join's local false-link rate, the null taken from
each value's second-best candidate (issue 80 experiment).

    python experiments/dedup_second_best.py [--kinds people,ocr]
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pearl_lab.suite import KINDS, cluster_pairs, stacked_from_command_line
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from pearl.tables.decision import fit_decision
from pearl.tables.reference import Reference

K = 4


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
    args, sets = stacked_from_command_line(",".join(KINDS) + ",febrl1")
    for name, key, pairs in sets:
        row(name, key, pairs, args.model)


if __name__ == "__main__":
    main()
