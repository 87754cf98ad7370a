"""Average-linkage clustering of a sparse similarity graph.

Two clusters merge, best pair first, while the mean similarity of all their cross pairs
is at least a threshold; a pair without an edge counts as similarity 0. On a complete
graph this is ordinary average linkage cut at that threshold; on a k-nearest-neighbour
graph it costs time in the number of edges, not the square of the number of values.
Nodes may carry weights (how many rows hold each distinct value): the mean is then over
the rows, so a spelling seen a hundred times pulls its rare variants toward it.

:func:`linkage_tree` keeps every merge with its height, so that one tree is cut at many
thresholds (:func:`cut_tree`), and :func:`graph_silhouette` scores a cut without labels.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix

from pearl._graph import connected_components

__all__ = ["LinkageTree", "cut_tree", "graph_average_linkage", "graph_silhouette", "linkage_tree"]


@dataclass
class LinkageTree:
    """The merges of average linkage over a graph of ``n`` nodes: merge ``m`` joined the
    clusters of nodes ``a[m]`` and ``b[m]`` at mean similarity ``heights[m]``."""

    n: int
    a: np.ndarray
    b: np.ndarray
    heights: np.ndarray


def _merge_component(
    rows: np.ndarray,
    cols: np.ndarray,
    weights: np.ndarray,
    threshold: float,
    sizes: dict[int, float],
) -> list[tuple[int, int, float]]:
    """Average linkage of one connected component (global node ids): its merges, each as
    one node of either merged cluster and the merge's mean similarity."""
    adj: dict[int, dict[int, float]] = {}
    heap = []
    for i, j, w in zip(rows.tolist(), cols.tolist(), weights.tolist(), strict=True):
        mass = w * sizes[i] * sizes[j]
        for x, y in ((i, j), (j, i)):
            row = adj.setdefault(x, {})
            row[y] = row.get(y, 0.0) + mass
        heap.append((-w, i, j, 0, 0))
    size = {x: sizes[x] for x in adj}
    version = dict.fromkeys(adj, 0)
    merges = []
    heapq.heapify(heap)
    while heap:
        neg, a, b, va, vb = heapq.heappop(heap)
        if -neg < threshold:
            break
        if version.get(a) != va or version.get(b) != vb:
            continue  # stale: one side has merged since
        if len(adj[a]) < len(adj[b]):
            a, b = b, a
        for c, w in adj.pop(b).items():
            if c == a:
                continue
            del adj[c][b]
            adj[a][c] = adj[c][a] = adj[a].get(c, 0.0) + w
        del adj[a][b]
        size[a] += size.pop(b)
        del version[b]
        version[a] += 1
        merges.append((a, b, -neg))
        for c, w in adj[a].items():
            avg = w / (size[a] * size[c])
            if avg >= threshold:
                x, y = (a, c) if a < c else (c, a)
                heapq.heappush(heap, (-avg, x, y, version[x], version[y]))
    return merges


def _check_graph(n, rows, cols, weights, sizes):
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    weights = np.asarray(weights, dtype=np.float64)
    if sizes is None:
        sizes = np.ones(n)
    sizes = np.asarray(sizes, dtype=np.float64)
    if sizes.shape != (n,) or (n and sizes.min() <= 0):
        raise ValueError(f"sizes must be {n} positive numbers, one per node")
    return rows, cols, weights, sizes


def linkage_tree(
    n: int,
    rows: np.ndarray,
    cols: np.ndarray,
    weights: np.ndarray,
    floor: float,
    sizes: np.ndarray | None = None,
) -> LinkageTree:
    """Every merge of average linkage over a sparse graph down to mean similarity ``floor``.

    Parameters
    ----------
    n : int
        Number of nodes.
    rows, cols : ndarray of int
        Undirected edges (each pair once).
    weights : ndarray of float
        Similarity of each edge; a missing edge is similarity 0.
    floor : float
        The lowest merge kept. A merge needs one edge of at least its height (a mean never
        exceeds its largest term), so only the components of edges of at least ``floor``
        are clustered.
    sizes : ndarray of float, optional
        Weight of each node (rows holding the value; default 1): cluster similarity is
        the weighted mean over cross pairs.

    Returns
    -------
    LinkageTree
        Merges in the order made; within a component their heights never increase
        (average linkage has no inversions).
    """
    rows, cols, weights, sizes = _check_graph(n, rows, cols, weights, sizes)
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return LinkageTree(0, empty, empty, np.zeros(0))
    strong = weights >= floor
    comp = connected_components(n, rows[strong], cols[strong])
    same = comp[rows] == comp[cols]
    rows, cols, weights = rows[same], cols[same], weights[same]
    order = np.argsort(comp[rows], kind="stable")
    rows, cols, weights = rows[order], cols[order], weights[order]
    bounds = np.searchsorted(comp[rows], np.arange(comp.max() + 2))
    size_of = dict(enumerate(sizes.tolist()))
    merges: list[tuple[int, int, float]] = []
    for c in np.flatnonzero(np.bincount(comp) > 1):
        e = slice(bounds[c], bounds[c + 1])
        merges += _merge_component(rows[e], cols[e], weights[e], floor, size_of)
    m = np.array([(a, b) for a, b, _ in merges], dtype=np.int64).reshape(-1, 2)
    heights = np.array([h for *_, h in merges], dtype=np.float64)
    return LinkageTree(n, m[:, 0], m[:, 1], heights)


