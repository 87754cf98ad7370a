"""scikit-learn's estimator checks on PhraseEmbedder, the way skrub's tests/test_sklearn.py
runs them on its string encoders: the checks' numeric data is turned into one column of
strings before it reaches the estimator."""

import numpy as np
import pytest
from conftest import HashEncoder
from sklearn.utils import estimator_checks
from sklearn.utils.estimator_checks import parametrize_with_checks

from pearl import PhraseEmbedder

_original = estimator_checks._enforce_estimator_tags_X


def _as_strings(estimator, X, X_test=None, **kw):
    """Numbers -> one column of strings (as skrub does for its string encoders)."""
    out = _original(estimator, X, X_test, **kw)
    X, X_test = out if X_test is not None else (out, None)

    def text(a):
        a = np.asarray(a)
        a = a[:, :1] if a.ndim == 2 else a[:, None]
        return np.array([[str(round(v * 100))] for v in a[:, 0].astype(float)], dtype=object)

    return (text(X), text(X_test)) if X_test is not None else text(X)


@pytest.fixture(autouse=True)
def _string_data(monkeypatch):
    monkeypatch.setattr(estimator_checks, "_enforce_estimator_tags_X", _as_strings)


class QuietHashEncoder(HashEncoder):
    """HashEncoder without its call counter: encoding leaves the model unchanged, which
    check_dont_overwrite_parameters verifies."""

    def encode(self, texts, **kw):
        out = super().encode(texts, **kw)
        self.calls = 0
        return out


#: Checks that hand PhraseEmbedder what it does not take, with the reason.
EXPECTED_FAILED = {
    "check_n_features_in_after_fitting": "one string column in; the check indexes a second",
    "check_fit2d_predict1d": "a 1-d array of strings is a valid column, not an error",
    "check_estimators_dtypes": "the check casts the strings back to numbers, which raise "
    "(non-string cells are an error by design)",
    "check_positive_only_tag_during_fit": "numbers, not strings, reach fit",
    "check_complex_data": "complex numbers raise, with pearl's message (X[i] is complex...)",
    "check_estimators_empty_data_messages": "raises ValueError with pearl's own message",
    "check_estimator_sparse_tag": "sparse matrices cannot hold strings",
    "check_estimator_sparse_array": "sparse matrices cannot hold strings",
    "check_estimator_sparse_matrix": "sparse matrices cannot hold strings",
}


@parametrize_with_checks(
    [PhraseEmbedder(model=QuietHashEncoder(dim=16))],
    expected_failed_checks=lambda est: EXPECTED_FAILED,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_phrase_embedder_is_skrub_s_high_cardinality_encoder(hash_encoder):
    # docs/models.md names this as the way to use pearl's models inside skrub
    import pandas as pd
    import skrub

    from pearl import PhraseEmbedder

    df = pd.DataFrame({"name": ["New York Times", "NY Times", "Le Monde", "Guardian"] * 3})
    df["x"] = range(12)
    tv = skrub.TableVectorizer(
        high_cardinality=PhraseEmbedder(model=hash_encoder, n_components=2),
        cardinality_threshold=2,
    )
    out = tv.fit_transform(df)
    assert list(out.columns) == ["name_1", "name_2", "x"] and len(out) == 12
