"""Entity clustering (CoNLL-03, BC5CDR): KMeans on mention embeddings, NMI."""

from __future__ import annotations

import json

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import normalized_mutual_info_score

from pearl.evaluation.tasks.base import TaskContext, TaskResult

__all__ = ["LABELS", "load_mentions", "run_clustering"]

LABELS = {"conll2003": ("PER", "LOC", "ORG"), "bc5cdr": ("Chemical", "Disease")}
QUICK_MENTIONS = 1000


def load_mentions(path, types) -> tuple[list[str], np.ndarray]:
    """Every entity mention of the kept types (duplicates kept, as in PEARL's code)."""
    lookup = {t: i for i, t in enumerate(types)}
    phrases, labels = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            obj = json.loads(line)
            for tokens, spans in zip(obj["sentences"], obj["ner"], strict=False):
                for start, end, kind in spans:
                    if kind in lookup:
                        phrases.append(" ".join(tokens[start : end + 1]))
                        labels.append(lookup[kind])
    return phrases, np.array(labels)


def run_clustering(ctx: TaskContext, name: str) -> TaskResult:
    """KMeans(k = number of types, random_state=0, n_init=10) on test.json mentions, NMI."""
    embed = ctx.require_embeddings()
    types = LABELS[name]
    phrases, labels = load_mentions(ctx.data / name / "test.json", types)
    if ctx.quick:
        phrases, labels = phrases[:QUICK_MENTIONS], labels[:QUICK_MENTIONS]
    x = np.asarray(embed(phrases), dtype=np.float64)
    pred = KMeans(n_clusters=len(types), random_state=0, n_init=10).fit_predict(x)
    return TaskResult(
        score=100 * normalized_mutual_info_score(labels, pred),
        n=len(phrases),
        details={"k": len(types)},
    )
