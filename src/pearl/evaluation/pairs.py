"""SentPWNet's evaluation of a pair task and of an embedding space's class structure.

* :func:`threshold_accuracy`: the threshold on the cosine is chosen on a development set
  (the one that maximises its accuracy; SentPWNet's Algorithm 1), then applied, unchanged,
  to the test pairs.
* :func:`class_separation` and :func:`plot_classes`: the ratio of the mean distance
  between items of different classes to the mean distance within a class, and the 2-D PCA
  plot of a few classes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pearl.encoders.base import normalize_rows

__all__ = [
    "best_threshold",
    "threshold_accuracy",
    "read_pairs",
    "pairwise_cluster_scores",
    "class_separation",
    "plot_classes",
]


def best_threshold(scores: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """The threshold ``t`` (predict a match when ``score >= t``) of highest accuracy on
    these scores, and that accuracy. Candidates are the midpoints between sorted scores
    (and just outside them); among equally accurate ones, the lowest. The accuracy of
    every candidate comes from scikit-learn's ``roc_curve`` in one pass."""
    from sklearn.metrics import roc_curve

    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels).astype(int)
    if not len(s):
        raise ValueError("no development pairs")
    u = np.unique(s)
    positives = int(y.sum())
    if positives in (0, len(y)):  # one class: accept all, or none
        return (float(u[0] - 1e-6), 1.0) if positives else (float(u[-1] + 1e-6), 1.0)
    fpr, tpr, thr = roc_curve(y, s, drop_intermediate=False)
    acc = (tpr * positives + (1 - fpr) * (len(y) - positives)) / len(y)
    k = int(np.flatnonzero(acc >= acc.max() - 1e-12).max())  # the lowest threshold
    if k == 0:  # roc_curve's first threshold accepts nothing
        return float(u[-1] + 1e-6), float(acc[0])
    i = int(np.searchsorted(u, thr[k]))
    t = u[0] - 1e-6 if i == 0 else (u[i - 1] + u[i]) / 2
    return float(t), float(acc[k])


def _cosines(encoder, left: list[str], right: list[str]) -> np.ndarray:
    a = normalize_rows(encoder.encode(list(left)))
    b = normalize_rows(encoder.encode(list(right)))
    return (a * b).sum(1)


def read_pairs(path: str | Path) -> tuple[list[str], list[str], list[int]]:
    """Labelled pairs from a CSV file with columns ``left``, ``right`` and ``label`` (1: a
    match, 0: not), as ``(left, right, labels)`` for :func:`threshold_accuracy`.

    Raises
    ------
    MissingKeyError
        When a column is missing.
    ValueError
        When a label is not 0 or 1 (the file and the first bad row are named).
    """
    import pandas as pd

    from pearl._validation import MissingKeyError

    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in ("left", "right", "label") if c not in frame.columns]
    if missing:
        raise MissingKeyError(f"{path}: no column(s) {missing}; columns: {list(frame.columns)}")
    labels = frame["label"].str.strip()
    bad = ~labels.isin(["0", "1"])
    if bad.any():
        row = int(bad.to_numpy().argmax())
        raise ValueError(
            f"{path}: label must be 0 or 1, got {frame['label'].iloc[row]!r} in data row {row + 1}"
        )
    return frame["left"].tolist(), frame["right"].tolist(), labels.astype(int).tolist()


