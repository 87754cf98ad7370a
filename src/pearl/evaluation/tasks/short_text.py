"""Short-text classification (the paper's Table 2) on the offline copies.

How the splits are built from ``short_text/``:

* Twitter: TweetEval sentiment val (2,000) + test (12,284) pooled, 3 classes
  (negative / neutral / positive); the train texts are not available offline.
* ATIS: JointBERT's train + dev + test pooled, keeping the 8 most frequent
  single intents (the paper reports 8 intent categories); multi-intent labels
  ("a#b") and rarer intents are dropped.
* Each pool is ordered by whitespace token count (ties by original order) and
  cut in half: the shorter half is "-S", the longer half "-L".
* For each of 10 seeds: a seeded 70/15/15 split, an MLP probe on frozen
  embeddings (Linear(d, 256), ReLU, Linear(256, classes); Adam 1e-3, batch 200,
  early stopping on validation accuracy, patience 5, 3 to 100 epochs); the
  score is the mean and standard deviation of test accuracy.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from pearl.evaluation.probes import split_indices, train_probe
from pearl.evaluation.tasks.base import TaskContext, TaskResult

__all__ = ["load_twitter", "load_atis", "length_split", "run_short_text"]

N_RUNS = 10
QUICK_RUNS = 2
QUICK_ITEMS = 1000
ATIS_INTENTS = 8


def _lines(path) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def load_twitter(root) -> tuple[list[str], list[int]]:
    """TweetEval sentiment val + test texts and labels."""
    texts, labels = [], []
    for part in ("val", "test"):
        texts += _lines(root / "twitter_sentiment" / f"{part}_text.txt")
        labels += [int(x) for x in _lines(root / "twitter_sentiment" / f"{part}_labels.txt")]
    return texts, labels


def load_atis(root) -> tuple[list[str], list[int]]:
    """ATIS queries of the 8 most frequent single intents, labels as integers."""
    texts, intents = [], []
    for part in ("train", "dev", "test"):
        texts += _lines(root / "atis" / part / "seq.in")
        intents += _lines(root / "atis" / part / "label")
    counts = Counter(i for i in intents if "#" not in i)
    keep = [name for name, _ in counts.most_common(ATIS_INTENTS)]
    lookup = {name: k for k, name in enumerate(sorted(keep))}
    pairs = [(t, lookup[i]) for t, i in zip(texts, intents, strict=True) if i in lookup]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def length_split(texts: list[str], labels: list[int], part: str):
    """The shorter ("S") or longer ("L") half by whitespace token count."""
    order = sorted(range(len(texts)), key=lambda i: (len(texts[i].split()), i))
    half = len(order) // 2
    chosen = order[:half] if part == "S" else order[half:]
    chosen.sort()
    return [texts[i] for i in chosen], np.array([labels[i] for i in chosen])


def run_short_text(ctx: TaskContext, corpus: str, part: str) -> TaskResult:
    """Mean and std of test accuracy over 10 seeded probe runs."""
    embed = ctx.require_embeddings()
    loader = load_twitter if corpus == "twitter" else load_atis
    texts, labels = length_split(*loader(ctx.short_text), part)
    runs = N_RUNS
    if ctx.quick:
        keep = np.sort(np.random.default_rng(ctx.seed).permutation(len(texts))[:QUICK_ITEMS])
        texts, labels, runs = [texts[i] for i in keep], labels[keep], QUICK_RUNS
    _, labels = np.unique(labels, return_inverse=True)
    x = embed(texts)
    accs = []
    for run in range(runs):
        seed = ctx.seed + run
        tr, va, te = split_indices(len(labels), seed)
        accs.append(100 * train_probe(x, labels, tr, va, te, seed=seed, lr=1e-3).test_accuracy)
    return TaskResult(
        score=float(np.mean(accs)),
        std=float(np.std(accs)),
        n=len(texts),
        details={
            "runs": accs,
            "mean_tokens": float(np.mean([len(t.split()) for t in texts])),
            "classes": int(labels.max()) + 1,
        },
    )
