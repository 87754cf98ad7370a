"""Connected components of an undirected graph, in NumPy.

``scipy.sparse.csgraph`` imports ``scipy.sparse.linalg`` (0.15 s beyond ``scipy.sparse``
on a slow machine, a tenth of a small ``pearl dedup``); clustering needs only the
components, which this finds with vectorised union-find: every root is hooked to the
smallest root it shares an edge with, then every node jumps to its root, until no edge
joins two roots (a dozen rounds for a path of a million nodes; as fast as scipy, the same
labels: results/benchmarks/connected_components.md, made by
benchmarks/speed/connected_components.py).
"""

from __future__ import annotations

import numpy as np

__all__ = ["connected_components"]

#: hooking rounds before handing a graph to scipy (a few suffice for any graph seen)
_MAX_ROUNDS = 64


def connected_components(n: int, a, b) -> np.ndarray:
    """The component of each of ``n`` nodes joined by the undirected edges ``(a[i], b[i])``.

    Components are numbered 0, 1, ... in the order of their smallest node, as
    ``scipy.sparse.csgraph.connected_components(directed=False)`` numbers them.

    Parameters
    ----------
    n : int
        Number of nodes.
    a, b : array-like of int
        The edges' ends, nodes in ``0 .. n - 1``.

    Returns
    -------
    ndarray of int64, shape (n,)
    """
    a = np.asarray(a, dtype=np.int64).ravel()
    b = np.asarray(b, dtype=np.int64).ravel()
    if a.shape != b.shape:
        raise ValueError("a and b must hold one end of each edge")
    if len(a) and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n):
        raise ValueError(f"edge ends must be nodes 0 .. {n - 1}")
    parent = np.arange(n, dtype=np.int64)  # parent[x] <= x; a root is its own parent
    for _ in range(_MAX_ROUNDS):
        ra, rb = parent[a], parent[b]
        apart = ra != rb
        if not apart.any():
            # every root is the smallest node of its tree: number the roots in order
            return np.unique(parent, return_inverse=True)[1].astype(np.int64).reshape(n)
        a, b = a[apart], b[apart]  # an edge inside one tree never joins anything again
        ra, rb = ra[apart], rb[apart]
        np.minimum.at(parent, np.maximum(ra, rb), np.minimum(ra, rb))
        while True:  # every node to its root
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            parent = grand
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components as scipy_components

    # the trees hooked so far, joined by scipy along the edges left between their roots
    roots = coo_matrix((np.ones(len(a)), (parent[a], parent[b])), shape=(n, n))
    _, labels = scipy_components(roots, directed=False)
    return np.unique(labels[parent], return_inverse=True)[1].astype(np.int64).reshape(n)