def pairwise_cluster_scores(pred, truth) -> dict[str, float]:
    """Pairwise precision, recall and F1 of a clustering of rows: two rows are a pair when
    they share a cluster; computed from the contingency table (no loop over pairs).

    Parameters
    ----------
    pred, truth : sequence of hashable
        Predicted and true cluster of each row (same length).

    Returns
    -------
    dict
        ``precision``, ``recall``, ``f1`` (1.0 when there is no pair to find or none
        predicted, as for singletons only).
    """
    from collections import Counter

    pred, truth = list(pred), list(truth)
    if len(pred) != len(truth):
        raise ValueError(f"{len(pred)} predictions for {len(truth)} rows")
    both = Counter(zip(pred, truth, strict=True))
    same = sum(c * (c - 1) / 2 for c in both.values())
    p_pairs = sum(c * (c - 1) / 2 for c in Counter(pred).values())
    t_pairs = sum(c * (c - 1) / 2 for c in Counter(truth).values())
    precision = same / p_pairs if p_pairs else 1.0
    recall = same / t_pairs if t_pairs else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4)}


def threshold_accuracy(encoder, dev: tuple, test: tuple | None = None) -> dict:
    """Accuracy and F1 on ``test`` pairs at the cosine threshold chosen on ``dev`` pairs.

    Parameters
    ----------
    encoder : an encoder with ``encode``
    dev, test : tuple of (left, right, labels)
        Strings and 0/1 labels; without ``test``, the threshold and the development
        accuracy only.
    """
    t, dev_acc = best_threshold(_cosines(encoder, dev[0], dev[1]), np.asarray(dev[2]))
    if test is None:
        return {"threshold": t, "dev_accuracy": dev_acc}
    s = _cosines(encoder, test[0], test[1])
    y = np.asarray(test[2]).astype(int)
    pred = (s >= t).astype(int)
    tp = int(((pred == 1) & (y == 1)).sum())
    precision = tp / max(int(pred.sum()), 1)
    recall = tp / max(int(y.sum()), 1)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "threshold": t,
        "dev_accuracy": dev_acc,
        "test_accuracy": float((pred == y).mean()),
        "test_f1": f1,
        "test_pairs": int(len(y)),
    }


def class_separation(embeddings: np.ndarray, labels: np.ndarray) -> float:
    """Mean cosine distance between items of different classes divided by the mean cosine
    distance between items of the same class (higher: better separated)."""
    x = normalize_rows(np.asarray(embeddings, dtype=np.float32))
    y = np.asarray(labels)
    dist = 1.0 - x @ x.T
    same = y[:, None] == y[None, :]
    off = ~np.eye(len(y), dtype=bool)
    intra, inter = dist[same & off], dist[~same]
    if not len(intra) or not len(inter):
        raise ValueError("class_separation needs two classes and a class of two items")
    return float(inter.mean() / max(intra.mean(), 1e-12))


def plot_classes(
    embeddings: np.ndarray, labels: np.ndarray, path: str | Path, title: str = ""
) -> float:
    """2-D PCA scatter of the items coloured by class, with the separation ratio in the
    title; returns that ratio.

    Up to 10 classes get a legend; with more, the members of each class are joined by a
    line of its colour instead (pairs show as segments: short segments, tight classes).
    """
    from pearl._extras import pyplot

    plt = pyplot("plotting classes")
    from sklearn.decomposition import PCA

    ratio = class_separation(embeddings, labels)
    xy = PCA(n_components=2, random_state=0).fit_transform(normalize_rows(embeddings))
    labels = np.asarray(labels)
    classes = np.unique(labels)
    many = len(classes) > 10  # too many for a legend: a class's members are joined instead
    colours = plt.get_cmap("tab20" if many else "tab10")
    fig, ax = plt.subplots(figsize=(5.5, 5))
    for i, c in enumerate(classes):
        m = labels == c
        colour = colours(i % colours.N)
        if many:
            ax.plot(xy[m, 0], xy[m, 1], color=colour, linewidth=0.8, alpha=0.7)
        ax.scatter(xy[m, 0], xy[m, 1], s=14, color=colour, label=str(c))
    ax.set_title(
        "\n".join(t for t in (title, f"inter/intra class distance ratio {ratio:.2f}") if t),
        fontsize=10,
    )
    ax.set_xlabel("PC 1")
    ax.set_ylabel("PC 2")
    if not many:
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return ratio
