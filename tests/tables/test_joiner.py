"""The Joiner: fuzzy_join as a scikit-learn transformer, its right side fitted once."""

from __future__ import annotations

import pandas as pd
import pytest

import pearl

RIGHT = pd.DataFrame(
    {
        "name": ["The New York Times", "Boston Globe", "Chicago Tribune", "Apollo 11"],
        "id": [1, 2, 3, 4],
    }
)


def test_fit_transform_is_the_fuzzy_join(hash_encoder):
    left = pd.DataFrame({"q": ["new york times", "boston glob", "Apollo 13", None]})
    for kw in ({}, {"top_k": 2, "threshold": 0.0}, {"matcher": "cosine"}, {"precision": 0.5}):
        joiner = pearl.Joiner(RIGHT, left_on="q", right_on="name", model=hash_encoder, **kw)
        expected = pearl.fuzzy_join(
            left, RIGHT, left_on="q", right_on="name", model=hash_encoder, **kw
        )
        pd.testing.assert_frame_equal(joiner.fit_transform(left), expected)


def test_a_second_table_is_joined_without_encoding_the_right_one_again(hash_encoder):
    from pearl.tables import clear_caches

    clear_caches(models=False)  # the left keys may be in the process cache from another test
    joiner = pearl.Joiner(RIGHT, on="name", model=hash_encoder)
    joiner.fit(pd.DataFrame({"name": ["new york times"]}))
    calls = hash_encoder.calls
    second = pd.DataFrame({"name": ["chicago tribune", "boston globe"]})
    out = joiner.transform(second)
    assert hash_encoder.calls == calls + 2  # the two left keys only
    assert out["id"].tolist() == [3, 2]
    pd.testing.assert_frame_equal(
        out, pearl.fuzzy_join(second, RIGHT, on="name", model=hash_encoder)
    )


def test_a_joiner_checks_its_input(hash_encoder):
    from sklearn.base import clone
    from sklearn.exceptions import NotFittedError

    joiner = pearl.Joiner(RIGHT, on="name", model=hash_encoder)
    with pytest.raises(NotFittedError):
        joiner.transform(pd.DataFrame({"name": ["x"]}))
    with pytest.raises(KeyError, match="left has no column 'name'"):
        joiner.fit(pd.DataFrame({"other": ["x"]}))
    with pytest.raises(ValueError, match="one key column"):
        pearl.Joiner(RIGHT, on=["name", "id"], model=hash_encoder).fit(RIGHT)
    assert clone(joiner).get_params()["on"] == "name"
    polars = pytest.importorskip("polars")
    out = joiner.fit_transform(polars.DataFrame({"name": ["boston globe"]}))
    assert isinstance(out, polars.DataFrame) and out["id"].to_list() == [2]
