"""skrub's own fuzzy_join and deduplicate test cases (skrub/tests/test_fuzzy_join.py and
test_deduplicate.py, skrub 0.6-0.11), ported to pearl's API on pandas and polars: a user
moving from skrub gets the same shapes, dtypes, missing-value handling and matches.

The translation: ``add_match_info`` is ``return_score``, ``drop_unmatched=True`` is
``how="inner"``, a custom ``string_encoder`` is a custom ``model``. Out of pearl's scope,
so not ported: ``max_dist`` and ``ref_dist`` (pearl's cut is a match probability,
``threshold=``/``precision=``), numbers and dates compared as numbers and dates in a
single-key join (pearl compares keys as text), and ``metric=`` on numeric columns.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pearl import deduplicate, fuzzy_join

pl = pytest.importorskip("polars")
MODEL = "pearl-static"


@pytest.fixture(params=["pandas", "polars"])
def frame(request):
    """Make a table of the library under test from a dict of columns (None/NaN missing)."""

    def make(data: dict):
        if request.param == "pandas":
            return pd.DataFrame(data)
        clean = {
            k: [None if isinstance(v, float) and np.isnan(v) else v for v in col]
            for k, col in data.items()
        }
        return pl.DataFrame(clean, strict=False)

    make.kind = request.param
    return make


def column(table, name: str) -> list:
    values = table[name].to_list()
    return [None if isinstance(v, float) and np.isnan(v) else v for v in values]


def test_fuzzy_join_keeps_the_left_shape(frame):
    df1 = frame({"a1": ["ana", "lala", "nana et sana", np.nan]})
    df2 = frame({"a2": ["anna", "lala et nana", "lana", "sana", np.nan]})
    joined = fuzzy_join(df1, df2, left_on="a1", right_on="a2", model=MODEL)
    assert joined.shape == (4, 3)  # a1, a2, match_score
    joined2 = fuzzy_join(df2, df1, left_on="a2", right_on="a1", model=MODEL)
    assert joined2.shape == (5, 3)
    assert column(joined, "a2")[3] is None  # a missing key matches nothing


def test_on_with_suffix(frame):
    left = frame({"a1": ["ana", "lala"], "x": [1, 2]})
    right = frame({"a1": ["anna", "lala"], "x": [3, 4]})
    joined = fuzzy_join(left, right, on="a1", suffix="2", model=MODEL, return_score=False)
    assert list(joined.columns) == ["a1", "x", "a12", "x2"]


def test_dtypes_are_kept(frame):
    a = frame({"col1": ["aaa", "bbb"], "col2": [1, 2]})
    b = frame({"col1": ["aaa_", "bbb_"], "col3": [1, 2]})
    c = fuzzy_join(a, b, on="col1", suffix="r", model=MODEL)
    assert c["col2"].dtype == a["col2"].dtype
    assert c["col3"].dtype == b["col3"].dtype
    assert column(c, "col1r") == ["aaa_", "bbb_"]


def test_missing_keys(frame):
    a = frame({"col1": ["aaa", "bbb"], "col2": [1, 2]})
    b = frame({"col1": ["aaa_", "bbb_"], "col3": [1, 2]})
    with pytest.raises(ValueError, match="right_on"):
        fuzzy_join(a, b, left_on="col1", suffix="r", model=MODEL)
    with pytest.raises(TypeError, match="right_on"):  # what pearl raised before
        fuzzy_join(a, b, left_on="col1", suffix="r", model=MODEL)
    left = frame({"a": ["aa", np.nan, "bb"], "b": [1, 2, np.nan]})
    right = frame({"a": ["aa", "bb", np.nan, "cc", "dd"], "c": [5, 6, 7, 8, np.nan]})
    out = fuzzy_join(left, right, on="a", suffix="r", model=MODEL, return_score=False)
    assert out.shape == (3, 4)
    assert column(out, "ar") == ["aa", None, "bb"]


def test_drop_unmatched_is_an_inner_join(frame):
    a = frame({"col1": ["aaaa", "bbb", "ddd dd"], "col2": [1, 2, 3]})
    b = frame({"col1": ["aaa_", "bbb_", "cc ccc"], "col3": [1, 2, 3]})
    inner = fuzzy_join(a, b, on="col1", how="inner", suffix="r", model=MODEL, return_score=False)
    assert inner.shape == (2, 4)
    left = fuzzy_join(a, b, on="col1", suffix="r", model=MODEL, return_score=False)
    assert left.shape == (3, 4) and column(left, "col3")[2] is None


def test_exact_matches_give_the_left_join(frame):
    left = frame({"key": ["K2", "K2", "K3", "K1"], "A": ["A0", "A1", "A2", "A3"]})
    right = frame({"key_": ["K0", "K1", "K2", "K3"], "C": ["C0", "C1", "C2", "C3"]})
    out = fuzzy_join(left, right, left_on="key", right_on="key_", model=MODEL, return_score=False)
    assert column(out, "key_") == column(out, "key")
    assert column(out, "C") == ["C2", "C2", "C3", "C1"]
    assert column(out, "A") == ["A0", "A1", "A2", "A3"]


def test_a_custom_encoder_is_used(frame):
    class Called(Exception):
        pass

    class Encoder:
        def encode(self, texts, **kwargs):
            raise Called

    left = frame({"key": ["K0", "K1"], "A": ["A0", "A1"]})
    right = frame({"key": ["K0", "K1x"], "C": ["C0", "C1"]})
    with pytest.raises(Called):
        fuzzy_join(left, right, on="key", suffix="_", model=Encoder(), matcher="cosine")


def test_numbers_as_keys_keep_the_shape(frame):
    left = frame({"str1": ["aa", "a", "bb"], "int": [10, 2, 5]})
    right = frame({"str2": ["aa", "bb", "a", "cc", "dd"], "int": [55, 6, 2, 15, 6]})
    out = fuzzy_join(left, right, on="int", suffix="r", model=MODEL, return_score=False)
    assert out.shape == (3, 4)
    assert column(out, "str2")[1] == "a"  # 2 equals 2
    assert fuzzy_join(left, right, on="int", suffix="r", model=MODEL).shape == (3, 5)


def test_several_string_keys(frame):
    left = frame({"str1": ["Paris", "Paris", "Paris"], "str2": ["Texas", "France", "Greek God"]})
    right = frame(
        {
            "str_1": ["Paris", "Paris", "Paris", "cc", "dd"],
            "str_2": ["TX", "FR", "GR Mytho", "cc", "dd"],
        }
    )
    # 15 pairs: too few to learn, the fields joined into one key decide (no warning)
    out = fuzzy_join(
        left, right, left_on=["str1", "str2"], right_on=["str_1", "str_2"], model=MODEL
    )
    assert out.shape[0] == 3
    assert set(["str1", "str2", "str_1", "str_2"]) <= set(out.columns)


@pytest.mark.parametrize(
    "keys",
    [
        dict(on=["a"]),
        dict(on="a"),
        dict(left_on=["a", "str2"], right_on=("a", "str_2")),
        dict(left_on=("a", "str2"), right_on=np.asarray(("a", "str_2"))),
    ],
)
def test_iterable_keys(frame, keys):
    df1 = frame({"a": ["ana", "lala", "nana"], "str2": ["Texas", "France", "Greek God"]})
    df2 = frame({"a": ["anna", "lala", "ana", "nnana"], "str_2": ["TX", "FR", "GR Mytho", "dd"]})
    # several keys: 12 pairs, too few to learn, the fields joined into one key decide
    out = fuzzy_join(df1, df2, suffix="r", model=MODEL, return_score=False, **keys)
    assert out.shape == (3, 4)


def test_missing_values_in_either_key(frame):
    a = frame({"col1": ["aaaa", "bbb", "ddd dd"], "col2": [1, 2, 3]})
    b = frame({"col3": [np.nan, "bbb", "ddd dd"], "col4": [1, 2, 3]})
    c = fuzzy_join(a, b, left_on="col1", right_on="col3", model=MODEL, return_score=False)
    assert c.shape[0] == 3 and column(c, "col3")[1:] == ["bbb", "ddd dd"]
    c = fuzzy_join(b, a, left_on="col3", right_on="col1", model=MODEL)
    assert c.shape[0] == 3 and column(c, "col1")[0] is None


@pytest.mark.parametrize(
    "entries, mistakes",
    [([500, 100, 1500], 0.05), ([100, 100], 0.02), ([200, 50, 30, 200, 800], 0.01)],
)
def test_deduplicate_recovers_the_categories(entries, mistakes):
    datasets = pytest.importorskip("skrub.datasets")
    clean = ["Example Category", "Generic", "Random Word", "Pretty similar category"]
    clean = (clean + ["Final cluster"])[: len(entries)]
    data = datasets.make_deduplication_data(clean, entries, mistakes, np.random.RandomState(123))
    # with the number of clusters given, as skrub's test does in its second half
    out = deduplicate(data, n_clusters=len(entries), model=MODEL)
    assert len(out) == len(data)
    assert sorted(set(out)) == sorted(clean)
    # the same string always maps to the same value
    table = pd.Series(list(out), index=data)
    assert (table.groupby(level=0).nunique() == 1).all()
    # without it, no category is lost (skrub finds exactly the categories; pearl's cut is
    # a match probability, so heavily misspelt singletons may stay apart: see
    # experiments/results/dedup_edit_length.md)
    free = set(deduplicate(data, model=MODEL))
    assert set(clean) <= free


def test_deduplicate_keeps_short_codes_one_edit_apart():
    words = ["aac", "aaa", "aaab", "aaa", "aaab", "aaa", "aaab", "aaa"]
    assert deduplicate(words, model=MODEL).tolist() == words


def test_a_sentence_transformer_object_is_a_model(tiny_model_dir):
    # skrub's TextEncoder and sentence-transformers users hold a model object
    from sentence_transformers import SentenceTransformer

    from pearl import EntityIndex

    st = SentenceTransformer(str(tiny_model_dir))
    left = pd.DataFrame({"k": ["Paris", "Londn"]})
    right = pd.DataFrame({"k": ["London", "Paris", "Berlin"]})
    for matcher in ("combined", "cosine"):
        out = fuzzy_join(left, right, on="k", model=st, matcher=matcher, threshold=0.0)
        assert out["k_right"].tolist()[0] == "Paris"
    assert deduplicate(["Paris", "Paris", "London"], model=st).tolist()[:2] == ["Paris"] * 2
    found = EntityIndex(model=st).build(["London", "Paris"]).search(["Paris"])
    assert found.names[0][0] == "Paris"
