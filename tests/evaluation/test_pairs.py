import numpy as np
import pytest

from pearl.evaluation.pairs import (
    best_threshold,
    class_separation,
    plot_classes,
    threshold_accuracy,
)


def test_best_threshold_separates_when_it_can():
    t, acc = best_threshold(np.array([0.9, 0.8, 0.3, 0.2]), np.array([1, 1, 0, 0]))
    assert 0.3 < t < 0.8 and acc == 1.0
    t, acc = best_threshold(np.array([0.9, 0.1]), np.array([0, 1]))
    assert acc == 0.5
    with pytest.raises(ValueError):
        best_threshold(np.array([]), np.array([]))


def test_threshold_from_dev_applied_to_test(hash_encoder):
    dev = (["New York Times", "Boston Globe"], ["New York Tmies", "Le Monde"], [1, 0])
    test = (["Washington Post", "Le Monde"], ["Washington Pots", "The Guardian"], [1, 0])
    res = threshold_accuracy(hash_encoder, dev, test)
    assert res["dev_accuracy"] == 1.0 and res["test_accuracy"] == 1.0
    assert res["test_f1"] == 1.0 and res["test_pairs"] == 2


def test_class_separation_and_plot(tmp_path):
    rng = np.random.default_rng(0)
    centers = rng.normal(size=(3, 8)) * 5
    x = np.concatenate([c + rng.normal(size=(10, 8)) * 0.1 for c in centers])
    y = np.repeat([0, 1, 2], 10)
    assert class_separation(x, y) > 5
    assert class_separation(rng.normal(size=(30, 8)), y) == pytest.approx(1.0, abs=0.2)
    ratio = plot_classes(x, y, tmp_path / "p.png", title="test")
    assert (tmp_path / "p.png").stat().st_size > 0 and ratio > 5


def test_plot_many_classes_has_no_legend(tmp_path, monkeypatch):
    """With more than 10 classes the legend would hide the plot: members are joined."""
    import matplotlib.axes

    legends = []
    monkeypatch.setattr(matplotlib.axes.Axes, "legend", lambda self, *a, **k: legends.append(1))
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(80, 8)), np.repeat(np.arange(40), 2)
    assert plot_classes(x, y, tmp_path / "many.png", title="pairs") > 0
    assert (tmp_path / "many.png").stat().st_size > 0 and legends == []
    plot_classes(x[:20], y[:20], tmp_path / "few.png")
    assert legends == [1]


def test_read_pairs(tmp_path):
    import pytest

    from pearl._validation import MissingKeyError
    from pearl.evaluation.pairs import read_pairs

    good = tmp_path / "p.csv"
    good.write_text(
        "left,right,label\nNYT,New York Times,1\nNYT, Le Monde , 0 \n", encoding="utf-8"
    )
    assert read_pairs(good) == (["NYT", "NYT"], ["New York Times", " Le Monde "], [1, 0])
    bad = tmp_path / "bad.csv"
    bad.write_text("left,right,label\na,b,1\na,c,yes\n", encoding="utf-8")
    with pytest.raises(ValueError, match="data row 2"):
        read_pairs(bad)
    (tmp_path / "cols.csv").write_text("a,b\nx,y\n", encoding="utf-8")
    with pytest.raises(MissingKeyError, match="label"):
        read_pairs(tmp_path / "cols.csv")


def test_pairwise_cluster_scores():
    import pytest

    from pearl.evaluation.pairs import pairwise_cluster_scores

    truth = ["a", "a", "a", "b", "b", "c"]
    assert pairwise_cluster_scores([1, 1, 1, 2, 2, 3], truth)["f1"] == 1.0
    # one false merge of a singleton: 4 true pairs found of 4, 4 predicted pairs of 6
    s = pairwise_cluster_scores([1, 1, 1, 2, 2, 2], truth)
    assert s == {"precision": round(4 / 6, 4), "recall": 1.0, "f1": round(0.8, 4)}
    # all singletons: no pair predicted, none found
    s = pairwise_cluster_scores(range(6), truth)
    assert s["precision"] == 1.0 and s["recall"] == 0.0 and s["f1"] == 0.0
    with pytest.raises(ValueError, match="predictions"):
        pairwise_cluster_scores([1], truth)


def test_best_threshold_equals_the_exhaustive_search():
    def exhaustive(s, y):
        order = np.sort(np.unique(s))
        cands = np.concatenate(
            [[order[0] - 1e-6], (order[:-1] + order[1:]) / 2, [order[-1] + 1e-6]]
        )
        acc = [((s >= t).astype(int) == y).mean() for t in cands]
        i = int(np.argmax(acc))
        return float(cands[i]), float(acc[i])

    rng = np.random.default_rng(0)
    for n in (1, 2, 5, 40, 300):
        for _ in range(20):
            y = rng.integers(0, 2, n)
            s = np.round(rng.normal(y * 0.5, 0.4), 1)  # ties included
            t, acc = best_threshold(s, y)
            t0, acc0 = exhaustive(s, y)
            assert acc == pytest.approx(acc0) and t == pytest.approx(t0), (s, y)
