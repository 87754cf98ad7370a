"""Learn the combined matcher's weights for a model, on training-pipeline pairs only.

Data (never a benchmark file): --n phrases sampled (seeded) from the training corpus
(``pearl build-corpus``). Positives: one augmented view of each phrase, drawn by pearl's
own augmenters (character typos, token swaps and synonyms, WordNet paraphrases, acronyms;
GloVe synonyms leave names alone). Each view is then matched as ``fuzzy_join`` matches a
row: the sampled phrases are the reference table, and the view's candidates are its top 10
by embedding cosine and its top 10 by n-gram cosine; a candidate is a match when it is the
view's source phrase (or equal to the view, case aside). A logistic model of (embedding
cosine, n-gram cosine, their product) with non-negative weights is fitted on the
candidates of 80% of the queries and checked on the other 20% (top-1 accuracy per query,
ROC AUC, Brier score, calibration by bins).

``--aliases`` (``pearl aliases`` groups, built with ``--exclude`` of the AutoFJ titles that
``benchmarks/quality/fuzzy_join_autofj.py --titles FILE`` writes) adds name-variant
queries: one form of a name in the reference table, another as the query. ``--word-weight``
sets the words' share of the n-gram encoding (0: skrub's character n-grams alone), to
compare encodings on the held-out queries; only the package's own setting can ``--ship``.

Writes results/benchmarks/matcher_weights.{json,md}; ``--ship`` also stores the weights
in the package (src/pearl/applications/matcher_weights.json), which is what
``fuzzy_join(matcher="combined")`` reads.

    python benchmarks/data/matcher_weights.py -m all-MiniLM-L6-v2 -m pearl-minilm --ship
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from pearl.applications.matcher import (
    WEIGHTS_FILE,
    MatchScorer,
    NgramVectorizer,
    threshold_for_precision,
)
from pearl.augment.sampler import AugmentationSampler, default_augmenters
from pearl.data.corpus import read_corpus
from pearl.encoders import PhraseEncoder
from pearl.encoders.base import normalize_rows
from pearl.mining.hard_negatives import read_hard_negatives
from pearl.paths import data_root

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"


def top_candidates(q, ref, k: int, block: int = 2048) -> np.ndarray:
    """For each row of q, the k columns of highest q @ ref.T (dense or sparse)."""
    out = np.empty((q.shape[0], k), dtype=np.int64)
    for s in range(0, q.shape[0], block):
        sims = q[s : s + block] @ ref.T
        sims = sims.toarray() if hasattr(sims, "toarray") else np.asarray(sims)
        out[s : s + block] = np.argpartition(-sims, k, axis=1)[:, :k]
    return out


def candidate_pairs(
    cand: np.ndarray, source: np.ndarray, reference: list[str], queries: list[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each query's distinct candidates (columns of ``cand``, in order) as (query row,
    reference id, label): a candidate is the match when it is the query's ``source`` or
    equal to the query, case aside."""
    lower = [x.lower() for x in reference]
    rows, cols, ys = [], [], []
    for i, row in enumerate(cand):
        for j in dict.fromkeys(row.tolist()):  # unique, in order
            rows.append(i)
            cols.append(j)
            ys.append(j == source[i] or lower[j] == queries[i].lower())
    return np.array(rows), np.array(cols), np.array(ys, dtype=float)


def make_pairs(corpus: Path, n: int, seed: int, data: Path):
    phrases = [r.phrase for r in read_corpus(corpus)]
    rng = np.random.default_rng(seed)
    sample = [
        phrases[i] for i in rng.choice(len(phrases), size=min(n, len(phrases)), replace=False)
    ]
    augs = default_augmenters(
        ("char", "token", "phrase"), str(data / "lexicon" / "wordnet"), glove_keep_names=True
    )
    sampler = AugmentationSampler(augs, seed=seed)
    views = [sampler.augment(p, i) for i, p in enumerate(sample)]
    return sample, [v for v, _ in views], [name for _, name in views]


def alias_pairs(aliases: Path | None, n: int, seed: int) -> tuple[list[str], list[str]]:
    """Name-variant queries and their matches from ``pearl aliases`` groups (WordNet proper
    names, acronym definitions, rule-made forms; replay groups left out): for up to ``n``
    groups drawn with ``seed``, one form joins the reference table and another is the
    query ("Den Haag" against "The Hague"). Real joins pair forms of one name more often
    than typo'd copies."""
    if aliases is None:
        return [], []
    import pandas as pd

    frame = pd.read_csv(aliases, keep_default_na=False)
    frame = frame[frame.source != "replay"]
    rng = np.random.default_rng(seed)
    queries, targets = [], []
    for _, group in frame.groupby("group", sort=True):
        forms = group.text.tolist()
        if len(forms) >= 2:
            i, j = rng.choice(len(forms), 2, replace=False)
            targets.append(forms[i])
            queries.append(forms[j])
    keep = np.sort(rng.choice(len(queries), min(n, len(queries)), replace=False))
    return [queries[i] for i in keep], [targets[i] for i in keep]


