import numpy as np
import pandas as pd
import polars as pl
import pytest
from conftest import HashEncoder
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from pearl import PhraseEmbedder


def test_pipeline_and_column_transformer(hash_encoder):
    df = pd.DataFrame(
        {"city": ["paris", "pariss", "london", "londn", "rome", "roma"] * 5, "n": range(30)}
    )
    y = np.array([0, 0, 1, 1, 2, 2] * 5)
    ct = ColumnTransformer(
        [("emb", PhraseEmbedder(model=hash_encoder, n_components=4), "city")],
        remainder="passthrough",
    )
    pipe = make_pipeline(ct, LogisticRegression(max_iter=500)).fit(df, y)
    assert pipe.score(df, y) == 1.0
    names = ct.get_feature_names_out()
    assert list(names[:4]) == ["emb__city_1", "emb__city_2", "emb__city_3", "emb__city_4"]
    assert names[-1] == "remainder__n"


def test_shapes_names_and_pandas_output(hash_encoder):
    s = pd.Series(["a b", "c d", "e f"], name="title")
    emb = PhraseEmbedder(model=hash_encoder).fit(s)
    out = emb.transform(s)
    assert out.shape == (3, 256) and out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, rtol=1e-5)
    assert emb.get_feature_names_out()[0] == "title_1"
    emb.set_output(transform="pandas")
    frame = emb.transform(s)
    assert list(frame.columns[:2]) == ["title_1", "title_2"]


def test_polars_and_arrays(hash_encoder):
    a = PhraseEmbedder(model=hash_encoder).fit_transform(pl.Series("x", ["u", "v"]))
    b = PhraseEmbedder(model=hash_encoder).fit_transform(np.array(["u", "v"], dtype=object))
    c = PhraseEmbedder(model=hash_encoder).fit_transform(pd.DataFrame({"x": ["u", "v"]}))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)


def test_missing_values_are_empty_strings_or_errors(hash_encoder):
    s = pd.Series(["a", None, np.nan, pd.NA, ""], dtype=object)
    out = PhraseEmbedder(model=hash_encoder).fit_transform(s)
    for i in (1, 2, 3):
        np.testing.assert_array_equal(out[i], out[4])
    with pytest.raises(ValueError, match=r"\[1\] is missing"):
        PhraseEmbedder(model=hash_encoder, handle_missing="error").fit(s)


def test_non_strings_and_bad_shapes_raise(hash_encoder):
    with pytest.raises(ValueError, match=r"\[1\] is int"):
        PhraseEmbedder(model=hash_encoder).fit(pd.Series(["a", 3]))
    with pytest.raises(ValueError, match="one column"):
        PhraseEmbedder(model=hash_encoder).fit(pd.DataFrame({"a": ["x"], "b": ["y"]}))
    with pytest.raises(ValueError, match="empty column"):
        PhraseEmbedder(model=hash_encoder).fit(pd.Series([], dtype=object))
    with pytest.raises(ValueError, match="n_components=5"):
        PhraseEmbedder(model=hash_encoder, n_components=5).fit(pd.Series(["a", "b"]))


def test_repeated_fit_and_transform_do_not_reencode():
    enc = HashEncoder(dim=97)
    s = pd.Series(["alpha", "beta", "alpha", "gamma"])
    est = PhraseEmbedder(model=enc)
    est.fit(s)
    assert enc.calls == 3
    est.transform(s)
    est.fit(s)
    assert enc.calls == 3
    other = HashEncoder(dim=97)
    est.set_params(model=other).fit(s)  # a new model: encoded again, by it
    assert other.calls == 3 and np.allclose(est.transform(s), clone(est).fit_transform(s))


def test_the_model_is_held_by_the_estimator_and_pickles(tiny_model_dir):
    import pickle

    from pearl.tables import encoding as _common

    _common.clear_caches()
    est = PhraseEmbedder(model=str(tiny_model_dir), n_components=2)
    out = est.fit_transform(["The New York Times", "NYTimes", "Le Monde"])
    assert not _common._ENCODERS  # no module-level copy of the model
    blob = pickle.dumps(est)
    assert len(blob) < 100_000  # the model is not in the pickle, only its name and the PCA
    again = pickle.loads(blob)
    np.testing.assert_allclose(
        again.transform(["The New York Times", "NYTimes", "Le Monde"]), out, atol=1e-5
    )
    with_object = pickle.loads(pickle.dumps(PhraseEmbedder(model=HashEncoder()).fit(["a b"])))
    assert with_object.transform(["a b"]).shape == (1, 256)


def test_transform_before_fit():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        PhraseEmbedder().transform(["a"])


def test_real_model_by_name(tiny_model_dir):
    out = PhraseEmbedder(model=str(tiny_model_dir), n_components=2).fit_transform(
        ["The New York Times", "NYTimes", "Le Monde"]
    )
    assert out.shape == (3, 2)


def test_all_null_column_embeds_as_empty_strings(hash_encoder):
    out = PhraseEmbedder(model=hash_encoder).fit_transform(pd.Series([None, None]))
    np.testing.assert_array_equal(out[0], out[1])
    assert np.isfinite(out).all()


def test_a_table_of_another_column_is_refused_at_transform(hash_encoder):
    # scikit-learn's rule for tables: the column seen in fit, or an error (its embeddings
    # came out under the fitted column's feature names); a Series is taken by any name
    emb = PhraseEmbedder(model=hash_encoder).fit(pd.DataFrame({"name": ["a b", "c d"]}))
    assert emb.transform(pd.DataFrame({"name": ["e"]})).shape == (1, 256)
    with pytest.raises(ValueError, match="'other'.*fitted on 'name'"):
        emb.transform(pd.DataFrame({"other": ["e"]}))
    with pytest.raises(ValueError, match="'other'.*fitted on 'name'"):
        emb.transform(pl.DataFrame({"other": ["e"]}))
    assert emb.transform(pd.Series(["e"], name="other")).shape == (1, 256)
    assert emb.transform(["e"]).shape == (1, 256)
