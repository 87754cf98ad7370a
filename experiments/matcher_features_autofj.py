"""AutoFJ top-1 of pearl-static's combined matcher with and without the reference
density features (weights fitted on matcher_features.py's training-pipeline candidates only; AutoFJ
only measures the choice made there).

    python experiments/matcher_features_autofj.py pearl-static
"""

import sys

import numpy as np
from autofj_ceilings import first_candidates
from pearl_lab import data_root

from pearl.encoders import PhraseEncoder
from pearl.encoders.base import normalize_rows
from pearl.evaluation.tasks.autofj import dataset_names, load_autofj
from pearl.tables.matcher import nonnegative_logistic
from pearl.tables.ngrams import NgramVectorizer

model = sys.argv[1]
d = np.load(f"data_out/matcher_features_{model}.npz")
rows, y, e, n = d["rows"], d["y"], d["e"], d["n"]
test = np.random.default_rng(1).random(int(d["npos"])) < 0.2
tr = ~test[rows]
sw = np.full(tr.sum(), 1.0 / tr.sum())


def fit(f):
    x = np.stack(f, 1)
    return np.array(
        nonnegative_logistic(x[tr], y[tr], sw, start=np.r_[np.ones(x.shape[1]), 0.0], l2=1e-3)
    )


variants = {"base": fit([e, n, e * n]), "dens": fit([e, n, e * n, -d["dens_e"], -d["dens_n"]])}
print({k: np.round(v, 2) for k, v in variants.items()})
enc = PhraseEncoder(model)
root = data_root() / "benchmark" / "autofj"
acc = {k: [] for k in variants}
for name in dataset_names(root):
    left, right, truth = load_autofj(root / "benchmark" / name)
    qs = [t for t in right if t in truth]
    r = normalize_rows(enc.encode(left))
    q = normalize_rows(enc.encode(qs))
    ng = NgramVectorizer().fit(left)
    r_ng, q_ng = ng.transform(left), ng.transform(qs)
    emb = q @ r.T
    ngs = (q_ng @ r_ng.T).toarray()
    rr = r @ r.T
    np.fill_diagonal(rr, -1)
    de = rr.max(1) if len(left) > 1 else np.zeros(len(left))
    rn = (r_ng @ r_ng.T).toarray()
    np.fill_diagonal(rn, -1)
    dn = rn.max(1) if len(left) > 1 else np.zeros(len(left))
    cand = first_candidates(emb, ngs)
    E, N = np.take_along_axis(emb, cand, 1), np.take_along_axis(ngs, cand, 1)
    for k, th in variants.items():
        f = [E, N, E * N] + ([-de[cand], -dn[cand]] if k == "dens" else [])
        s = np.stack(f, -1) @ th[:-1]
        best = cand[np.arange(len(qs)), s.argmax(1)]
        acc[k].append(np.mean([left[b] == truth[t] for b, t in zip(best, qs, strict=False)]))
    print(name, {k: round(100 * v[-1], 1) for k, v in acc.items()}, flush=True)
print("MEAN", {k: round(100 * np.mean(v), 2) for k, v in acc.items()})
