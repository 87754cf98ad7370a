"""Entity retrieval (YAGO, UMLS): top-1 accuracy of each mention's nearest canonical name.

The paper's dictionaries (572K / 750K names) are not public; the stand-in
dictionaries ``*_kb_standin.txt`` are used instead, so these scores are not
comparable with the paper's YAGO and UMLS columns.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pearl.evaluation.tasks.base import TaskContext, TaskResult, normalize_rows

__all__ = ["load_queries", "load_names", "nearest", "run_retrieval"]

QUICK_QUERIES = 500
QUICK_DICTIONARY = 20_000


def load_queries(path) -> tuple[list[str], list[str]]:
    """``mention<TAB>canonical name`` lines."""
    mentions, labels = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2:
                mentions.append(parts[0])
                labels.append(parts[1])
    return mentions, labels


def load_names(path) -> list[str]:
    """One canonical name per line, stripped, duplicates removed (first kept)."""
    with open(path, encoding="utf-8") as f:
        return list(dict.fromkeys(s for s in (line.strip() for line in f) if s))


def nearest(queries: np.ndarray, names: np.ndarray, index: str = "flat", seed: int = 0):
    """Index of each query's nearest name by cosine, with faiss.

    Parameters
    ----------
    index : {"flat", "ivfpq"}
        ``"flat"``: exact inner product on normalised vectors. ``"ivfpq"``: the
        paper's IVF-PQ (100 lists, 8-bit codes, m = largest divisor of the
        dimension up to 24), approximate.
    """
    import faiss

    q, x = normalize_rows(queries), normalize_rows(names)
    d = x.shape[1]
    if index == "flat":
        idx: Any = faiss.IndexFlatIP(d)
    elif index == "ivfpq":
        m = max(k for k in range(1, 25) if d % k == 0)
        nlist = min(100, max(1, len(x) // 39))
        idx = faiss.IndexIVFPQ(faiss.IndexFlatL2(d), d, nlist, m, 8)
        idx.cp.seed = seed
        idx.train(x)
    else:
        raise ValueError(f"unknown index {index!r}; use 'flat' or 'ivfpq'")
    idx.add(x)
    _, ids = idx.search(q, 1)
    return ids[:, 0]


def run_retrieval(ctx: TaskContext, name: str) -> TaskResult:
    """Top-1 accuracy over ``<name>_test_samples.txt`` against ``<name>_kb_standin.txt``."""
    folder = ctx.data / name
    mentions, labels = load_queries(folder / f"{name}_test_samples.txt")
    names = load_names(folder / f"{name}_kb_standin.txt")
    if ctx.quick:
        rng = np.random.default_rng(ctx.seed)
        keep = np.sort(rng.permutation(len(mentions))[:QUICK_QUERIES])
        mentions, labels = [mentions[i] for i in keep], [labels[i] for i in keep]
        gold = set(labels)
        others = [n for n in names if n not in gold]
        extra = rng.permutation(len(others))[: QUICK_DICTIONARY - len(gold)]
        names = sorted(gold) + [others[i] for i in np.sort(extra)]
    missing = len(set(labels) - set(names))
    if ctx.embed is None:
        ids, _ = ctx.model.top1(mentions, names)
    else:
        ids = nearest(ctx.embed(mentions), ctx.embed(names), ctx.retrieval_index, ctx.seed)
    correct = sum(names[i] == g for i, g in zip(ids, labels, strict=True))
    return TaskResult(
        score=100 * correct / len(labels),
        n=len(labels),
        details={
            "dictionary_size": len(names),
            "index": ctx.retrieval_index,
            "labels_missing_from_dictionary": missing,
        },
    )
