import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components as scipy_components

import pearl._graph as graph
from pearl._graph import connected_components


def _scipy(n, a, b):
    m = coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n))
    return scipy_components(m, directed=False)[1]


def _graphs():
    rng = np.random.default_rng(0)
    yield 5, [], []  # no edge: every node alone
    yield 6, [5, 4, 3, 2, 1], [4, 3, 2, 1, 0]  # a path, numbered downwards
    yield 7, [6] * 6, list(range(6))  # a star around the largest node
    yield 4, [1, 1, 2], [1, 2, 1]  # a loop and a repeated edge
    for n in (10, 200, 3000):
        for edges in (n // 3, n, 3 * n):
            yield n, rng.integers(0, n, edges), rng.integers(0, n, edges)


@pytest.mark.parametrize("rounds", [64, 1, 0])
def test_components_are_scipy_s_numbered_alike(rounds, monkeypatch):
    # rounds 1 and 0: what the hooking left is finished by scipy (the fallback)
    monkeypatch.setattr(graph, "_MAX_ROUNDS", rounds)
    for n, a, b in _graphs():
        got = connected_components(n, a, b)
        assert got.dtype == np.int64 and got.shape == (n,)
        np.testing.assert_array_equal(got, _scipy(n, np.asarray(a, int), np.asarray(b, int)))


def test_edges_must_name_nodes():
    assert connected_components(0, [], []).shape == (0,)
    with pytest.raises(ValueError, match="nodes 0 .. 2"):
        connected_components(3, [0], [3])
    with pytest.raises(ValueError, match="one end of each edge"):
        connected_components(3, [0, 1], [2])
