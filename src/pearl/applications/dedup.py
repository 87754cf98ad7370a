"""Deduplication and clustering of messy string values."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
from sklearn.cluster import AgglomerativeClustering

from pearl._validation import check_float, check_int
from pearl.applications.encoding import get_cache, get_encoder, to_string_list
from pearl.applications.matcher import check_matcher, scorer_for
from pearl.applications.tables import column_like
from pearl.encoders import DEFAULT_MODEL
from pearl.encoders.base import normalize_rows

__all__ = ["cluster", "deduplicate"]

MAX_UNIQUE = 20_000
#: The cut when no ``threshold`` is given: a match probability of 0.6 with a calibrated
#: matcher, a cosine of 0.7 with ``matcher="cosine"``. Chosen for the default model on
#: development tasks made from training-corpus names, typos and dense lists of similar
#: names (experiments/dedup_dense_lists.py).
DEFAULT_THRESHOLD = {"probability": 0.6, "cosine": 0.7}


def _unique_embeddings(values, model, batch_size):
    texts, nulls = to_string_list(values, non_string="str")
    uniq = list(dict.fromkeys(t for t, n in zip(texts, nulls, strict=True) if not n))
    if len(uniq) > MAX_UNIQUE:
        raise ValueError(
            f"{len(uniq)} distinct values; clustering is quadratic and capped at {MAX_UNIQUE}."
            " Deduplicate against a reference list with pearl.EntityIndex instead."
        )
    enc = get_encoder(model)
    emb = normalize_rows(get_cache(enc, batch_size)(uniq)) if uniq else None
    return texts, nulls, uniq, emb, enc


def _distances(uniq: list[str], emb: np.ndarray, scorer, block: int = 2048) -> np.ndarray:
    """1 - match probability of every pair of distinct values (the combined matcher)."""
    from pearl.applications.matcher import NgramVectorizer

    ng = NgramVectorizer().fit(uniq).transform(uniq)
    dist = np.empty((len(uniq), len(uniq)), dtype=np.float32)
    for s in range(0, len(uniq), block):
        dist[s : s + block] = 1.0 - scorer.probability(
            emb[s : s + block] @ emb.T, (ng[s : s + block] @ ng.T).toarray()
        )
    np.fill_diagonal(dist, 0.0)
    return np.maximum(dist, (dist.T + dist) / 2)  # symmetric up to rounding


def _labels(
    emb: np.ndarray, n_clusters: int | None, threshold: float, dist: np.ndarray | None = None
) -> np.ndarray:
    n = len(emb)
    if n == 1:
        return np.zeros(1, dtype=np.int64)
    metric = "cosine" if dist is None else "precomputed"
    if n_clusters is not None:
        if not 1 <= n_clusters <= n:
            raise ValueError(f"n_clusters must be between 1 and {n} (distinct values)")
        model = AgglomerativeClustering(n_clusters=n_clusters, metric=metric, linkage="average")
    else:
        model = AgglomerativeClustering(
            n_clusters=None, metric=metric, linkage="average", distance_threshold=1.0 - threshold
        )
    return model.fit_predict(emb if dist is None else dist).astype(np.int64)


def cluster(
    values,
    *,
    n_clusters: int | None = None,
    threshold: float | None = None,
    model: Any = DEFAULT_MODEL,
    batch_size: int = 64,
    matcher: Any = "combined",
) -> np.ndarray:
    """Cluster string values by how likely they name the same thing.

    Average-linkage agglomerative clustering of the distinct values, by default on the
    match probability of the combined matcher (embedding and character n-grams).

    Parameters
    ----------
    values : iterable
        Strings (pandas/polars Series, array or list). Numbers go through ``str()``.
    n_clusters : int, optional
        Number of clusters; when None, clusters are cut where the average similarity
        between them falls below ``threshold``.
    threshold : float, optional
        Used when ``n_clusters`` is None: the minimum average similarity inside a
        cluster, a match probability in [0, 1] (default 0.6) or, with
        ``matcher="cosine"``, a cosine in [-1, 1] (default 0.7).
    model : str or encoder
    batch_size : int
    matcher : {"combined", "cosine"} or MatchScorer, default="combined"
        The similarity of two values: the match probability given their embedding cosine
        and their character n-gram cosine (see
        :class:`~pearl.applications.matcher.MatchScorer`), or the embedding cosine.

    Returns
    -------
    ndarray of int64, shape (n_values,)
        Cluster label of each value; equal strings share a label; missing values
        get -1.
    """
    matcher = check_matcher(matcher)
    cosine = isinstance(matcher, str) and matcher == "cosine"
    if threshold is None:
        threshold = DEFAULT_THRESHOLD["cosine" if cosine else "probability"]
    threshold = check_float(threshold, "threshold", -1.0 if cosine else 0.0, 1.0)
    if n_clusters is not None:
        n_clusters = check_int(n_clusters, "n_clusters", 1)
    batch_size = check_int(batch_size, "batch_size", 1)
    texts, nulls, uniq, emb, encoder = _unique_embeddings(values, model, batch_size)
    out = np.full(len(texts), -1, dtype=np.int64)
    if not uniq:
        return out
    scorer = scorer_for(matcher, encoder)
    dist = _distances(uniq, emb, scorer) if scorer is not None and len(uniq) > 1 else None
    lab = _labels(emb, n_clusters, threshold, dist)
    lookup = dict(zip(uniq, lab, strict=True))
    for i, (t, n) in enumerate(zip(texts, nulls, strict=True)):
        if not n:
            out[i] = lookup[t]
    return out


def deduplicate(
    values,
    *,
    threshold: float | None = None,
    n_clusters: int | None = None,
    model: Any = DEFAULT_MODEL,
    batch_size: int = 64,
    matcher: Any = "combined",
):
    """Map each value to a canonical representative of its cluster.

    Like skrub's ``deduplicate``: values are clustered (see :func:`cluster`) and
    each is replaced by the most frequent value of its cluster (ties: the first
    seen). Missing values stay missing.

    Parameters
    ----------
    values : column
        A pandas/polars Series, a pyarrow array, a one-column table, a list or an array.
    threshold : float, optional
        Minimum average similarity inside a cluster: a match probability (default 0.6),
        or a cosine with ``matcher="cosine"`` (default 0.7). See :func:`cluster`.
    n_clusters : int, optional
        Fixed number of clusters instead of a threshold.
    model : str or encoder
    batch_size : int
    matcher : {"combined", "cosine"} or MatchScorer, default="combined"
        See :func:`cluster`.

    Returns
    -------
    Series of the caller's library
        Same length as ``values``: a pandas Series keeps its index, name and string dtype;
        a polars Series, a pyarrow array or a one-column table gives a column of its
        library; a list or numpy array gives a pandas Series (RangeIndex). Missing values
        stay missing.

    Examples
    --------
    >>> deduplicate(["Paris", "Paris", "paris", "Pariss", "London"]).tolist()
    ['Paris', 'Paris', 'Paris', 'Paris', 'London']
    """
    labels = cluster(
        values,
        n_clusters=n_clusters,
        threshold=threshold,
        model=model,
        batch_size=batch_size,
        matcher=matcher,
    )
    texts, nulls = to_string_list(values, non_string="str")
    counts: dict[int, Counter] = {}
    for t, lab in zip(texts, labels, strict=True):
        if lab >= 0:
            counts.setdefault(int(lab), Counter())[t] += 1
    canon = {lab: c.most_common(1)[0][0] for lab, c in counts.items()}
    out = [None if lab < 0 else canon[int(lab)] for lab in labels]
    return column_like(values, out)
