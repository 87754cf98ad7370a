import numpy as np
import pytest
from sklearn.cluster import AgglomerativeClustering
from sklearn.metrics import adjusted_rand_score

from pearl.applications.linkage import graph_average_linkage


@pytest.mark.parametrize("seed", range(8))
def test_complete_graph_is_ordinary_average_linkage(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 50))
    x = rng.normal(size=(n, 3))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    sim = (x @ x.T + 1) / 2
    i, j = np.triu_indices(n, 1)
    t = float(rng.uniform(0.4, 0.9))
    got = graph_average_linkage(n, i, j, sim[i, j], t)
    ref = AgglomerativeClustering(
        n_clusters=None, metric="precomputed", linkage="average", distance_threshold=1 - t
    ).fit_predict(1 - sim)
    assert adjusted_rand_score(got, ref) == 1.0


def test_a_missing_edge_counts_as_zero():
    # 0-1 merge first; then {0, 1} and {2} average (0 + 0.8) / 2 with 0-2 missing,
    # (0.3 + 0.8) / 2 with an edge of 0.3
    rows, cols, w = np.array([0, 1]), np.array([1, 2]), np.array([0.9, 0.8])
    assert graph_average_linkage(3, rows, cols, w, 0.5).tolist() == [0, 0, 1]
    with_edge = graph_average_linkage(
        3, np.array([0, 1, 0]), np.array([1, 2, 2]), np.r_[w, 0.3], 0.5
    )
    assert with_edge.tolist() == [0, 0, 0]


def test_labels_follow_first_appearance_and_isolated_nodes():
    lab = graph_average_linkage(5, np.array([3]), np.array([4]), np.array([0.9]), 0.5)
    assert lab.tolist() == [0, 1, 2, 3, 3]
    assert graph_average_linkage(0, np.array([]), np.array([]), np.array([]), 0.5).shape == (0,)
    assert graph_average_linkage(
        2, np.array([0]), np.array([1]), np.array([0.4]), 0.5
    ).tolist() == [0, 1]