def cut_tree(tree: LinkageTree, threshold: float) -> np.ndarray:
    """Cluster labels of the tree's merges of height at least ``threshold``, numbered by
    first appearance (node 0 has label 0)."""
    n = tree.n
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    keep = tree.heights >= threshold
    # components come numbered by their smallest node (node 0 has label 0)
    return connected_components(n, tree.a[keep], tree.b[keep])


def graph_average_linkage(
    n: int,
    rows: np.ndarray,
    cols: np.ndarray,
    weights: np.ndarray,
    threshold: float,
    sizes: np.ndarray | None = None,
) -> np.ndarray:
    """Cluster labels of ``n`` nodes by average linkage over a sparse graph.

    Parameters
    ----------
    n : int
        Number of nodes.
    rows, cols : ndarray of int
        Undirected edges (each pair once).
    weights : ndarray of float
        Similarity of each edge; a missing edge is similarity 0.
    threshold : float
        Clusters merge while the mean similarity over all their cross pairs is at least
        this (see :func:`linkage_tree`).
    sizes : ndarray of float, optional
        Weight of each node (default 1); see :func:`linkage_tree`.

    Returns
    -------
    ndarray of int64, shape (n,)
        Labels numbered by first appearance (node 0 has label 0).
    """
    return cut_tree(linkage_tree(n, rows, cols, weights, threshold, sizes), threshold)


def graph_silhouette(
    n: int,
    rows: np.ndarray,
    cols: np.ndarray,
    weights: np.ndarray,
    labels: np.ndarray,
    sizes: np.ndarray | None = None,
) -> float:
    """The mean silhouette of a clustering, with distance 1 - similarity and a missing
    edge at distance 1, in time linear in the edges.

    A node's silhouette is ``(b - a) / max(a, b)``, ``a`` its mean distance to the
    other members of its cluster, ``b`` its smallest mean distance to another cluster
    (1 for every cluster it has no edge to); a node alone in its cluster scores 0, as in
    scikit-learn's ``silhouette_score``. With ``sizes``, each node stands for that many
    identical rows (at distance 0 from each other) and the mean is over rows.
    """
    rows, cols, weights, sizes = _check_graph(n, rows, cols, weights, sizes)
    labels = np.asarray(labels, dtype=np.int64)
    if n == 0:
        return 0.0
    k = int(labels.max()) + 1
    sim = csr_matrix(
        (
            np.concatenate([weights, weights]),
            (np.concatenate([rows, cols]), np.concatenate([cols, rows])),
        ),
        shape=(n, n),
    )
    member = csr_matrix((sizes, (np.arange(n), labels)), shape=(n, k))
    to_cluster = (sim @ member).tocoo()  # node i, cluster c: sum of sizes[j] * sim(i, j)
    mass = np.bincount(labels, weights=sizes, minlength=k)
    i, c, total = to_cluster.row, to_cluster.col, to_cluster.data
    inside = c == labels[i]
    own = np.bincount(i[inside], weights=total[inside], minlength=n)
    # a node's copies are at distance 0 from each other: they add similarity sizes[i] - 1
    others = mass[labels] - 1.0
    alone = others <= 0
    a = np.where(alone, 0.0, 1.0 - (own + sizes - 1.0) / np.where(alone, 1.0, others))
    nearest = np.zeros(n)
    np.maximum.at(nearest, i[~inside], total[~inside] / mass[c[~inside]])
    b = 1.0 - np.clip(nearest, 0.0, 1.0)
    denom = np.maximum(a, b)
    s = np.where(alone | (denom <= 0), 0.0, (b - a) / np.where(denom > 0, denom, 1.0))
    return float(np.average(s, weights=sizes))
