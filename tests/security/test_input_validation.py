"""Validation at the edge: any Python object or unicode string given to the public
functions gets a result or a clear ``TypeError``/``ValueError`` naming what is wrong, never
a raw error from inside a library; options are checked by type and range before any work."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pearl import EntityIndex, PhraseEncoder, deduplicate, fuzzy_join
from pearl.cli import main

SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

# any unicode text; text with lone surrogates (hypothesis leaves them out of st.text by
# default); and mixtures of the usual troublemakers: emoji, NUL, right-to-left marks...
TEXT = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(categories=["Cs"]), min_size=1, max_size=3),
    st.lists(
        st.sampled_from(
            [
                "\ud800",
                "\udfff",
                "🙂",
                "👩‍👩‍👧",
                "é",
                "e\u0301",
                "\u200f",
                "\x00",
                " ",
                "\t",
                "a",
                "東",
            ]
        ),
        max_size=12,
    ).map("".join),
)
SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.binary(max_size=8),
    TEXT,
    st.just(pd.NA),
    st.just(np.float64("nan")),
    st.builds(object),
)
ANYTHING = st.one_of(
    SCALAR, st.lists(SCALAR, max_size=4), st.dictionaries(TEXT, SCALAR, max_size=2)
)
CLEAR = (TypeError, ValueError)


@pytest.fixture(scope="module")
def encoder(tiny_pearl_dir):
    return PhraseEncoder(tiny_pearl_dir)


@SETTINGS
@given(texts=st.lists(TEXT, max_size=6))
def test_encode_any_unicode(encoder, texts):
    out = encoder.encode(texts)
    assert out.shape == (len(texts), encoder.embedding_dim) and np.isfinite(out).all()


@SETTINGS
@given(texts=st.one_of(ANYTHING, st.lists(ANYTHING, max_size=4)))
def test_encode_any_object(encoder, texts):
    try:
        out = encoder.encode(texts)
    except CLEAR:
        return
    assert np.isfinite(out).all()


@SETTINGS
@given(batch_size=SCALAR)
def test_encode_batch_size_is_checked(encoder, batch_size):
    ok = isinstance(batch_size, int) and not isinstance(batch_size, bool) and batch_size >= 1
    if ok:
        encoder.encode(["x"], batch_size=batch_size)
    else:
        with pytest.raises(CLEAR, match="batch_size"):
            encoder.encode(["x"], batch_size=batch_size)


@SETTINGS
@given(left=st.lists(SCALAR, max_size=5), right=st.lists(SCALAR, max_size=5))
def test_fuzzy_join_any_cells(hash_encoder, left, right):
    try:
        out = fuzzy_join(
            pd.DataFrame({"a": left}, dtype=object),
            pd.DataFrame({"b": right}, dtype=object),
            left_on="a",
            right_on="b",
            model=hash_encoder,
        )
    except CLEAR:
        return
    assert len(out) == len(left)


@SETTINGS
@given(
    options=st.fixed_dictionaries(
        {},
        optional={
            "threshold": SCALAR,
            "top_k": SCALAR,
            "how": SCALAR,
            "return_score": SCALAR,
            "suffix": SCALAR,
            "batch_size": SCALAR,
            "right_chunksize": SCALAR,
            "left_on": SCALAR,
            "right_on": SCALAR,
        },
    )
)
def test_fuzzy_join_any_options(hash_encoder, options):
    kwargs = {"left_on": "a", "right_on": "b", **options}
    try:
        fuzzy_join(
            pd.DataFrame({"a": ["x", "y"]}),
            pd.DataFrame({"b": ["x"]}),
            model=hash_encoder,
            **kwargs,
        )
    except (*CLEAR, KeyError):  # KeyError: a column that does not exist, named
        return


@SETTINGS
@given(values=st.lists(SCALAR, max_size=6), threshold=SCALAR)
def test_deduplicate_any_input(hash_encoder, values, threshold):
    try:
        out = deduplicate(values, threshold=threshold, model=hash_encoder)
    except CLEAR:
        return
    assert len(out) == len(values)
    # None is the default cut; otherwise a probability (the default matcher is combined)
    assert threshold is None or (isinstance(threshold, int | float) and 0 <= threshold <= 1)


@SETTINGS
@given(queries=st.one_of(ANYTHING, st.lists(TEXT, max_size=4)), k=SCALAR)
def test_index_search_any_input(hash_encoder, queries, k):
    idx = EntityIndex(model=hash_encoder).build(["Paris", "London", "Rome"])
    try:
        res = idx.search(queries, top_k=k)
    except CLEAR:
        return
    assert isinstance(k, int) and k >= 1
    assert res.ids.shape[1] == min(k, 3)  # capped at the index size


@pytest.mark.parametrize("bad", [8.5, "8", True, -1, math.nan])
def test_public_int_options_reject_wrong_types(hash_encoder, bad):
    with pytest.raises(CLEAR, match="top_k"):
        fuzzy_join(
            pd.DataFrame({"a": ["x"]}),
            pd.DataFrame({"b": ["x"]}),
            left_on="a",
            right_on="b",
            top_k=bad,
            model=hash_encoder,
        )
    with pytest.raises(CLEAR, match="batch_size"):
        EntityIndex(model=hash_encoder, batch_size=bad)


def test_config_batch_size_8_5_fails_before_any_work(training_files, tiny_model_dir, tmp_path):
    config = tmp_path / "run.toml"
    config.write_text(f'backbone = "{tiny_model_dir}"\nbatch_size = 8.5\n')
    out = tmp_path / "m"
    assert (
        main(
            [
                "train",
                "-c",
                str(config),
                "-o",
                str(out),
                "--corpus",
                training_files["corpus"],
                "--augmented",
                training_files["augmented"],
                "--negatives",
                training_files["negatives"],
            ]
        )
        == 2
    )
    assert not any(tmp_path.glob("m*"))
    assert main(["train", "--set", "batch_size=abc", "-o", str(out)]) == 2


@pytest.mark.parametrize(
    "argv, option",
    [
        (["dedup", "t.csv", "--column", "a", "-o", "o.csv", "--threshold", "5"], "--threshold"),
        (["dedup", "t.csv", "--column", "a", "-o", "o.csv", "--threshold", "nan"], "--threshold"),
        (
            ["join", "l", "r", "--left-on", "a", "--right-on", "b", "-o", "o", "--top-k", "0"],
            "--top-k",
        ),
        (["encode", "x", "-b", "8.5"], "--batch-size"),
        (["index", "search", "idx", "q", "-k", "-3"], "-k"),
        (["eval", "--probe-runs", "0"], "--probe-runs"),
    ],
)
def test_cli_options_are_checked_by_type_and_range(argv, option, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2 and option in capsys.readouterr().err


def test_an_empty_table_file_is_named_in_a_one_line_error(tmp_path, capsys):
    (tmp_path / "zero.csv").write_text("")
    (tmp_path / "b.csv").write_text("name\nacme\n")
    out = tmp_path / "out.csv"
    assert main(["dedup", str(tmp_path / "zero.csv"), "--column", "name", "-o", str(out)]) == 2
    assert "zero.csv is empty" in capsys.readouterr().err and not out.exists()
    join = ["join", str(tmp_path / "b.csv"), str(tmp_path / "zero.csv"), "--on", "name"]
    assert main([*join, "-o", str(out)]) == 2
    assert "zero.csv is empty" in capsys.readouterr().err and not out.exists()
