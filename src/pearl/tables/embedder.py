"""A scikit-learn transformer that embeds one string column."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import PCA
from sklearn.utils.validation import check_is_fitted

from pearl._validation import check_bool, check_choice, check_int
from pearl.encoders import DEFAULT_MODEL, TABLE_BATCH_SIZE
from pearl.encoders.base import normalize_rows
from pearl.tables.encoding import HeldModel, to_string_list

__all__ = ["PhraseEmbedder"]


def _column(X):
    """The single column of X (Series, 1-d array, list, or one-column DataFrame/2-d array)."""
    name = None
    if (
        not hasattr(X, "columns")
        and not isinstance(X, np.ndarray | list | tuple)
        and hasattr(X, "__array__")
        and not hasattr(X, "to_numpy")
    ):
        X = np.asarray(X)  # another array-like (e.g. one that only implements __array__)
    elif isinstance(X, list | tuple) and len(X) and isinstance(X[0], list | tuple):
        X = np.array([list(row) for row in X], dtype=object)  # rows of one cell each
    if hasattr(X, "columns"):  # pandas or polars DataFrame
        if len(X.columns) != 1:
            raise ValueError(f"PhraseEmbedder takes one column, got {len(X.columns)}")
        name = str(X.columns[0])
        X = X[X.columns[0]] if hasattr(X, "iloc") else X.to_series()
    elif isinstance(X, np.ndarray) and X.ndim == 2:
        if X.shape[1] != 1:
            raise ValueError(f"PhraseEmbedder takes one column, got {X.shape[1]}")
        X = X[:, 0]
    if name is None and getattr(X, "name", None) is not None:
        name = str(X.name)
    return X, name


class PhraseEmbedder(HeldModel, TransformerMixin, BaseEstimator):
    """Embed a column of strings with a phrase encoder (scikit-learn transformer).

    Parameters
    ----------
    model : str or encoder, default=DEFAULT_MODEL
        Model name or folder (see :class:`pearl.PhraseEncoder`) or an encoder object.
    n_components : int, optional
        Reduce the embeddings to this many dimensions with a PCA fitted in ``fit``.
        None keeps the encoder's full dimension.
    normalize : bool, default=True
        L2-normalise the embeddings before the PCA.
    handle_missing : {"empty", "error"}, default="empty"
        Missing values (None, NaN, pd.NA) are embedded as the empty string, as in
        skrub's ``TextEncoder``, or raise ``ValueError``.
    batch_size : int, default=256
        Encoding batch size.
    device : str, optional
        Torch device.

    Attributes
    ----------
    n_features_in_ : int
        Always 1.
    feature_names_in_ : ndarray of str
        The input column's name, when it had one.
    pca_ : PCA
        The fitted PCA when ``n_components`` is set.

    Notes
    -----
    Non-string cells (numbers, lists...) raise ``ValueError`` naming the row; convert
    them explicitly. The model is loaded in ``fit`` and held by the estimator, with an
    in-memory cache of the embeddings it computed (a ``transform`` of strings already
    seen encodes nothing). Pickling keeps the fitted PCA and drops the loaded model when
    ``model`` is a name or folder, which is then loaded again on first use (as skrub's
    ``TextEncoder`` does); an encoder object passed as ``model`` is pickled with it.

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.linear_model import LogisticRegression
    >>> pipe = make_pipeline(PhraseEmbedder(n_components=30), LogisticRegression())
    """

    def __init__(
        self,
        model: Any = DEFAULT_MODEL,
        *,
        n_components: int | None = None,
        normalize: bool = True,
        handle_missing: str = "empty",
        batch_size: int = TABLE_BATCH_SIZE,
        device: str | None = None,
    ) -> None:
        self.model = model
        self.n_components = n_components
        self.normalize = normalize
        self.handle_missing = handle_missing
        self.batch_size = batch_size
        self.device = device

    def _embed(self, X):
        col, name = _column(X)
        texts, _ = to_string_list(
            col, missing=self.handle_missing, non_string="error", name=name or "X"
        )
        emb = self._embeddings()(texts, show_progress_bar=len(texts) > 8192)
        emb = normalize_rows(emb) if self.normalize else np.asarray(emb, dtype=np.float32)
        return emb, name

    def fit(self, X: Any, y: Any = None) -> PhraseEmbedder:
        """Check the column, load the encoder, and fit the PCA if ``n_components`` is set."""
        self.fit_transform(X, y)
        return self

    def fit_transform(self, X: Any, y: Any = None, **fit_params: Any) -> np.ndarray:
        """Fit, then return the embeddings of X, shape (n_samples, n_components or dim)."""
        check_choice(self.handle_missing, "handle_missing", ("empty", "error"))
        check_int(self.batch_size, "batch_size", 1)
        check_bool(self.normalize, "normalize")
        if self.n_components is not None:
            check_int(self.n_components, "n_components", 1)
        emb, name = self._embed(X)
        if len(emb) == 0:
            raise ValueError("cannot fit PhraseEmbedder on an empty column")
        self.n_features_in_ = 1
        if name is not None:
            self.feature_names_in_ = np.array([name], dtype=object)
        self._prefix = name or "phrase"
        self.embedding_dim_ = emb.shape[1]
        if self.n_components is not None:
            k = self.n_components
            if not 1 <= k <= min(emb.shape):
                raise ValueError(
                    f"n_components={k} must be between 1 and min(n_samples, dim) = {min(emb.shape)}"
                )
            self.pca_ = PCA(n_components=k, random_state=0).fit(emb)
            emb = self.pca_.transform(emb).astype(np.float32)
        return emb

    def transform(self, X: Any) -> np.ndarray:
        """Embeddings of X, shape (n_samples, n_components or dim), float32."""
        check_is_fitted(self, "embedding_dim_")
        emb, name = self._embed(X)
        fitted = getattr(self, "feature_names_in_", None)
        if hasattr(X, "columns") and fitted is not None and name != fitted[0]:
            raise ValueError(
                f"X is a table of the column {name!r}, but PhraseEmbedder was fitted on "
                f"{fitted[0]!r} (as in scikit-learn, a table's column names must match "
                "those seen in fit; a Series or array of strings is taken whatever its name)"
            )
        if hasattr(self, "pca_") and len(emb):
            emb = self.pca_.transform(emb).astype(np.float32)
        elif hasattr(self, "pca_"):
            emb = np.zeros((0, self.pca_.n_components_), dtype=np.float32)
        return emb

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.one_d_array = True  # a Series or 1-d array of strings, or one column
        tags.input_tags.string = True
        tags.input_tags.allow_nan = True  # missing values embed as ""
        tags.transformer_tags.preserves_dtype = []  # strings in, float32 out
        return tags

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """``<column>_1 ... <column>_k`` (``phrase_1...`` for an unnamed column)."""
        check_is_fitted(self, "embedding_dim_")
        k = self.pca_.n_components_ if hasattr(self, "pca_") else self.embedding_dim_
        return np.array([f"{self._prefix}_{i}" for i in range(1, k + 1)], dtype=object)
