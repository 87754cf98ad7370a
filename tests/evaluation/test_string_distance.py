import numpy as np
import pytest

import pearl
from pearl import StringDistance


def test_ngrams_are_padded_and_lowercased():
    assert StringDistance(3).ngrams("Ab") == {" ab", "ab "}


def test_jaccard_values():
    sd = StringDistance(3)
    assert sd.pair_scores(["abc"], ["abc"])[0] == 1.0
    # " ab","abc","bc " vs " ab","abd","bd ": 1 shared of 5
    assert sd.pair_scores(["abc"], ["abd"])[0] == pytest.approx(1 / 5)
    assert sd.pair_scores([""], [""])[0] == 0.0


def test_matrix_agrees_with_pair_scores_and_top1():
    sd = StringDistance()
    a = ["new york times", "nytimes", "boston globe"]
    b = ["The New York Times", "Boston Globe", "", "🙂"]
    m = sd.similarity(a, b, chunk_size=2)
    for i, x in enumerate(a):
        np.testing.assert_allclose(m[i], sd.pair_scores([x] * len(b), b), rtol=1e-6)
    idx, score = sd.top1(a, b)
    np.testing.assert_array_equal(idx, m.argmax(axis=1))
    np.testing.assert_allclose(score, m.max(axis=1), rtol=1e-6)
    assert list(idx[[0, 2]]) == [0, 1]


def test_float_for_two_strings():
    assert isinstance(StringDistance().similarity("a", "a"), float)


def test_bad_input():
    with pytest.raises(ValueError, match=r"a\[0\] is None"):
        StringDistance().pair_scores([None], ["x"])
    with pytest.raises(ValueError, match="same length"):
        StringDistance().pair_scores(["a"], ["a", "b"])
    with pytest.raises(ValueError):
        StringDistance(0)


def test_it_is_a_benchmark_model_not_an_encoder():
    from pearl.encoders import load_encoder
    from pearl.evaluation.string_distance import load_model

    assert isinstance(load_model("string-distance"), StringDistance)
    with pytest.raises(ValueError, match="no embeddings"):
        load_encoder("string-distance")
    with pytest.raises(ValueError, match="no embeddings"):
        pearl.deduplicate(["a", "b"], model="string-distance")
