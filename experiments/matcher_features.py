"""Which extra ranking features help the combined matcher, on held-out training-pipeline
queries (the simulation of benchmarks/data/matcher_weights.py: 20,000 corpus phrases, their
mined hard negatives, 10,000 alias queries; never a benchmark file).

For each candidate: embedding cosine e, n-gram cosine n (characters + words), its character
and word blocks apart (c, w), the length ratio, the candidate's rank by e and by n, and the
reference's density (its best cosine to another reference, by embedding and by n-grams).
Each feature set is fitted (non-negative logistic) on 80% of the queries and scored by
top-1 on the other 20%. Writes data_out/matcher_features_MODEL.npz for
matcher_features_autofj.py.

    python experiments/matcher_features.py pearl-static
"""

import sys
import time

sys.path.insert(0, "benchmarks/data")
from pathlib import Path

import numpy as np
from matcher_weights import (
    alias_pairs,
    candidate_pairs,
    distractors,
    make_pairs,
    top_candidates,
)

from pearl.encoders import PhraseEncoder
from pearl.encoders.base import normalize_rows
from pearl.paths import data_root
from pearl.tables.matcher import nonnegative_logistic
from pearl.tables.ngrams import NgramVectorizer

model = sys.argv[1]
seed = 0
sample, positives, kinds = make_pairs(Path("data_out/corpus/corpus.tsv"), 20000, seed, data_root())
extra = distractors(Path("data_out/hard_negatives.tsv"), sample)
alias_q, alias_t = alias_pairs(Path("data_out/aliases.csv"), 10000, seed)
source = np.arange(len(sample) + len(alias_q))
kind = np.r_[np.zeros(len(sample), int), np.ones(len(alias_q), int)]
positives = list(positives) + list(alias_q)
taken = set(sample) | set(alias_t)
reference = sample + list(alias_t) + [x for x in extra if x not in taken]
enc = PhraseEncoder(model)
a = normalize_rows(enc.encode(reference, show_progress_bar=True))
p = normalize_rows(enc.encode(positives, show_progress_bar=True))
full = NgramVectorizer().fit(reference)
# the character block alone is skrub's encoding (word_weight=0); the word block alone is
# the word columns of the full TF-IDF, normalised
chars = NgramVectorizer(word_weight=0).fit(reference)


def word_block(texts):
    from sklearn.preprocessing import normalize

    x = full.counts(texts)
    x.data = x.data * full.idf_[x.indices]
    x = x.tocsr()[:, full.n_features :]
    return normalize(x).astype(np.float32)


a_ng, p_ng = full.transform(reference), full.transform(positives)
a_c, p_c = chars.transform(reference), chars.transform(positives)
a_w, p_w = word_block(reference), word_block(positives)
k = 10
cand = np.concatenate([top_candidates(p, a, k), top_candidates(p_ng, a_ng, k)], axis=1)


# reference density: each reference's best cosine to another reference (embedding, ngram)
def nn_other(x):
    out = np.empty(x.shape[0], np.float32)
    for s in range(0, x.shape[0], 2048):
        sims = x[s : s + 2048] @ x.T
        sims = sims.toarray() if hasattr(sims, "toarray") else np.asarray(sims)
        sims[np.arange(sims.shape[0]), np.arange(s, s + sims.shape[0])] = -1
        out[s : s + 2048] = sims.max(1)
    return out


t = time.time()
dens_e = nn_other(a)
dens_n = nn_other(a_ng)
print("density", time.time() - t)
rows, cols, y = candidate_pairs(cand, source, reference, positives)


def sp(x, z):
    return np.asarray(x[rows].multiply(z[cols]).sum(1)).ravel()


e = (p[rows] * a[cols]).sum(1)
n = sp(p_ng, a_ng)
c = sp(p_c, a_c)
w = sp(p_w, a_w)
lq = np.array([len(positives[r]) for r in rows])
lr = np.array([len(reference[j]) for j in cols])
lenr = np.minimum(lq, lr) / np.maximum(np.maximum(lq, lr), 1)


# ranks within the query's candidate set
def rank_in(v):
    order = np.lexsort((-v, rows))
    r = np.empty(len(v))
    first = np.r_[True, rows[order][1:] != rows[order][:-1]]
    starts = np.maximum.accumulate(np.where(first, np.arange(len(v)), 0))
    r[order] = np.arange(len(v)) - starts
    return r


re_, rn_ = rank_in(e), rank_in(n)
dens_e, dens_n = dens_e[cols], dens_n[cols]
np.savez(
    f"data_out/matcher_features_{model}.npz",
    rows=rows,
    cols=cols,
    y=y,
    e=e,
    n=n,
    c=c,
    w=w,
    lenr=lenr,
    re_=re_,
    rn_=rn_,
    dens_e=dens_e,
    dens_n=dens_n,
    kind=kind,
    npos=len(positives),
)
test = np.random.default_rng(seed + 1).random(len(positives)) < 0.2
tr, te = ~test[rows], test[rows]


def top1(score, mask):
    best = {}
    for r, v, lab in zip(rows[mask], score[mask], y[mask], strict=False):
        if r not in best or v > best[r][0]:
            best[r] = (v, lab)
    out = []
    for wk in (0, 1):
        out.append(100 * np.mean([lab for r, (_, lab) in best.items() if kind[r] == wk]))
    return 100 * np.mean([lab for _, lab in best.values()]), *out


sets = {
    "base e,n,en": [e, n, e * n],
    "e,c,w,ec,ew": [e, c, w, e * c, e * w],
    "e,n,en,w": [e, n, e * n, w],
    "base+lenr": [e, n, e * n, lenr],
    "base+rr": [e, n, e * n, 1 / (1 + re_), 1 / (1 + rn_)],
    "base-dens": [e, n, e * n, -dens_e, -dens_n],
    "base csls": [e, n, e * n, e - 0.5 * dens_e, n - 0.5 * dens_n],
    "all": [e, c, w, e * c, e * w, lenr, 1 / (1 + re_), 1 / (1 + rn_)],
    # density with the other sign (non-negative weights: a denser reference scores higher)
    "base+dens": [e, n, e * n, dens_e, dens_n],
}
sw = np.full(tr.sum(), 1.0 / tr.sum())
for name, f in sets.items():
    x = np.stack(f, 1)
    th = nonnegative_logistic(x[tr], y[tr], sw, start=np.r_[np.ones(x.shape[1]), 0.0], l2=1e-3)
    s = x @ np.array(th[:-1]) + th[-1]
    print(
        f"{name:16s} held-out top1 all/views/aliases %.1f %.1f %.1f" % top1(s, te), np.round(th, 2)
    )