def distractors(negatives: Path | None, sample: list[str]) -> list[str]:
    """The mined hard negatives of the sampled phrases (``pearl mine``: near-duplicates by
    spelling and meaning), minus the sample itself: a real reference table is dense in
    near-duplicates ("2005 ... season", "2006 ... season"), a random sample is not, and a
    probability calibrated without them is over-confident on real tables."""
    if negatives is None:
        return []
    chosen = set(sample)
    found = (
        n
        for phrase, negs in read_hard_negatives(negatives).items()
        if phrase in chosen
        for n in negs
        if n not in chosen
    )
    return list(dict.fromkeys(found))  # in file order, each once


def best_candidates(
    rows: np.ndarray, score: np.ndarray, mask: np.ndarray, rank: int = 0
) -> np.ndarray:
    """Index of the best-scored candidate of each query among the masked candidates
    (``rank=1``: the runner-up, -1 for a query with a single candidate)."""
    idx = np.flatnonzero(mask)
    order = idx[np.lexsort((-score[idx], rows[idx]))]  # by query, best first
    first = np.ones(len(order), dtype=bool)
    first[1:] = rows[order][1:] != rows[order][:-1]
    if rank == 0:
        return order[first]
    starts = np.flatnonzero(first)
    ends = np.append(starts[1:], len(order))
    return np.where(starts + 1 < ends, order[np.minimum(starts + 1, len(order) - 1)], -1)


def at_precision(prob: np.ndarray, y: np.ndarray, target: float = 0.9) -> tuple[float, float]:
    """Observed precision and recall (share of all queries) of the matches that
    ``threshold_for_precision(prob, target)`` keeps."""
    keep = prob >= threshold_for_precision(prob, target)
    return float(y[keep].mean()) if keep.any() else float("nan"), float(y[keep].sum() / len(y))


def _raw_or_none(raw: np.ndarray, idx: np.ndarray) -> np.ndarray:
    return np.where(idx >= 0, raw[np.maximum(idx, 0)], -np.inf)


