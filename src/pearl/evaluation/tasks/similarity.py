"""Phrase similarity: Turney (bigram vs 5 unigrams) and BIRD (relatedness correlation)."""

from __future__ import annotations

import numpy as np
from scipy.stats import pearsonr

from pearl.evaluation.tasks.base import TaskContext, TaskResult, normalize_rows

__all__ = ["load_turney", "load_bird", "run_turney", "run_bird"]

QUICK_ITEMS = 400


def load_turney(path) -> list[list[str]]:
    """Each item: the query bigram then 5 candidates, the gold unigram first.

    The two component words (fields 3 and 4) are not candidates, as in PEARL's code.
    """
    items = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split(" | ")
            if len(parts) >= 8:
                items.append(parts[:2] + parts[4:])
    return items


def load_bird(path) -> tuple[list[str], list[str], np.ndarray]:
    """Term pairs and their relatedness score (second-to-last field); header skipped."""
    a, b, s = [], [], []
    with open(path, encoding="utf-8") as f:
        next(f)
        for line in f:
            parts = line.rstrip("\n").split("\t")
            a.append(parts[1])
            b.append(parts[2])
            s.append(float(parts[-2]))
    return a, b, np.array(s)


def _subsample(n: int, ctx: TaskContext) -> np.ndarray:
    idx = np.arange(n)
    if ctx.quick:
        idx = np.sort(np.random.default_rng(ctx.seed).permutation(n)[:QUICK_ITEMS])
    return idx


def run_turney(ctx: TaskContext) -> TaskResult:
    """Accuracy of argmax dot product between the bigram and its 5 candidates."""
    items = load_turney(ctx.data / "turney" / "turney.txt")
    items = [items[i] for i in _subsample(len(items), ctx)]
    if ctx.embed is None:
        correct = 0
        for it in items:
            scores = ctx.model.pair_scores([it[0]] * (len(it) - 1), it[1:])
            correct += int(np.argmax(scores) == 0)
    else:
        flat = [t for it in items for t in it]
        emb = ctx.embed(flat).reshape(len(items), len(items[0]), -1)
        scores = np.einsum("nkd,nd->nk", emb[:, 1:], emb[:, 0])
        correct = int((scores.argmax(axis=1) == 0).sum())
    return TaskResult(score=100 * correct / len(items), n=len(items))


def run_bird(ctx: TaskContext) -> TaskResult:
    """Pearson r between (cos + 1) / 2 and the human relatedness score."""
    a, b, gold = load_bird(ctx.data / "bird" / "bird.txt")
    idx = _subsample(len(gold), ctx)
    a, b, gold = [a[i] for i in idx], [b[i] for i in idx], gold[idx]
    if ctx.embed is None:
        sim = ctx.model.pair_scores(a, b)
    else:
        ea, eb = normalize_rows(ctx.embed(a)), normalize_rows(ctx.embed(b))
        sim = ((ea * eb).sum(axis=1) + 1) / 2
    r = pearsonr(sim, gold).statistic
    return TaskResult(score=100 * float(r), n=len(gold))
