"""How far can re-weighting the combined matcher's two signals go on AutoFJ? Ceilings.

An analysis, not a model choice: it reads AutoFJ's labels to bound what any combination
of the matcher's features (embedding cosine e, n-gram cosine n, their product) could
reach with a given model, so that the gap to a target can be blamed on the features or
on the combination. Nothing here is shipped or chosen; the shipped weights were learned
on training-pipeline pairs (benchmarks/data/matcher_weights.py).

For each dataset, each right title with a match takes the candidates the matcher takes
(top 10 by embedding and top 10 by n-grams among the left titles) and:

- shipped: the shipped logistic weights (what ``fuzzy_join`` ranks by), or those
  ``--weights`` gives for a model not shipped;
- embedding / n-gram: the best candidate by one signal alone;
- either: the match is first by the embedding *or* by the n-grams (a ceiling for any
  rule that picks one of the two signals' answers);
- candidates: the match is among the candidates (a ceiling for any re-ranker of them);
- best global weights: the weights of a grid over (w_e, w_n, w_e·n), one setting for all
  50 datasets, chosen on AutoFJ itself (a ceiling for any fixed weighting);
- best weights per dataset: the same grid, the best setting for each dataset (a ceiling
  for any method that adapts the weights to each table, as AutoFJ adapts its
  configuration).

    python experiments/autofj_ceilings.py -m pearl-static -m all-MiniLM-L6-v2

Writes experiments/results/autofj_ceilings.{md,json}.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path

import numpy as np
from pearl_lab import data_root

from pearl.encoders import PhraseEncoder
from pearl.encoders.base import normalize_rows
from pearl.evaluation.tasks.autofj import dataset_names, load_autofj
from pearl.tables.matcher import MatchScorer
from pearl.tables.ngrams import NgramVectorizer

GRID = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0]
CANDIDATES = 10


def first_candidates(emb: np.ndarray, ngs: np.ndarray, k: int = CANDIDATES) -> np.ndarray:
    """Each query's candidates as the matcher takes them: its top ``k`` columns by
    embedding cosine ``emb``, then its top ``k`` by n-gram cosine ``ngs`` (a column may
    appear twice)."""
    c = min(k, emb.shape[1])
    return np.concatenate(
        [np.argpartition(-emb, c - 1, 1)[:, :c], np.argpartition(-ngs, c - 1, 1)[:, :c]], 1
    )


def dataset_arrays(enc, left, qs, truth):
    """Candidates and their features for one dataset; ``hit`` marks the match."""
    r = normalize_rows(enc.encode(left))
    q = normalize_rows(enc.encode(qs))
    ng = NgramVectorizer().fit(left)
    emb = q @ r.T
    ngs = (ng.transform(qs) @ ng.transform(left).T).toarray()
    cand = first_candidates(emb, ngs)
    left_arr = np.asarray(left, dtype=object)
    want = np.asarray([truth[t] for t in qs], dtype=object)
    hit = left_arr[cand] == want[:, None]
    correct_emb = left_arr[emb.argmax(1)] == want
    correct_ng = left_arr[ngs.argmax(1)] == want
    e, n = np.take_along_axis(emb, cand, 1), np.take_along_axis(ngs, cand, 1)
    return np.stack([e, n, e * n], -1), hit, correct_emb, correct_ng


def top1(feats, hit, w):
    s = feats @ w
    return float(hit[np.arange(len(hit)), s.argmax(1)].mean())


def analyse(model: str, root: Path, weights: dict[str, list[float]]) -> dict:
    enc = PhraseEncoder(model)
    w_shipped = np.asarray(
        weights.get(model) or MatchScorer.for_encoder(enc).weights, dtype=np.float64
    )
    grid = [np.array(w) for w in itertools.product(GRID, repeat=3) if any(w)]
    rows = {}
    t0 = time.perf_counter()
    for name in dataset_names(root):
        left, right, truth = load_autofj(root / "benchmark" / name)
        qs = [t for t in right if t in truth]
        feats, hit, ce, cn = dataset_arrays(enc, left, qs, truth)
        rows[name] = {
            "shipped": top1(feats, hit, w_shipped),
            "embedding": float(ce.mean()),
            "ngram": float(cn.mean()),
            "either": float((ce | cn).mean()),
            "candidates": float(hit.any(1).mean()),
            "grid": [top1(feats, hit, w) for w in grid],
        }
    g = np.array([rows[k]["grid"] for k in rows])
    global_means = g.mean(0)
    best_global = int(global_means.argmax())
    mean = {
        k: 100 * float(np.mean([v[k] for v in rows.values()]))
        for k in ("shipped", "embedding", "ngram", "either", "candidates")
    }
    mean["best global weights"] = 100 * float(global_means[best_global])
    mean["best weights per dataset"] = 100 * float(g.max(1).mean())
    return {
        "model": model,
        "mean": mean,
        "best_global_weights": grid[best_global].tolist(),
        "shipped_weights": w_shipped.tolist(),
        "seconds": time.perf_counter() - t0,
        "per_dataset": {k: {m: v for m, v in r.items() if m != "grid"} for k, r in rows.items()},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-m", "--model", action="append", required=True)
    ap.add_argument("--out", default="experiments/results/autofj_ceilings")
    ap.add_argument(
        "--weights",
        type=Path,
        help="a matcher_weights.py JSON: its weights "
        "for a model not shipped (default: the shipped weights)",
    )
    args = ap.parse_args()
    root = data_root() / "benchmark" / "autofj"
    weights = (
        {r["model"]: r["weights"] for r in json.loads(args.weights.read_text())["rows"]}
        if args.weights
        else {}
    )
    res = [analyse(m, root, weights) for m in args.model]
    out = Path(args.out)
    out.with_suffix(".json").write_text(json.dumps(res, indent=1))
    cols = [
        "shipped",
        "embedding",
        "ngram",
        "either",
        "candidates",
        "best global weights",
        "best weights per dataset",
    ]
    lines = [
        "# AutoFJ ceilings of the combined matcher's features",
        "",
        "Mean top-1 accuracy over AutoFJ's 50 datasets (%). Every column but *shipped*, "
        "*embedding* and *n-gram* reads AutoFJ's labels to bound what a method could "
        "reach; none of them is a model choice. See the script's docstring.",
        "",
        "| model | " + " | ".join(cols) + " |",
        "|---|" + "---:|" * len(cols),
    ]
    for r in res:
        lines.append(f"| {r['model']} | " + " | ".join(f"{r['mean'][c]:.1f}" for c in cols) + " |")
    lines += [
        "",
        "Best global weights (w_e, w_n, w_e·n) on the grid "
        f"{GRID}: "
        + "; ".join(
            f"{r['model']} {r['best_global_weights']} "
            f"(shipped {np.round(r['shipped_weights'], 2).tolist()})"
            for r in res
        ),
        "",
        "Command: `python experiments/autofj_ceilings.py "
        + " ".join(f"-m {m}" for m in args.model)
        + (f" --weights {args.weights}" if args.weights else "")
        + (f" --out {args.out}" if args.out != ap.get_default("out") else "")
        + "`",
        "",
    ]
    out.with_suffix(".md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