def fit_model(
    model: str,
    sample: list[str],
    positives: list[str],
    seed: int,
    k: int = 10,
    extra: list[str] = (),
    aliases: tuple[list[str], list[str]] = ([], []),
    word_weight: float = 0.5,
) -> dict:
    enc = PhraseEncoder(model)
    t = time.perf_counter()
    alias_q, alias_t = aliases
    # a view's source is its own row of the sample; an alias query's match is its row of
    # alias_t, right after the sample
    source = np.arange(len(sample) + len(alias_q))
    kind = np.r_[np.zeros(len(sample), dtype=int), np.ones(len(alias_q), dtype=int)]
    positives = list(positives) + list(alias_q)
    taken = set(sample) | set(alias_t)
    reference = sample + list(alias_t) + [x for x in extra if x not in taken]
    a = normalize_rows(enc.encode(reference, show_progress_bar=True))
    p = normalize_rows(enc.encode(positives, show_progress_bar=True))
    encode_s = time.perf_counter() - t
    ngrams = NgramVectorizer(word_weight=word_weight).fit(reference)
    a_ng, p_ng = ngrams.transform(reference), ngrams.transform(positives)
    # the join's own re-scoring step: each positive view is a query against the sample as
    # the reference table; its candidates are its top-k by embedding and by n-grams
    cand = np.concatenate([top_candidates(p, a, k), top_candidates(p_ng, a_ng, k)], axis=1)
    rows, cols, y = candidate_pairs(cand, source, reference, positives)
    emb = (p[rows] * a[cols]).sum(1)
    ng = np.asarray(p_ng[rows].multiply(a_ng[cols]).sum(1)).ravel()
    test = np.random.default_rng(seed + 1).random(len(positives)) < 0.2
    tr, te = ~test[rows], test[rows]
    scorer = MatchScorer.fit(
        emb[tr],
        ng[tr],
        y[tr],
        source=f"{model}; benchmarks/data/matcher_weights.py on {len(sample):,} corpus phrases",
    )
    # calibrated on each training query's best candidate: the match a join keeps, whose
    # probability precision= reads
    raw = scorer.score(emb, ng)
    best_tr = best_candidates(rows, raw, tr)
    scorer = scorer.calibrate(emb[best_tr], ng[best_tr], y[best_tr])
    # ... and, among others, on its lead over its runner-up (what a join or a search reads)
    second_tr = best_candidates(rows, raw, tr, rank=1)
    scorer = scorer.calibrate_margin(raw[best_tr], _raw_or_none(raw, second_tr), y[best_tr])
    from sklearn.metrics import brier_score_loss, roc_auc_score

    prob = scorer.probability(emb[te], ng[te])
    best_te = best_candidates(rows, raw, te)
    second_te = best_candidates(rows, raw, te, rank=1)
    top_y = y[best_te]
    top_prob = scorer.ranked(np.stack([raw[best_te], _raw_or_none(raw, second_te)], 1))[:, 0]
    alone_prob = scorer.calibrated(raw[best_te])
    precision_09 = {
        "alone": at_precision(alone_prob, top_y),
        "ranked": at_precision(top_prob, top_y),
    }
    bins = np.linspace(0, 1, 6)
    calib = []
    for lo, hi in zip(bins[:-1], bins[1:], strict=True):
        m = (top_prob >= lo) & (top_prob < hi if hi < 1 else top_prob <= hi)
        if m.any():
            calib.append(
                [
                    round(float(lo), 1),
                    round(float(hi), 1),
                    int(m.sum()),
                    round(float(top_prob[m].mean()), 3),
                    round(float(top_y[m].mean()), 3),
                ]
            )
    auc = {
        name: float(roc_auc_score(y[te], x))
        for name, x in (("combined", prob), ("embedding", emb[te]), ("ngram", ng[te]))
    }
    # top-1 of each held-out query among its candidates, by each score: over all of them,
    # over the augmented views and over the alias queries
    top1: dict[str, float] = {}
    for name, x in (("combined", prob), ("embedding", emb[te]), ("ngram", ng[te])):
        best: dict[int, tuple[float, float]] = {}
        for r, v, lab in zip(rows[te], x, y[te], strict=True):
            if r not in best or v > best[r][0]:
                best[r] = (float(v), float(lab))
        top1[name] = float(np.mean([lab for _, lab in best.values()]))
        for label, which in (("views", 0), ("aliases", 1)):
            labs = [lab for r, (_, lab) in best.items() if kind[r] == which]
            if labs:
                top1[f"{name}_{label}"] = float(np.mean(labs))
    return {
        "model": model,
        "fingerprint": enc.fingerprint,
        **scorer.to_dict(),
        "pairs": int(len(y)),
        "test_pairs": int(te.sum()),
        "auc": auc,
        "top1": top1,
        "brier": float(brier_score_loss(top_y, top_prob)),
        "brier_alone": float(brier_score_loss(top_y, alone_prob)),
        "precision_0.9": precision_09,
        "calibration_bins": calib,
        "encode_seconds": round(encode_s, 1),
    }


