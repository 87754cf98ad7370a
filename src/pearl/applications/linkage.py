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
    nodes: np.ndarray, rows: np.ndarray, cols: np.ndarray, weights: np.ndarray, threshold: float
) -> list[list[int]]:
    """Average linkage of one connected component (global node ids); its clusters."""
    edges = list(zip(rows.tolist(), cols.tolist(), weights.tolist(), strict=True))
    adj: dict[int, dict[int, float]] = {int(v): {} for v in nodes}
    for i, j, w in edges:
        adj[i][j] = adj[i].get(j, 0.0) + w
        adj[j][i] = adj[j].get(i, 0.0) + w
    size = dict.fromkeys(adj, 1)
    members = {v: [v] for v in adj}
    version = dict.fromkeys(adj, 0)
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
        members[a] += members.pop(b)
        del version[b]
        version[a] += 1
        for c, w in adj[a].items():
            avg = w / (size[a] * size[c])
            if avg >= threshold:
                x, y = (a, c) if a < c else (c, a)
                heapq.heappush(heap, (-avg, x, y, version[x], version[y]))
    return list(members.values())


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
    owner = np.arange(n, dtype=np.int64)  # each node's cluster, named by one of its nodes
    same = comp[rows] == comp[cols]
    rows, cols, weights = rows[same], cols[same], weights[same]
    order = np.argsort(comp[rows], kind="stable")
    rows, cols, weights = rows[order], cols[order], weights[order]
    bounds = np.searchsorted(comp[rows], np.arange(comp.max() + 2))
    sizes = np.bincount(comp)
    by_comp = np.argsort(comp, kind="stable")
    starts = np.concatenate([[0], np.cumsum(sizes)])
    for c in np.flatnonzero(sizes > 1):
        e = slice(bounds[c], bounds[c + 1])
        nodes = by_comp[starts[c] : starts[c + 1]]
        for group in _merge_component(nodes, rows[e], cols[e], weights[e], threshold):
            owner[group] = min(group)
    # owners are each cluster's smallest node: sorted, they number clusters by first node
    return np.unique(owner, return_inverse=True)[1].astype(np.int64)
