"""Learn the combined matcher's weights for a model, on training-pipeline data only.

This is the library code behind ``src/pearl/tables/matcher_weights.json`` (the
weights ``matcher="combined"`` reads) and behind ``benchmarks/data/matcher_weights.py``,
which runs it and writes the tables.

Data (never a benchmark file): phrases sampled (seeded) from the training corpus
(``pearl build-corpus``). Positives: one augmented view of each phrase, drawn by pearl's
own augmenters (character typos, token swaps and synonyms, WordNet paraphrases, acronyms;
GloVe synonyms leave names alone). Each view is then matched as ``fuzzy_join`` matches a
row: the sampled phrases are the reference table, and the view's candidates are its
``top_k`` by embedding cosine and its ``top_k`` by n-gram cosine; a candidate is a match
when it is the view's source phrase (or equal to the view, case aside). A logistic model of
(embedding cosine, n-gram cosine, their product) with non-negative weights is fitted on
the candidates of 80% of the queries, calibrated, and checked on the other 20% (top-1
accuracy per query, ROC AUC, Brier score, calibration by bins). Alias groups (``pearl
aliases``) add name-variant queries; mined hard negatives add near-duplicates to the
reference table.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pearl._io import write_text_atomic
from pearl.augment.sampler import AugmentationSampler, default_augmenters
from pearl.data.corpus import read_corpus
from pearl.encoders.base import is_embedding_model, normalize_rows
from pearl.mining.hard_negatives import read_hard_negatives
from pearl.tables.matcher import WEIGHTS_FILE, MatchScorer, threshold_for_precision
from pearl.tables.ngrams import NgramVectorizer

__all__ = [
    "matcher_training_views",
    "alias_queries",
    "near_duplicates",
    "fit_matcher_weights",
    "learn_matcher_weights",
    "store_matcher_weights",
    "SHIPPED_KEYS",
    "UNMATCHED_SHARE",
]

#: Share of the queries calibrated as rows without a partner (:func:`fit_matcher_weights`)
#: in the shipped weights: a prior for tables where some rows have none, the middle of
#: the 0-70% removal rates of experiments/linkage_unmatched.py (not fitted on any table).
UNMATCHED_SHARE = 0.3

#: the entries of a model in the weights file (the rest of a fit's record is diagnostics)
SHIPPED_KEYS = ("weights", "bias", "source", "fingerprint", "calibration", "margin")


def _top_candidates(q, ref, k: int, block: int = 2048) -> np.ndarray:
    """For each row of q, the k columns of highest q @ ref.T (dense or sparse)."""
    out = np.empty((q.shape[0], k), dtype=np.int64)
    for s in range(0, q.shape[0], block):
        sims = q[s : s + block] @ ref.T
        sims = sims.toarray() if hasattr(sims, "toarray") else np.asarray(sims)
        out[s : s + block] = np.argpartition(-sims, k, axis=1)[:, :k]
    return out


def _candidate_pairs(
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


def matcher_training_views(
    corpus: str | Path, n: int, seed: int, wordnet_dir: str | Path
) -> tuple[list[str], list[str], list[str]]:
    """``n`` phrases sampled from ``corpus`` (seeded), one augmented view of each, and the
    name of the augmenter that made each view."""
    phrases = [r.phrase for r in read_corpus(corpus)]
    rng = np.random.default_rng(seed)
    sample = [
        phrases[i] for i in rng.choice(len(phrases), size=min(n, len(phrases)), replace=False)
    ]
    augs = default_augmenters(("char", "token", "phrase"), str(wordnet_dir), glove_keep_names=True)
    sampler = AugmentationSampler(augs, seed=seed)
    views = [sampler.augment(p, i) for i, p in enumerate(sample)]
    return sample, [v for v, _ in views], [name for _, name in views]


def alias_queries(aliases: str | Path | None, n: int, seed: int) -> tuple[list[str], list[str]]:
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


def near_duplicates(negatives: str | Path | None, sample: list[str]) -> list[str]:
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


def _best_candidates(
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


def _at_precision(prob: np.ndarray, y: np.ndarray, target: float = 0.9) -> tuple[float, float]:
    """Observed precision and recall (share of all queries) of the matches that
    ``threshold_for_precision(prob, target)`` keeps."""
    keep = prob >= threshold_for_precision(prob, target)
    return float(y[keep].mean()) if keep.any() else float("nan"), float(y[keep].sum() / len(y))


def _raw_or_none(raw: np.ndarray, idx: np.ndarray) -> np.ndarray:
    return np.where(idx >= 0, raw[np.maximum(idx, 0)], -np.inf)


def fit_matcher_weights(
    model: Any,
    sample: list[str],
    positives: list[str],
    seed: int = 0,
    top_k: int = 10,
    extra: Sequence[str] = (),
    aliases: tuple[list[str], list[str]] = ([], []),
    word_weight: float = 0.5,
    show_progress_bar: bool = True,
    unmatched_share: float = UNMATCHED_SHARE,
) -> dict:
    """Fit, calibrate and check the combined matcher's weights for ``model``.

    Parameters
    ----------
    model : str or encoder
        A model name or folder, or an encoder object.
    sample : list of str
        The reference table (:func:`matcher_training_views`).
    positives : list of str
        One query per row of ``sample``, whose match is that row.
    seed : int, default=0
        Seed of the 80/20 split of the queries.
    top_k : int, default=10
        Candidates per query from each of the embedding and the n-grams.
    extra : sequence of str
        More reference rows, never a match (:func:`near_duplicates`).
    aliases : (queries, targets)
        Name-variant queries and their matches (:func:`alias_queries`).
    word_weight : float, default=0.5
        Whole words' share of the n-gram encoding (the package's setting: 0.5).
    show_progress_bar : bool, default=True
    unmatched_share : float, default=UNMATCHED_SHARE (0.3)
        Share of the queries (seeded) calibrated as rows without a partner: their match is
        taken out of their candidates, so their best candidate is a non-match, as in a
        table where some rows have no partner. Only the probability of a candidate among
        others (``margin``: what a join, a search and ``precision=`` read) and the held-out
        diagnostics see the unmatched queries; the weights (the ranking) and the
        probability of a pair seen alone (``calibration``: what ``deduplicate`` and
        ``cluster`` read) are fitted on every query as with 0.

    Returns
    -------
    dict
        The model's entry (:data:`SHIPPED_KEYS`) and its held-out diagnostics: ``top1``,
        ``auc``, ``brier``, ``precision_0.9``, ``calibration_bins``...
    """
    from pearl.encoders import load_encoder

    unmatched_share = float(unmatched_share)
    if not 0.0 <= unmatched_share < 1.0:
        raise ValueError(f"unmatched_share must be in [0, 1), got {unmatched_share}")
    if is_embedding_model(model):
        enc, model = model, str(getattr(model, "model_name", model))
    else:
        enc, model = load_encoder(model), str(model)
    t = time.perf_counter()
    alias_q, alias_t = aliases
    # a view's source is its own row of the sample; an alias query's match is its row of
    # alias_t, right after the sample
    source = np.arange(len(sample) + len(alias_q))
    kind = np.r_[np.zeros(len(sample), dtype=int), np.ones(len(alias_q), dtype=int)]
    positives = list(positives) + list(alias_q)
    taken = set(sample) | set(alias_t)
    reference = sample + list(alias_t) + [x for x in extra if x not in taken]
    a = normalize_rows(enc.encode(reference, show_progress_bar=show_progress_bar))
    p = normalize_rows(enc.encode(positives, show_progress_bar=show_progress_bar))
    encode_s = time.perf_counter() - t
    ngrams = NgramVectorizer(word_weight=word_weight).fit(reference)
    a_ng, p_ng = ngrams.transform(reference), ngrams.transform(positives)
    # the join's own re-scoring step: each positive view is a query against the sample as
    # the reference table; its candidates are its top-k by embedding and by n-grams
    cand = np.concatenate(
        [_top_candidates(p, a, top_k), _top_candidates(p_ng, a_ng, top_k)], axis=1
    )
    rows, cols, y = _candidate_pairs(cand, source, reference, positives)
    emb = (p[rows] * a[cols]).sum(1)
    ng = np.asarray(p_ng[rows].multiply(a_ng[cols]).sum(1)).ravel()
    test = np.random.default_rng(seed + 1).random(len(positives)) < 0.2
    tr, te = ~test[rows], test[rows]
    scorer = MatchScorer.fit(
        emb[tr],
        ng[tr],
        y[tr],
        source=f"{model}; pearl.training.matcher_weights on {len(sample):,} corpus phrases"
        + (f", {unmatched_share:.0%} of queries unmatched" if unmatched_share else ""),
    )
    # the probability of a pair seen alone (what deduplicate and cluster read) is
    # calibrated on each training query's best candidate, its match present
    raw = scorer.score(emb, ng)
    best_tr = _best_candidates(rows, raw, tr)
    scorer = scorer.calibrate(emb[best_tr], ng[best_tr], y[best_tr])
    # ... and the probability among others (what a join or a search reads, and precision=)
    # on its lead over its runner-up, where a query calibrated as unmatched has lost its
    # match, as in a table where some rows have no partner
    gone = np.random.default_rng(seed + 2).random(len(positives)) < unmatched_share
    present = ~(gone[rows] & (y == 1))
    te_all = te  # the ranking diagnostics (AUC, top-1) read every held-out query
    tr, te = tr & present, te & present
    best_tr = _best_candidates(rows, raw, tr)
    second_tr = _best_candidates(rows, raw, tr, rank=1)
    scorer = scorer.calibrate_margin(raw[best_tr], _raw_or_none(raw, second_tr), y[best_tr])
    return {
        "model": model,
        "fingerprint": enc.fingerprint,
        **scorer.to_dict(),
        "unmatched_share": unmatched_share,
        "pairs": int(len(y)),
        **_diagnostics(scorer, (emb, ng, raw), y, rows, kind, te, te_all),
        "encode_seconds": round(encode_s, 1),
    }


def _diagnostics(scorer, scores, y, rows, kind, te, te_all) -> dict:
    """The held-out diagnostics of a fitted scorer: AUC and top-1 of each signal over every
    held-out query (``te_all``), Brier scores, precision at 0.9 and calibration bins of the
    best candidates of the held-out queries that keep their match (``te``)."""
    from sklearn.metrics import brier_score_loss, roc_auc_score

    emb, ng, raw = scores
    prob = scorer.probability(emb[te_all], ng[te_all])
    best_te = _best_candidates(rows, raw, te)
    second_te = _best_candidates(rows, raw, te, rank=1)
    top_y = y[best_te]
    top_prob = scorer.ranked(np.stack([raw[best_te], _raw_or_none(raw, second_te)], 1))[:, 0]
    alone_prob = scorer.calibrated(raw[best_te])
    signals = {"combined": prob, "embedding": emb[te_all], "ngram": ng[te_all]}
    return {
        "test_pairs": int(te_all.sum()),
        "auc": {name: float(roc_auc_score(y[te_all], x)) for name, x in signals.items()},
        "top1": _top1(rows[te_all], y[te_all], kind, signals),
        "brier": float(brier_score_loss(top_y, top_prob)),
        "brier_alone": float(brier_score_loss(top_y, alone_prob)),
        "precision_0.9": {
            "alone": _at_precision(alone_prob, top_y),
            "ranked": _at_precision(top_prob, top_y),
        },
        "calibration_bins": _calibration_bins(top_prob, top_y),
    }


def _calibration_bins(prob: np.ndarray, y: np.ndarray) -> list[list]:
    """[low, high, n, mean predicted, observed match rate] per fifth of [0, 1]."""
    bins = np.linspace(0, 1, 6)
    calib = []
    for lo, hi in zip(bins[:-1], bins[1:], strict=True):
        m = (prob >= lo) & (prob < hi if hi < 1 else prob <= hi)
        if m.any():
            calib.append(
                [
                    round(float(lo), 1),
                    round(float(hi), 1),
                    int(m.sum()),
                    round(float(prob[m].mean()), 3),
                    round(float(y[m].mean()), 3),
                ]
            )
    return calib


def _top1(rows: np.ndarray, y: np.ndarray, kind: np.ndarray, scores: dict) -> dict[str, float]:
    """Top-1 of each held-out query among its candidates, by each score: over all of them,
    over the augmented views and over the alias queries."""
    top1: dict[str, float] = {}
    for name, x in scores.items():
        best: dict[int, tuple[float, float]] = {}
        for r, v, lab in zip(rows, x, y, strict=True):
            if r not in best or v > best[r][0]:
                best[r] = (float(v), float(lab))
        top1[name] = float(np.mean([lab for _, lab in best.values()]))
        for label, which in (("views", 0), ("aliases", 1)):
            labs = [lab for r, (_, lab) in best.items() if kind[r] == which]
            if labs:
                top1[f"{name}_{label}"] = float(np.mean(labs))
    return top1


def learn_matcher_weights(
    models: Sequence[Any],
    corpus: str | Path,
    wordnet: str | Path,
    *,
    n: int = 20_000,
    seed: int = 0,
    negatives: str | Path | None = None,
    aliases: str | Path | None = None,
    n_aliases: int = 10_000,
    word_weight: float = 0.5,
    show_progress_bar: bool = True,
    unmatched_share: float = UNMATCHED_SHARE,
) -> tuple[list[dict], dict]:
    """The whole recipe of the shipped weights: training views of ``n`` corpus phrases,
    their near-duplicates and alias queries, and :func:`fit_matcher_weights` for each model.

    Parameters
    ----------
    models : sequence of str or encoder
    corpus : path-like
        Corpus TSV of ``pearl build-corpus``.
    wordnet : path-like
        WordNet folder (``<data>/lexicon/wordnet``) for the paraphrase views.
    n, seed : int
        Phrases sampled, and the seed of the sample, the views and the split.
    negatives : path-like, optional
        Hard negatives of ``pearl mine``: near-duplicates join the reference table.
    aliases : path-like, optional
        Alias groups of ``pearl aliases``: name-variant queries (``n_aliases`` groups).
    word_weight : float, default=0.5
    show_progress_bar : bool, default=True
    unmatched_share : float, default=UNMATCHED_SHARE (0.3)
        See :func:`fit_matcher_weights`.

    Returns
    -------
    rows : list of dict
        One record of :func:`fit_matcher_weights` per model.
    data : dict
        What the fits saw: ``augmenters`` (views per augmenter), ``n_extra``,
        ``n_alias_queries``.
    """
    sample, positives, kinds = matcher_training_views(corpus, n, seed, wordnet)
    extra = near_duplicates(negatives, sample)
    alias_pairs = alias_queries(aliases, n_aliases, seed)
    rows = [
        fit_matcher_weights(
            m,
            sample,
            positives,
            seed,
            extra=extra,
            aliases=alias_pairs,
            word_weight=word_weight,
            show_progress_bar=show_progress_bar,
            unmatched_share=unmatched_share,
        )
        for m in models
    ]
    data = {
        "augmenters": {k: kinds.count(k) for k in sorted(set(kinds))},
        "n_extra": len(extra),
        "n_alias_queries": len(alias_pairs[0]),
    }
    return rows, data


def store_matcher_weights(
    rows: Sequence[dict], path: str | Path = WEIGHTS_FILE, fallback: str | None = None
) -> Path:
    """Add (or replace) each fitted model's entry in the weights file ``path``.

    Parameters
    ----------
    rows : sequence of dict
        Records of :func:`fit_matcher_weights`.
    path : path-like, default=the package's weights file
        A weights JSON (``{"default": name, "models": {name: entry}}``), created if missing.
    fallback : str, optional
        The model whose weights a model without its own uses (the file's ``"default"``);
        kept as it is when None (for a new file: the first row's model).

    Returns
    -------
    Path
        ``path``, written atomically.
    """
    path = Path(path)
    table = (
        json.loads(path.read_text(encoding="utf-8"))
        if path.is_file()
        else {"default": rows[0]["model"], "models": {}}
    )
    for r in rows:
        table["models"][r["model"]] = {k: r[k] for k in SHIPPED_KEYS if k in r}
    if fallback is not None:
        if fallback not in table["models"]:
            raise ValueError(f"fallback {fallback!r} has no weights in {path}")
        table["default"] = fallback
    write_text_atomic(path, json.dumps(table, indent=2) + "\n")
    return path
