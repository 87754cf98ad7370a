"""The table layer (issue 37): ordinary inputs give right answers, in the caller's type."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from pearl import cluster, deduplicate, fuzzy_join
from pearl.tables.frames import column_cells

NAMES = ["Acme Inc", "Acme Inc", "Acme Incc", "Globex"]


@pytest.mark.parametrize(
    "frame",
    [
        pd.DataFrame({"company": NAMES}),
        pl.DataFrame({"company": NAMES}),
        pa.table({"company": NAMES}),
    ],
)
def test_a_one_column_table_is_a_column(frame, hash_encoder):
    out = deduplicate(frame, threshold=0.5, model=hash_encoder)
    assert len(out) == 4 and column_cells(out)[:3] == ["Acme Inc"] * 3
    assert len(cluster(frame, model=hash_encoder)) == 4


def test_a_table_of_several_columns_is_a_table_of_records(hash_encoder):
    """A column tool refuses it; deduplicate (since record clustering) dedups its rows."""
    frame = pd.DataFrame({"a": NAMES, "b": NAMES})
    with pytest.raises(ValueError, match="2 columns"):
        column_cells(frame)
    out = deduplicate(frame, model=hash_encoder)
    assert isinstance(out, pd.DataFrame) and out.shape == frame.shape


@pytest.mark.parametrize(
    "values", [pa.array(["Acme", "Acme", None]), pa.chunked_array([["Acme", None], ["Acme"]])]
)
def test_pyarrow_nulls_stay_missing(values, hash_encoder):
    out = deduplicate(values, model=hash_encoder)
    assert isinstance(out, pa.Array) and out.null_count == 1
    assert "None" not in [v for v in out.to_pylist() if v is not None]
    labels = cluster(values, model=hash_encoder)
    assert (labels == -1).sum() == 1


def test_the_callers_column_type_comes_back(hash_encoder):
    assert isinstance(deduplicate(pl.Series("c", NAMES), model=hash_encoder), pl.Series)
    s = pd.Series(["Acme", None, "Acme"], dtype="string[pyarrow]")
    assert deduplicate(s, model=hash_encoder).dtype == s.dtype
    assert isinstance(deduplicate(NAMES, model=hash_encoder), pd.Series)


def test_column_cells_of_every_kind():
    for values in (
        ["a", None],
        np.array(["a", None], dtype=object),
        pd.Series(["a", None]),
        pl.Series(["a", None]),
        pa.array(["a", None]),
        (v for v in ["a", None]),
    ):
        cells = column_cells(values)
        assert cells[0] == "a" and (cells[1] is None or cells[1] != cells[1])
    with pytest.raises(TypeError, match="str"):
        column_cells("abc")


LEFT = pl.DataFrame({"name": ["Paris", "Nowhere at all"]})
RIGHT = pl.DataFrame(
    {
        "city": ["Paris", "Rome"],
        "pop": [2_100_000, 2_800_000],
        "since": [dt.date(1900, 1, 1), dt.date(1950, 1, 1)],
    }
)


@pytest.mark.parametrize("matcher", ["cosine", "combined"])
def test_polars_dtypes_survive_an_unmatched_row(hash_encoder, matcher):
    out = fuzzy_join(
        LEFT, RIGHT, "name", "city", threshold=0.5, model=hash_encoder, matcher=matcher
    )
    assert isinstance(out, pl.DataFrame)
    assert out.schema["pop"] == pl.Int64 and out.schema["since"] == pl.Date
    assert out["pop"].null_count() == 1 and out["pop"][0] == 2_100_000


def test_lazy_frames_and_pyarrow_tables(hash_encoder):
    out = fuzzy_join(LEFT.lazy(), RIGHT.lazy(), "name", "city", model=hash_encoder)
    assert isinstance(out, pl.LazyFrame) and out.collect()["city"][0] == "Paris"
    tab = fuzzy_join(LEFT.to_arrow(), RIGHT.to_arrow(), "name", "city", model=hash_encoder)
    assert isinstance(tab, pa.Table) and tab.schema.field("pop").type == pa.int64()


def test_on_names_the_column_of_both_tables(hash_encoder):
    left = pd.DataFrame({"name": ["Pariss"]})
    right = pd.DataFrame({"name": ["Paris", "Rome"]})
    out = fuzzy_join(left, right, on="name", model=hash_encoder)
    assert out["name_right"].tolist() == ["Paris"]
    with pytest.raises(TypeError, match="not both"):
        fuzzy_join(left, right, "name", "name", on="name", model=hash_encoder)
    with pytest.raises(TypeError, match="on="):
        fuzzy_join(left, right, model=hash_encoder)


def test_the_threshold_is_checked_for_the_matcher(hash_encoder):
    left, right = pd.DataFrame({"a": ["x"]}), pd.DataFrame({"b": ["x"]})
    with pytest.raises(ValueError, match=r"probability in \[0, 1\]"):
        fuzzy_join(left, right, "a", "b", threshold=-0.5, model=hash_encoder)
    fuzzy_join(left, right, "a", "b", threshold=-0.5, matcher="cosine", model=hash_encoder)


def test_categorical_and_enum_types_survive_the_tools(hash_encoder):
    import polars as pl

    from pearl import deduplicate, fuzzy_join

    s = pd.Series(["Acme", "ACME", "Globex"], dtype="category", name="n")
    out = deduplicate(s, model=hash_encoder, threshold=0.3)
    assert isinstance(out.dtype, pd.CategoricalDtype) and set(out) <= set(s)
    enum = pl.Enum(["Acme", "ACME", "Globex"])
    ps = pl.Series("n", ["Acme", "ACME", "Globex"], dtype=enum)
    assert deduplicate(ps, model=hash_encoder).dtype == enum
    left = pl.DataFrame({"n": ps, "k": [1, 2, 3]})
    right = pl.DataFrame({"t": ["acme", "globex"]})
    assert (
        fuzzy_join(left, right, left_on="n", right_on="t", model=hash_encoder).schema["n"] == enum
    )
    lazy = fuzzy_join(left.lazy(), right, left_on="n", right_on="t", model=hash_encoder)
    assert lazy.collect_schema()["n"] == enum


def test_a_one_column_array_is_a_column():
    import numpy as np

    from pearl.tables.frames import column_cells

    assert column_cells(np.array([["a"], ["b"]])) == ["a", "b"]
    with pytest.raises(ValueError, match="1-dimensional"):
        column_cells(np.array([["a", "b"]]))


def test_deduplicate_takes_an_n_by_1_array(hash_encoder):
    import numpy as np

    from pearl import deduplicate

    out = deduplicate(np.array([["Acme"], ["ACME"], ["Globex"]]), model=hash_encoder)
    assert len(out) == 3
