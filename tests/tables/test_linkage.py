import numpy as np
import pytest
from sklearn.cluster import AgglomerativeClustering
from sklearn.metrics import adjusted_rand_score, silhouette_score

from pearl.tables.linkage import (
    cut_tree,
    graph_average_linkage,
    graph_silhouette,
    linkage_tree,
)


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


@pytest.mark.parametrize("seed", range(4))
def test_row_weights_are_linkage_over_repeated_rows(seed):
    # a value held by c rows weighs as c copies at similarity 1 of each other
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 20))
    x = rng.normal(size=(n, 3))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    sim = (x @ x.T + 1) / 2
    sizes = rng.integers(1, 5, n)
    i, j = np.triu_indices(n, 1)
    t = float(rng.uniform(0.5, 0.9))
    got = graph_average_linkage(n, i, j, sim[i, j], t, sizes)
    rep = np.repeat(np.arange(n), sizes)
    full = sim[np.ix_(rep, rep)]
    np.fill_diagonal(full, 1.0)
    full[rep[:, None] == rep[None, :]] = 1.0
    ref = AgglomerativeClustering(
        n_clusters=None, metric="precomputed", linkage="average", distance_threshold=1 - t
    ).fit_predict(1 - full)
    first = np.searchsorted(rep, np.arange(n))
    assert adjusted_rand_score(got, ref[first]) == 1.0


def test_tree_cut_at_any_threshold_equals_a_run_at_that_threshold():
    rng = np.random.default_rng(0)
    n = 30
    i, j = np.triu_indices(n, 1)
    keep = rng.random(len(i)) < 0.3
    i, j, w = i[keep], j[keep], rng.random(int(keep.sum()))
    tree = linkage_tree(n, i, j, w, 0.05)
    for t in (0.2, 0.5, 0.8):
        assert cut_tree(tree, t).tolist() == graph_average_linkage(n, i, j, w, t).tolist()


@pytest.mark.parametrize("seed", range(4))
def test_graph_silhouette_is_sklearns_on_a_complete_graph(seed):
    rng = np.random.default_rng(seed)
    n = 15
    sim = rng.random((n, n))
    sim = (sim + sim.T) / 2
    i, j = np.triu_indices(n, 1)
    labels = rng.integers(0, 4, n)
    dist = 1 - sim
    np.fill_diagonal(dist, 0.0)
    want = silhouette_score(dist, labels, metric="precomputed")
    assert graph_silhouette(n, i, j, sim[i, j], labels) == pytest.approx(want)
    sizes = rng.integers(1, 4, n)
    rep = np.repeat(np.arange(n), sizes)
    want = silhouette_score(dist[np.ix_(rep, rep)], labels[rep], metric="precomputed")
    assert graph_silhouette(n, i, j, sim[i, j], labels, sizes) == pytest.approx(want)


def test_graph_silhouette_counts_missing_edges_as_distance_one():
    # two tight pairs, no edge between them: every node has a = 0.1, b = 1
    rows, cols, w = np.array([0, 2]), np.array([1, 3]), np.array([0.9, 0.9])
    assert graph_silhouette(4, rows, cols, w, np.array([0, 0, 1, 1])) == pytest.approx(0.9)
    assert graph_silhouette(4, rows, cols, w, np.arange(4)) == 0.0  # singletons score 0


def test_sizes_must_be_positive_and_one_per_node():
    with pytest.raises(ValueError, match="sizes"):
        graph_average_linkage(2, np.array([0]), np.array([1]), np.array([0.9]), 0.5, [1, 0])
    with pytest.raises(ValueError, match="sizes"):
        linkage_tree(2, np.array([0]), np.array([1]), np.array([0.9]), 0.5, [1])
