import numpy as np

from pearl.evaluation.probes import split_indices, train_probe


def test_split_is_seeded_and_70_15_15():
    tr, va, te = split_indices(100, seed=3)
    assert (len(tr), len(va), len(te)) == (70, 15, 15)
    assert sorted(np.concatenate([tr, va, te]).tolist()) == list(range(100))
    assert np.array_equal(split_indices(100, seed=3)[0], tr)
    assert not np.array_equal(split_indices(100, seed=4)[0], tr)


def _blobs(n_classes, n=600, d=8, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(n_classes, size=n)
    centers = rng.normal(scale=4, size=(n_classes, d))
    return (centers[y] + rng.normal(size=(n, d))).astype(np.float32), y


def test_binary_probe_learns_separable_data():
    x, y = _blobs(2)
    res = train_probe(x, y, *split_indices(len(y), 0), lr=1e-2)
    assert res.test_accuracy > 0.95
    assert 3 <= res.epochs <= 100


def test_multiclass_probe_learns_and_is_deterministic():
    x, y = _blobs(4)
    a = train_probe(x, y, *split_indices(len(y), 1), seed=1, lr=1e-2)
    b = train_probe(x, y, *split_indices(len(y), 1), seed=1, lr=1e-2)
    assert a.test_accuracy > 0.9
    assert a == b


def test_random_labels_stay_near_chance():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 8)).astype(np.float32)
    y = rng.integers(2, size=600)
    res = train_probe(x, y, *split_indices(600, 0), lr=1e-2)
    assert res.test_accuracy < 0.7
    assert res.epochs < 100  # early stopping fired
