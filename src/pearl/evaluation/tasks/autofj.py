"""Fuzzy join (AutoFJ, 50 datasets): each matched right title takes its nearest left title."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pearl.evaluation.tasks.base import TaskContext, TaskResult, normalize_rows

__all__ = ["dataset_names", "load_autofj", "autofj_strings", "run_autofj"]

QUICK_DATASETS = 5


def dataset_names(root) -> list[str]:
    """The AutoFJ dataset folders (50 in the benchmark), sorted."""
    return sorted(p.name for p in (root / "benchmark").iterdir() if (p / "gt.csv").is_file())


def load_autofj(folder) -> tuple[list[str], list[str], dict[str, str]]:
    """Left titles, right titles, and the ground truth as right title -> left title."""

    def read(name):
        return pd.read_csv(folder / name, dtype=str, keep_default_na=False)

    left, right, gt = read("left.csv"), read("right.csv"), read("gt.csv")
    return list(left.title), list(right.title), dict(zip(gt.title_r, gt.title_l, strict=True))


def autofj_strings(root) -> list[str]:
    """Every title of the AutoFJ datasets under ``root`` (``<benchmark>/autofj``), left
    and right tables, sorted: what training data must exclude (``pearl benchmark-strings``;
    a title holding a line break cannot be a line of the list and is left out)."""
    root = Path(root)
    if not (root / "benchmark").is_dir():
        raise FileNotFoundError(f"no AutoFJ datasets in {root} (expected {root / 'benchmark'})")
    titles: set[str] = set()
    for name in dataset_names(root):
        left, right, _ = load_autofj(root / "benchmark" / name)
        titles.update(t for t in left + right if "\n" not in t)
    return sorted(titles)


def _accuracy(ctx: TaskContext, left, right, truth) -> tuple[float, int]:
    queries = [r for r in right if r in truth]
    if not queries:
        return float("nan"), 0
    if ctx.embed is None:
        ids, _ = ctx.model.top1(queries, left)
    else:
        lv = normalize_rows(ctx.embed(left))
        qv = normalize_rows(ctx.embed(queries))
        ids = np.empty(len(queries), dtype=np.int64)
        for s in range(0, len(queries), 1024):
            ids[s : s + 1024] = (qv[s : s + 1024] @ lv.T).argmax(axis=1)
    correct = sum(left[i] == truth[q] for i, q in zip(ids, queries, strict=True))
    return correct / len(queries), len(queries)


def run_autofj(ctx: TaskContext) -> TaskResult:
    """Accuracy per dataset (argmax cosine over left titles), averaged over datasets."""
    root = ctx.data / "autofj"
    names = dataset_names(root)
    if ctx.quick:
        names = names[:QUICK_DATASETS]
    per, total = {}, 0
    for name in names:
        left, right, truth = load_autofj(root / "benchmark" / name)
        acc, n = _accuracy(ctx, left, right, truth)
        per[name] = 100 * acc
        total += n
    return TaskResult(
        score=float(np.mean(list(per.values()))),
        n=total,
        details={"datasets": len(names), "per_dataset": per},
    )
