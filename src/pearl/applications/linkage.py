"""Average-linkage clustering of a sparse similarity graph.

Two clusters merge, best pair first, while the mean similarity of all their cross pairs
is at least a threshold; a pair without an edge counts as similarity 0. On a complete
graph this is ordinary average linkage cut at that threshold; on a k-nearest-neighbour
graph it costs time in the number of edges, not the square of the number of values.
"""

from __future__ import annotations

import heapq

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

__all__ = ["graph_average_linkage"]


def _merge_component(
    rows: np.ndarray, cols: np.ndarray, weights: np.ndarray, threshold: float
) -> list[tuple[int, int]]:
    """Average linkage of one connected component (global node ids): its merges, each as
    one node of either merged cluster."""
    edges = list(zip(rows.tolist(), cols.tolist(), weights.tolist(), strict=True))
    adj: dict[int, dict[int, float]] = {}
    for i, j, w in edges:
        for x, y in ((i, j), (j, i)):
            row = adj.setdefault(x, {})
            row[y] = row.get(y, 0.0) + w
    size = dict.fromkeys(adj, 1)
    version = dict.fromkeys(adj, 0)
    merges = []
    heap = [(-w, i, j, 0, 0) for i, j, w in edges]
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
        merges.append((a, b))
        for c, w in adj[a].items():
            avg = w / (size[a] * size[c])
            if avg >= threshold:
                x, y = (a, c) if a < c else (c, a)
                heapq.heappush(heap, (-avg, x, y, version[x], version[y]))
    return merges


def graph_average_linkage(
    n: int, rows: np.ndarray, cols: np.ndarray, weights: np.ndarray, threshold: float
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
        this. A merge needs one edge of at least ``threshold`` (a mean never exceeds its
        largest term), so only the components of those edges are clustered.

    Returns
    -------
    ndarray of int64, shape (n,)
        Labels numbered by first appearance (node 0 has label 0).
    """
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    weights = np.asarray(weights, dtype=np.float64)
    strong = weights >= threshold
    graph = coo_matrix((np.ones(int(strong.sum())), (rows[strong], cols[strong])), shape=(n, n))
    _, comp = connected_components(graph, directed=False)
    same = comp[rows] == comp[cols]
    rows, cols, weights = rows[same], cols[same], weights[same]
    order = np.argsort(comp[rows], kind="stable")
    rows, cols, weights = rows[order], cols[order], weights[order]
    bounds = np.searchsorted(comp[rows], np.arange(comp.max() + 2))
    merges: list[tuple[int, int]] = []
    for c in np.flatnonzero(np.bincount(comp) > 1):
        e = slice(bounds[c], bounds[c + 1])
        merges += _merge_component(rows[e], cols[e], weights[e], threshold)
    a, b = np.array(merges, dtype=np.int64).reshape(-1, 2).T
    _, labels = connected_components(
        coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n)), directed=False
    )
    # number the clusters by their smallest node (node 0 has label 0)
    first = np.full(labels.max() + 1, n, dtype=np.int64)
    np.minimum.at(first, labels, np.arange(n))
    return np.unique(first[labels], return_inverse=True)[1].astype(np.int64)
