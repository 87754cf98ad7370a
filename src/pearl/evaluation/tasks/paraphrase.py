"""Paraphrase classification: PPDB and PPDB-filtered, MLP probe on concatenated embeddings."""

from __future__ import annotations

import json

import numpy as np

from pearl.evaluation.probes import split_indices, train_probe
from pearl.evaluation.tasks.base import TaskContext, TaskResult

__all__ = ["load_ppdb", "run_paraphrase"]

QUICK_PAIRS = 2000


def load_ppdb(path) -> tuple[list[str], list[str], np.ndarray]:
    """Read a PPDB JSON list of ``[phrase1, phrase2, "pos"|"neg", ...]``."""
    with open(path, encoding="utf-8") as f:
        rows = json.load(f)
    p1 = [r[0] for r in rows]
    p2 = [r[1] for r in rows]
    y = np.array([1 if r[2] == "pos" else 0 for r in rows], dtype=np.int64)
    return p1, p2, y


def run_paraphrase(ctx: TaskContext, name: str) -> TaskResult:
    """Seeded 70/15/15 split, MLP probe (Adam 1e-4, batch 200, patience 5), test accuracy.

    With ``ctx.probe_runs`` > 1 the split and probe are repeated with seeds ``seed + run``
    and the score is the mean test accuracy (std and every run in the result): a single
    probe sometimes stops early on a validation plateau, which moves PPDB-filtered by
    several points for the same embeddings.
    """
    embed = ctx.require_embeddings()
    p1, p2, y = load_ppdb(ctx.data / name / f"{name}.json")
    if ctx.quick:
        keep = np.random.default_rng(ctx.seed).permutation(len(y))[:QUICK_PAIRS]
        p1, p2, y = [p1[i] for i in keep], [p2[i] for i in keep], y[keep]
    x = np.hstack([embed(p1), embed(p2)])
    results = []
    from tqdm.auto import tqdm

    runs = tqdm(
        range(ctx.probe_runs),
        desc=f"{name} probe runs",
        unit="run",
        leave=False,
        disable=not ctx.show_progress_bar or ctx.probe_runs < 2,
    )
    for run in runs:
        seed = ctx.seed + run
        tr, va, te = split_indices(len(y), seed)  # the sizes depend on len(y) alone
        results.append(train_probe(x, y, tr, va, te, seed=seed, lr=1e-4))
    accs = [100 * r.test_accuracy for r in results]
    details = {
        "first_run": accs[0],
        "epochs": results[0].epochs,
        "best_val_accuracy": 100 * results[0].best_val_accuracy,
        "split": [len(tr), len(va), len(te)],
    }
    if ctx.probe_runs > 1:
        details.update(runs=accs, epochs_per_run=[r.epochs for r in results])
    return TaskResult(
        score=float(np.mean(accs)),
        n=len(y),
        std=float(np.std(accs)) if ctx.probe_runs > 1 else None,
        details=details,
    )
