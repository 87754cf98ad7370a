"""Deduplication and clustering of messy string values."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from pearl._validation import check_float, check_int
from pearl.encoders import DEFAULT_MODEL, TABLE_BATCH_SIZE
from pearl.tables.encoding import get_encoder, query_vectors, to_string_list
from pearl.tables.frames import column_like, is_table, table_columns
from pearl.tables.linkage import graph_average_linkage
from pearl.tables.match_graph import match_graph
from pearl.tables.matcher import TYPO_FLOOR, check_matcher, scorer_for
from pearl.tables.numbers import NUMBERED_APART
from pearl.tables.words import WORD_APART

__all__ = ["cluster", "deduplicate"]

#: The exact tree of ``n_clusters`` is quadratic: at most this many distinct values.
MAX_UNIQUE = 20_000
#: The cut when no ``threshold`` is given: a match probability of 0.6 with a calibrated
#: matcher, a cosine of 0.7 with ``matcher="cosine"``. Chosen for the default model on
#: development tasks made from training-corpus names, typos and dense lists of similar
#: names (experiments/dedup_dense_lists.py; on the match graph: experiments/dedup_graph.py;
#: with rows weighing, experiments/dedup_silhouette.py kept 0.6).
DEFAULT_THRESHOLD = {"probability": 0.6, "cosine": 0.7}
#: With a calibrated matcher, two values at most one typo apart per 6 characters of the
#: shorter (substitutions, insertions, deletions, two adjacent letters swapped, case aside:
#: 6-11 characters one typo, 12-17 two...) are linked with probability at least 0.95: the
#: matcher gives a pair one typo apart about 0.55-0.70 and two typos apart 0.2-0.6.
#: Chosen on development data (experiments/dedup_edit_length.py: overall F1 0.917 to 0.932
#: with :data:`SHORT_EDIT`, heavily misspelt copies of frequent names included; before,
#: one edit from 4 characters, experiments/dedup_one_edit.py).
EDITS = TYPO_FLOOR  # the joins' typo floor is this rule (one constant for both)
#: With a calibrated matcher, two values one edit apart whose shorter has fewer than 4
#: characters ("aaa" and "aaab", "NBC" and "NBA") are linked with probability at most 0.5,
#: below the default cut: a short code one edit from another is usually another code
#: (experiments/dedup_edit_length.py).
SHORT_EDIT = (0.5, 4)
#: With a calibrated matcher, two values that abbreviate each other word by word ("Cam.
#: Corp." and "Campeau Corp.", "Intl Paper" and "International Paper") are linked with
#: probability at least this (experiments/dedup_abbreviations.py: overall F1 0.859 to
#: 0.896 on development data).
ABBREVIATION = 0.95
#: With a calibrated matcher, two values whose numbers differ ("Apollo 11", "Apollo 13";
#: "Windows 7", "Windows 8") are linked with probability at most this: a sequel, a
#: version or a year is another thing (:mod:`pearl.tables.numbers`; the typo rule above
#: had linked them at 0.95).
NUMBERS = NUMBERED_APART
#: Likewise two values a word apart ("North Korea", "South Korea"; "Jane Smith", "John
#: Smith"): a word swapped for another that is neither its typo nor its abbreviation
#: (:mod:`pearl.tables.words`; the matcher gave such pairs 0.56-0.70).
WORDS = WORD_APART


def _unique_embeddings(
    texts: list[str],
    nulls: np.ndarray,
    model: Any,
    batch_size: int,
    exact: bool,
    show_progress_bar: bool | None,
) -> Any:
    uniq = list(dict.fromkeys(t for t, n in zip(texts, nulls, strict=True) if not n))
    if exact and len(uniq) > MAX_UNIQUE:
        raise ValueError(
            f"{len(uniq)} distinct values; a fixed n_clusters needs the exact (quadratic) "
            f"tree, capped at {MAX_UNIQUE}. Give a threshold instead (n_clusters=None)."
        )
    enc = get_encoder(model)
    if show_progress_bar is None:
        show_progress_bar = len(uniq) > 50_000
    # above QUERY_CACHE_MAX values, outside the process cache (a million values held twice
    # broke an 8 GB limit with the default model)
    emb = query_vectors(uniq, enc, batch_size, show_progress_bar) if uniq else None
    return uniq, emb, enc


def _value_labels(texts: list[str], nulls: np.ndarray) -> np.ndarray | None:
    """Cluster labels of a column of codes, numbers or dates
    (:func:`~pearl.tables.comparisons.field_kind`): equal values after record linkage's
    normalisation ("310-246-1501" and "(310) 246 1501"; "3" and "3.0"; "1975-03-12" and
    "03/12/1975"), -1 where missing; None for a column of text. Such values are never
    one typo apart from their duplicate: postcodes 02134 and 02135, or two phones one
    digit apart, are two places and two lines (the string matcher linked them)."""
    import pandas as pd

    from pearl.tables.comparisons import normalised_values

    column = pd.Series([None if n else t for t, n in zip(texts, nulls, strict=True)], dtype=object)
    values = normalised_values(column, column)
    if values is None:
        return None
    labels, _ = pd.factorize(values[0], use_na_sentinel=True)
    return labels.astype(np.int64)


def _distances(uniq: list[str], emb: np.ndarray, scorer: Any, block: int = 2048) -> np.ndarray:
    """1 - match probability of every pair of distinct values (the combined matcher)."""
    from pearl.tables.ngrams import NgramVectorizer

    ng = NgramVectorizer().fit_transform(uniq)
    dist = np.empty((len(uniq), len(uniq)), dtype=np.float32)
    for s in range(0, len(uniq), block):
        dist[s : s + block] = 1.0 - scorer.probability(
            emb[s : s + block] @ emb.T, (ng[s : s + block] @ ng.T).toarray()
        )
    np.fill_diagonal(dist, 0.0)
    return np.maximum(dist, (dist.T + dist) / 2)  # symmetric up to rounding


def _exact_labels(uniq: list[str], emb: np.ndarray, scorer: Any, n_clusters: int) -> np.ndarray:
    """The exact average-linkage tree cut into ``n_clusters``."""
    n = len(emb)
    if not 1 <= n_clusters <= n:
        raise ValueError(f"n_clusters must be between 1 and {n} (distinct values)")
    if n == 1:
        return np.zeros(1, dtype=np.int64)
    from sklearn.cluster import AgglomerativeClustering  # 1 s to import: only for this tree

    dist = _distances(uniq, emb, scorer) if scorer is not None else None
    model = AgglomerativeClustering(
        n_clusters=n_clusters,
        metric="cosine" if dist is None else "precomputed",
        linkage="average",
    )
    return model.fit_predict(emb if dist is None else dist).astype(np.int64)


def cluster(
    values: Any,
    *,
    n_clusters: int | None = None,
    threshold: float | None = None,
    model: Any = DEFAULT_MODEL,
    batch_size: int = TABLE_BATCH_SIZE,
    matcher: Any = "combined",
    top_k: int = 5,
    show_progress_bar: bool | None = None,
    sample_weight: Any = None,
) -> np.ndarray:
    """Cluster string values by how likely they name the same thing.

    Average linkage of the distinct values on their match graph: each value is linked to its
    ``top_k`` nearest values by embedding and by character n-grams (exact for small columns,
    a faiss HNSW graph above 20,000 values, where two runs can differ on a few links), each
    link weighted by the match probability of the combined matcher (embedding and n-grams)
    or by the embedding cosine. Clusters merge while the average similarity of all their
    cross pairs of *rows* is at least ``threshold``, unlinked pairs counting as 0: a value
    that fills many rows weighs as many, so a frequent spelling pulls its rare misspellings
    toward it. With the combined matcher, two values at most one typo apart per 6
    characters of the shorter (a substitution, an insertion, a deletion or two adjacent
    letters swapped, case aside) are linked with probability at least 0.95
    (:data:`EDITS`), and so are two values that abbreviate each other word by word ("Intl
    Paper", "International Paper"; :data:`ABBREVIATION`); two codes of fewer than 4
    characters one edit apart ("NBC", "NBA") at most 0.5 (:data:`SHORT_EDIT`), and two
    values whose numbers differ ("Apollo 11", "Apollo 13") at most 0.05
    (:data:`NUMBERS`), and two a word apart ("North Korea", "South Korea") at most 0.4
    (:data:`WORDS`). The cost
    grows with the number of links, not its square: a million distinct values fit on a laptop.
    With ``n_clusters``, the exact average-linkage tree over all pairs of distinct values
    is cut instead (at most 20,000 distinct values; rows do not weigh there).

    A column of codes, numbers or dates (phones, postcodes, ids, years: as record linkage
    reads a column's kind, :func:`~pearl.tables.comparisons.field_kind`) is clustered by
    its values instead, without the model: equal after normalisation ("310-246-1501",
    "(310) 246 1501"; dates in any format the column uses), never one digit apart
    (postcodes 02134 and 02135 are two places); ``threshold`` does not apply there.

    Parameters
    ----------
    values : iterable or table
        Strings (pandas/polars Series, array or list). Numbers go through ``str()``. A
        table of several columns clusters its *rows* (records of people, companies...):
        each field is compared with its own similarity and the evidence combined into one
        match probability by a Fellegi-Sunter model fitted without labels
        (:func:`~pearl.tables.record_linkage.cluster_records`); ``threshold`` is
        then that probability and ``n_clusters`` is not offered.
    n_clusters : int, optional
        Number of clusters (the exact tree); when None, clusters are cut where the
        average similarity between them falls below ``threshold``.
    threshold : float, optional
        Used when ``n_clusters`` is None: the minimum average similarity inside a
        cluster, a match probability in [0, 1] (default 0.6) or, with
        ``matcher="cosine"``, a cosine in [-1, 1] (default 0.7).
    model : str or encoder
    batch_size : int
    matcher : {"combined", "cosine"} or MatchScorer, default="combined"
        The similarity of two values: the match probability given their embedding cosine
        and their character n-gram cosine (see
        :class:`~pearl.tables.matcher.MatchScorer`), or the embedding cosine.
    top_k : int, default=5
        Neighbours linked per value and per signal (embedding, n-grams); chosen with the
        cut on development data (``experiments/dedup_graph.py``). A cluster of more than
        about ``2 * top_k`` distinct spellings may be cut in pieces: raise it for columns
        with many spellings per entity (the time grows with it).
    show_progress_bar : bool, optional
        Progress of the encoding; default: on above 50,000 distinct values.
    sample_weight : array-like of shape (n_values,), optional
        How many rows each value stands for (default 1; a value repeated in ``values``
        adds up its weights): pass counts to cluster a column's distinct values as the
        whole column would be.

    Returns
    -------
    ndarray of int64, shape (n_values,)
        Cluster label of each value; equal strings share a label; missing values
        get -1.
    """
    matcher = check_matcher(matcher)
    if _several_columns(values):
        return _cluster_table(values, n_clusters, threshold, model, matcher, top_k)
    cosine = isinstance(matcher, str) and matcher == "cosine"
    if threshold is None:
        threshold = DEFAULT_THRESHOLD["cosine" if cosine else "probability"]
    threshold = check_float(threshold, "threshold", -1.0 if cosine else 0.0, 1.0)
    if n_clusters is not None:
        n_clusters = check_int(n_clusters, "n_clusters", 1)
    batch_size = check_int(batch_size, "batch_size", 1)
    top_k = check_int(top_k, "top_k", 1)
    texts, nulls = to_string_list(values, non_string="str")
    # checked before any work, whichever way the column is clustered
    weight = None if sample_weight is None else _checked_weights(sample_weight, len(texts))
    if n_clusters is None and (by_value := _value_labels(texts, nulls)) is not None:
        return by_value  # codes, numbers or dates: equal values are duplicates
    uniq, emb, encoder = _unique_embeddings(
        texts, nulls, model, batch_size, n_clusters is not None, show_progress_bar
    )
    out = np.full(len(texts), -1, dtype=np.int64)
    if not uniq:
        return out
    scorer = scorer_for(matcher, encoder)
    if n_clusters is not None:
        lab = _exact_labels(uniq, emb, scorer, n_clusters)
    else:
        rows = _row_weights(texts, nulls, uniq, weight)
        rules: dict[str, Any] = (
            dict(
                edits=EDITS,
                short_edit=SHORT_EDIT,
                abbreviation=ABBREVIATION,
                numbers=NUMBERS,
                words=WORDS,
            )
            if scorer is not None
            else {}
        )
        graph = match_graph(uniq, emb, scorer, top_k=top_k, **rules)
        lab = graph_average_linkage(
            len(uniq), graph.rows, graph.cols, graph.weights, threshold, rows
        )
    lookup = dict(zip(uniq, lab, strict=True))
    for i, (t, n) in enumerate(zip(texts, nulls, strict=True)):
        if not n:
            out[i] = lookup[t]
    return out


def _row_weights(
    texts: list[str], nulls: np.ndarray, uniq: list[str], weight: np.ndarray | None
) -> np.ndarray:
    """The rows each distinct value stands for: its count, or its summed ``weight`` (one
    checked weight per value, :func:`_checked_weights`)."""
    weight = np.ones(len(texts)) if weight is None else weight
    where = {t: i for i, t in enumerate(uniq)}
    live = ~np.asarray(nulls, dtype=bool)
    ids = np.array([where[t] for t, ok in zip(texts, live, strict=True) if ok], dtype=np.int64)
    return np.bincount(ids, weights=weight[live], minlength=len(uniq))


def _checked_weights(sample_weight: Any, n: int) -> np.ndarray:
    """``sample_weight`` as n finite positive floats (else a ValueError)."""
    weight = np.asarray(sample_weight, dtype=np.float64).ravel()
    if weight.shape != (n,):
        raise ValueError(f"sample_weight has {weight.size} entries for {n} values")
    if not np.all(np.isfinite(weight)) or (weight <= 0).any():
        raise ValueError("sample_weight must be finite and positive")
    return weight


def deduplicate(
    values: Any,
    *,
    threshold: float | None = None,
    n_clusters: int | None = None,
    model: Any = DEFAULT_MODEL,
    batch_size: int = TABLE_BATCH_SIZE,
    matcher: Any = "combined",
    top_k: int = 5,
    show_progress_bar: bool | None = None,
) -> Any:
    """Map each value to a canonical representative of its cluster.

    Like skrub's ``deduplicate``: values are clustered (see :func:`cluster`) and
    each is replaced by the most frequent value of its cluster (ties: the first
    seen). Missing values stay missing.

    Parameters
    ----------
    values : column or table
        A pandas/polars Series, a pyarrow array, a one-column table, a list or an array;
        or a table of several columns, whose rows are clustered as records (see
        :func:`cluster`): each row is then replaced by its cluster's most frequent row,
        and a table of the caller's library comes back.
    threshold : float, optional
        Minimum average similarity inside a cluster: a match probability (default 0.6),
        or a cosine with ``matcher="cosine"`` (default 0.7). See :func:`cluster`.
    n_clusters : int, optional
        Fixed number of clusters instead of a threshold.
    model : str or encoder
    batch_size : int
    matcher : {"combined", "cosine"} or MatchScorer, default="combined"
        See :func:`cluster`.
    top_k : int, default=5
        Neighbours linked per value and per signal; see :func:`cluster`.
    show_progress_bar : bool, optional

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
    if _several_columns(values):
        return _deduplicate_table(
            values, n_clusters, threshold, model, check_matcher(matcher), top_k
        )
    labels = cluster(
        values,
        n_clusters=n_clusters,
        threshold=threshold,
        model=model,
        batch_size=batch_size,
        matcher=matcher,
        top_k=top_k,
        show_progress_bar=show_progress_bar,
    )
    texts, nulls = to_string_list(values, non_string="str")
    counts: dict[int, Counter] = {}
    for t, lab in zip(texts, labels, strict=True):
        if lab >= 0:
            counts.setdefault(int(lab), Counter())[t] += 1
    canon = {lab: c.most_common(1)[0][0] for lab, c in counts.items()}
    out = [None if lab < 0 else canon[int(lab)] for lab in labels]
    return column_like(values, out)


def _several_columns(values: Any) -> bool:
    return is_table(values) and len(table_columns(values)) > 1


def _cluster_table(
    values: Any,
    n_clusters: int | None,
    threshold: float | None,
    model: Any,
    matcher: Any,
    top_k: int,
) -> np.ndarray:
    """Row clusters of a table of several columns: record linkage within the table."""
    from pearl.tables.frames import check_unique_columns, to_pandas_table
    from pearl.tables.record_linkage import cluster_records

    check_unique_columns(values, "values")
    if n_clusters is not None:
        raise ValueError("n_clusters is for one column; a table of several columns takes threshold")
    threshold = DEFAULT_THRESHOLD["probability"] if threshold is None else threshold
    threshold = check_float(threshold, "threshold", 0.0, 1.0)
    frame, _ = to_pandas_table(values, "values")
    encoder = get_encoder(model)
    return cluster_records(
        frame,
        encoder=encoder,
        scorer=scorer_for(matcher, encoder),
        threshold=threshold,
        top_k=check_int(top_k, "top_k", 1),
    )


def _deduplicate_table(values, n_clusters, threshold, model, matcher, top_k):
    """Each row of a table of several columns replaced by its cluster's most frequent row
    (ties: the first seen); rows with every field missing are kept."""
    from pearl.tables.frames import from_pandas_table, to_pandas_table

    labels = _cluster_table(values, n_clusters, threshold, model, matcher, top_k)
    frame, kind = to_pandas_table(values, "values")
    keys = [tuple(row) for row in frame.astype(str).itertuples(index=False)]
    best: dict[int, Counter] = {}
    first: dict[tuple, int] = {}
    for i, (key, lab) in enumerate(zip(keys, labels, strict=True)):
        first.setdefault(key, i)
        if lab >= 0:
            best.setdefault(int(lab), Counter())[key] += 1
    canon = {lab: first[c.most_common(1)[0][0]] for lab, c in best.items()}
    rows = [canon[int(lab)] if lab >= 0 else i for i, lab in enumerate(labels)]
    out = frame.iloc[rows]
    out.index = frame.index
    return from_pandas_table(out, kind, values)