def render(rows: list[dict], args) -> str:
    lines = [
        "# Combined matcher weights",
        "",
        f"Learned on {args.n:,} phrases sampled from {args.corpus} (seed {args.seed}): "
        "one augmented view per phrase, matched against the sample as a reference "
        "table; candidates are the view's top 10 by embedding and top 10 by n-gram "
        "cosine, the match its source phrase"
        + (
            f"; the reference also holds {args.n_extra:,} near-duplicates (the sampled "
            "phrases' mined hard negatives), never a source"
            if args.n_extra
            else ""
        )
        + (
            f"; {args.n_alias_queries:,} alias queries (`pearl aliases` groups: one form "
            "in the reference, another as the query) join them"
            if args.n_alias_queries
            else ""
        )
        + f". N-gram encoding: character 2-4-grams and words (word weight "
        f"{args.word_weight}). Fitted (non-negative weights) on the "
        "candidates of 80% of the queries, checked on the other 20%: top-1 = share of "
        "held-out queries whose best-scored candidate is the match (views / aliases: "
        "the augmented views and the alias queries apart).",
        "",
        "| model | w_emb | w_ngram | w_both | bias | top-1 combined | views | aliases | "
        "top-1 embedding | top-1 n-gram | AUC combined | Brier, score alone | "
        "Brier, with the lead |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        w, t = r["weights"], r["top1"]
        part = [
            f"{100 * t[k]:.1f}" if k in t else "–" for k in ("combined_views", "combined_aliases")
        ]
        lines.append(
            f"| {r['model']} | {w[0]:.2f} | {w[1]:.2f} | {w[2]:.2f} | "
            f"{r['bias']:.2f} | {100 * t['combined']:.1f} | {part[0]} | {part[1]} | "
            f"{100 * t['embedding']:.1f} | {100 * t['ngram']:.1f} | "
            f"{r['auc']['combined']:.3f} | {r['brier_alone']:.3f} | "
            f"{r['brier']:.3f} |"
        )
    lines += [
        "",
        "Each held-out query's best candidate, as `precision=0.9` treats it: the "
        "threshold of `threshold_for_precision(p, 0.9)` on its probability, and the "
        "precision and recall (share of all held-out queries) it observes. *Score "
        "alone*: isotonic calibration of the raw score (what `deduplicate` reads for "
        "a pair); *with the lead*: the margin model over the score and its lead on the "
        "runner-up (what `fuzzy_join` and `EntityIndex.search` read).",
        "",
        "| model | score alone: precision | recall | with the lead: precision | recall |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        (pa, ra), (pr, rr) = r["precision_0.9"]["alone"], r["precision_0.9"]["ranked"]
        lines.append(
            f"| {r['model']} | {100 * pa:.1f} | {100 * ra:.1f} | {100 * pr:.1f} | {100 * rr:.1f} |"
        )
    lines += [
        "",
        "Calibration of each held-out query's best candidate, with the lead: "
        "predicted vs observed match rate per probability bin.",
        "",
    ]
    for r in rows:
        lines.append(
            f"- {r['model']}: "
            + "; ".join(
                f"[{lo}, {hi}): n={n}, predicted {pr:.2f}, observed {ob:.2f}"
                for lo, hi, n, pr, ob in r["calibration_bins"]
            )
        )
    lines += [
        "",
        f"Command: `python benchmarks/data/matcher_weights.py --corpus {args.corpus} "
        f"--n {args.n} "
        + (f"--negatives {args.negatives} " if args.negatives else "")
        + (f"--aliases {args.aliases} " if args.aliases else "")
        + f"--word-weight {args.word_weight} --name {args.name} "
        + " ".join(f"-m {m}" for m in args.model)
        + "`",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-m", "--model", action="append", required=True)
    ap.add_argument("--corpus", type=Path, default=Path("data_out/corpus/corpus.tsv"))
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--negatives",
        type=Path,
        default=None,
        help="hard negatives of `pearl mine` (data_out/hard_negatives.tsv): the "
        "sampled phrases' near-duplicates join the reference table",
    )
    ap.add_argument(
        "--aliases",
        type=Path,
        default=None,
        help="alias groups of `pearl aliases` (data_out/aliases.csv): pairs of "
        "forms of one name join the queries and the reference table",
    )
    ap.add_argument(
        "--n-aliases", type=int, default=10_000, help="alias groups drawn (default 10000)"
    )
    ap.add_argument(
        "--word-weight",
        type=float,
        default=NgramVectorizer().word_weight,
        help="weight of whole words in the n-gram encoding (0: character n-grams alone, skrub's)",
    )
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--name", default="matcher_weights", help="basename of the results files")
    ap.add_argument(
        "--ship",
        action="store_true",
        help="store the weights in the package (what matcher='combined' reads)",
    )
    args = ap.parse_args()
    if args.ship and args.word_weight != NgramVectorizer().word_weight:
        ap.error(
            "--ship needs the n-gram encoding the package uses (--word-weight "
            f"{NgramVectorizer().word_weight})"
        )
    data = args.data or data_root()
    sample, positives, kinds = make_pairs(args.corpus, args.n, args.seed, data)
    extra = distractors(args.negatives, sample)
    args.n_extra = len(extra)
    aliases = alias_pairs(args.aliases, args.n_aliases, args.seed)
    args.n_alias_queries = len(aliases[0])
    rows = [
        fit_model(
            m,
            sample,
            positives,
            args.seed,
            extra=extra,
            aliases=aliases,
            word_weight=args.word_weight,
        )
        for m in args.model
    ]
    OUT.mkdir(exist_ok=True)
    (OUT / f"{args.name}.json").write_text(
        json.dumps(
            {"rows": rows, "augmenters": {k: kinds.count(k) for k in sorted(set(kinds))}}, indent=2
        )
        + "\n"
    )
    (OUT / f"{args.name}.md").write_text(render(rows, args))
    print(render(rows, args))
    if args.ship:
        table = (
            json.loads(WEIGHTS_FILE.read_text())
            if WEIGHTS_FILE.is_file()
            else {"default": args.model[0], "models": {}}
        )
        for r in rows:
            table["models"][r["model"]] = {
                k: r[k]
                for k in ("weights", "bias", "source", "fingerprint", "calibration", "margin")
            }
        WEIGHTS_FILE.write_text(json.dumps(table, indent=2) + "\n")
        print(f"stored in {WEIGHTS_FILE}")


if __name__ == "__main__":
    main()
