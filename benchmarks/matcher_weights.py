"""Learn the combined matcher's weights for a model, on training-pipeline pairs only.

Data (never a benchmark file): --n phrases sampled (seeded) from the training corpus
(``pearl build-corpus``). Positives: one augmented view of each phrase, drawn by pearl's
own augmenters (character typos, token swaps and synonyms, WordNet paraphrases, acronyms;
GloVe synonyms leave names alone). Negatives: for each phrase, its nearest *other* sampled
phrase by character n-gram cosine (a surface confuser) and its nearest by embedding cosine
(a meaning confuser). A logistic model of (embedding cosine, n-gram cosine, their product)
is fitted on 80% of the phrases with balanced classes and checked on the other 20%
(ROC AUC, Brier score, calibration by bins).

Writes benchmarks/results/matcher_weights.{json,md}; ``--ship`` also stores the weights
in the package (src/pearl/applications/matcher_weights.json), which is what
``fuzzy_join(matcher="combined")`` reads.

    python benchmarks/matcher_weights.py -m all-MiniLM-L6-v2 -m pearl-minilm --ship
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from pearl.applications.matcher import WEIGHTS_FILE, MatchScorer, NgramVectorizer
from pearl.augment.sampler import AugmentationSampler, default_augmenters
from pearl.data.corpus import read_corpus
from pearl.encoders import PhraseEncoder
from pearl.encoders.base import normalize_rows
from pearl.evaluation.runner import default_data_root

OUT = Path(__file__).parent / "results"


def nearest_other(a, b, exclude: list[set[int]], block: int = 2048) -> np.ndarray:
    """For each row i of a, the column j != i (and not in exclude[i]) of highest a @ b.T."""
    out = np.empty(a.shape[0], dtype=np.int64)
    for s in range(0, a.shape[0], block):
        sims = a[s : s + block] @ b.T
        sims = sims.toarray() if hasattr(sims, "toarray") else np.asarray(sims)
        for r in range(sims.shape[0]):
            i = s + r
            for j in [i, *exclude[i]]:
                sims[r, j] = -np.inf
        out[s : s + block] = sims.argmax(axis=1)
    return out


def make_pairs(corpus: Path, n: int, seed: int, data: Path):
    phrases = [r.phrase for r in read_corpus(corpus)]
    rng = np.random.default_rng(seed)
    sample = [phrases[i] for i in rng.choice(len(phrases), size=min(n, len(phrases)),
                                             replace=False)]
    augs = default_augmenters(("char", "token", "phrase"), str(data / "lexicon" / "wordnet"),
                              glove_keep_names=True)
    sampler = AugmentationSampler(augs, seed=seed)
    views = [sampler.augment(p, i) for i, p in enumerate(sample)]
    return sample, [v for v, _ in views], [name for _, name in views]


def fit_model(model: str, sample: list[str], positives: list[str], seed: int) -> dict:
    enc = PhraseEncoder(model)
    t = time.perf_counter()
    a = normalize_rows(enc.encode(sample, show_progress_bar=True))
    p = normalize_rows(enc.encode(positives, show_progress_bar=True))
    encode_s = time.perf_counter() - t
    ngrams = NgramVectorizer().fit(sample)
    a_ng, p_ng = ngrams.transform(sample), ngrams.transform(positives)
    lower = [s.lower() for s in sample]
    index = {s: i for i, s in enumerate(lower)}
    # never take as a negative a phrase equal (case-insensitively) to the positive
    exclude = [{index[v.lower()]} if v.lower() in index else set() for v in positives]
    neg_ng = nearest_other(a_ng, a_ng, exclude)
    neg_emb = nearest_other(a, a, exclude)
    emb = np.concatenate([(a * p).sum(1), (a * a[neg_ng]).sum(1), (a * a[neg_emb]).sum(1)])
    ng = np.concatenate([np.asarray(a_ng.multiply(p_ng).sum(1)).ravel(),
                         np.asarray(a_ng.multiply(a_ng[neg_ng]).sum(1)).ravel(),
                         np.asarray(a_ng.multiply(a_ng[neg_emb]).sum(1)).ravel()])
    y = np.concatenate([np.ones(len(sample)), np.zeros(2 * len(sample))])
    anchor = np.tile(np.arange(len(sample)), 3)
    test = np.random.default_rng(seed + 1).random(len(sample)) < 0.2
    tr, te = ~test[anchor], test[anchor]
    scorer = MatchScorer.fit(emb[tr], ng[tr], y[tr], balanced=True,
                             source=f"{model}; benchmarks/matcher_weights.py on "
                             f"{len(sample):,} corpus phrases")
    from sklearn.metrics import brier_score_loss, roc_auc_score

    prob = scorer.probability(emb[te], ng[te])
    weight = np.where(y[te] == 1, 2.0, 1.0)  # balanced, as in the fit
    bins = np.linspace(0, 1, 6)
    calib = []
    for lo, hi in zip(bins[:-1], bins[1:], strict=True):
        m = (prob >= lo) & (prob < hi if hi < 1 else prob <= hi)
        if m.any():
            calib.append([round(float(lo), 1), round(float(hi), 1), int(m.sum()),
                          round(float(prob[m].mean()), 3),
                          round(float(np.average(y[te][m], weights=weight[m])), 3)])
    auc = {name: float(roc_auc_score(y[te], x)) for name, x in
           (("combined", prob), ("embedding", emb[te]), ("ngram", ng[te]))}
    return {"model": model, "fingerprint": enc.fingerprint, **scorer.to_dict(),
            "pairs": int(len(y)), "test_pairs": int(te.sum()), "auc": auc,
            "brier": float(brier_score_loss(y[te], prob, sample_weight=weight)),
            "calibration": calib, "encode_seconds": round(encode_s, 1)}


def render(rows: list[dict], args) -> str:
    lines = ["# Combined matcher weights", "",
             f"Learned on {args.n:,} phrases sampled from {args.corpus} (seed {args.seed}): "
             "one augmented positive and two confuser negatives (nearest other phrase by "
             "n-gram cosine, nearest by embedding cosine) per phrase; fitted on 80% of the "
             "phrases with balanced classes, checked on the other 20%.", "",
             "| model | w_emb | w_ngram | w_both | bias | AUC combined | AUC embedding | "
             "AUC n-gram | Brier |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        w = r["weights"]
        lines.append(f"| {r['model']} | {w[0]:.2f} | {w[1]:.2f} | {w[2]:.2f} | "
                     f"{r['bias']:.2f} | {r['auc']['combined']:.3f} | "
                     f"{r['auc']['embedding']:.3f} | {r['auc']['ngram']:.3f} | "
                     f"{r['brier']:.3f} |")
    lines += ["", "Calibration on the held-out pairs (balanced): predicted vs observed "
              "match rate per probability bin.", ""]
    for r in rows:
        lines.append(f"- {r['model']}: " + "; ".join(
            f"[{lo}, {hi}): n={n}, predicted {pr:.2f}, observed {ob:.2f}"
            for lo, hi, n, pr, ob in r["calibration"]))
    lines += ["", f"Command: `python benchmarks/matcher_weights.py --corpus {args.corpus} "
              f"--n {args.n} " + " ".join(f"-m {m}" for m in args.model) + "`"]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-m", "--model", action="append", required=True)
    ap.add_argument("--corpus", type=Path, default=Path("data_out/corpus/corpus.tsv"))
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--ship", action="store_true",
                    help="store the weights in the package (what matcher='combined' reads)")
    args = ap.parse_args()
    data = args.data or default_data_root()
    sample, positives, kinds = make_pairs(args.corpus, args.n, args.seed, data)
    rows = [fit_model(m, sample, positives, args.seed) for m in args.model]
    OUT.mkdir(exist_ok=True)
    (OUT / "matcher_weights.json").write_text(json.dumps(
        {"rows": rows, "augmenters": {k: kinds.count(k) for k in sorted(set(kinds))}},
        indent=2) + "\n")
    (OUT / "matcher_weights.md").write_text(render(rows, args))
    print(render(rows, args))
    if args.ship:
        table = json.loads(WEIGHTS_FILE.read_text()) if WEIGHTS_FILE.is_file() else {
            "default": args.model[0], "models": {}}
        for r in rows:
            table["models"][r["model"]] = {k: r[k] for k in ("weights", "bias", "source",
                                                              "fingerprint")}
        WEIGHTS_FILE.write_text(json.dumps(table, indent=2) + "\n")
        print(f"stored in {WEIGHTS_FILE}")


if __name__ == "__main__":
    main()
