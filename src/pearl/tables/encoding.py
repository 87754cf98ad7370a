"""How the table tools get their encoder and their strings: one loaded encoder and one
in-memory embedding cache per model, and columns turned into lists of strings with their
missing values marked."""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Iterable
from typing import Any

import numpy as np

from pearl._validation import InputTypeError
from pearl.encoders import (
    DEFAULT_MODEL,
    GLOVE_NAMES,
    STRING_DISTANCE_NAMES,
    TABLE_BATCH_SIZE,
    EmbeddingCache,
    load_encoder,
)
from pearl.encoders.base import is_embedding_model, normalize_rows
from pearl.encoders.cache import cache_key

__all__ = [
    "get_encoder",
    "load_embedding_model",
    "HeldModel",
    "get_cache",
    "clear_caches",
    "to_string_list",
    "is_missing",
    "expected_fingerprint",
    "distinct",
    "query_vectors",
    "reference_vectors",
    "QUERY_CACHE_MAX",
]

_LOCK = threading.Lock()
_ENCODERS: dict[tuple[str, str | None], Any] = {}
_CACHES: dict[str, EmbeddingCache] = {}


def load_embedding_model(model: Any = None, device: str | None = None):
    """An encoder object: ``model`` itself when it is one, else the name or folder loaded
    (a fresh copy; ``TypeError``/``ValueError`` for anything that makes no embeddings)."""
    if is_embedding_model(model):
        return model
    if model is not None and not isinstance(model, str | os.PathLike):
        raise InputTypeError(
            f"model must be a name, a folder or an encoder with .encode(), got "
            f"{type(model).__name__}"
        )
    name = os.fspath(model or DEFAULT_MODEL)
    encoder = load_encoder(name, device=device)
    if not is_embedding_model(encoder):
        raise ValueError(
            f"model {name!r} scores pairs of strings and makes no embeddings; "
            "the table tools need an embedding model"
        )
    return encoder


def get_encoder(model: Any = None, device: str | None = None):
    """An encoder object; names and folders are loaded once per process and shared."""
    if is_embedding_model(model):
        return model
    if model is not None and not isinstance(model, str | os.PathLike):
        load_embedding_model(model)  # raises the TypeError
    key = (os.fspath(model or DEFAULT_MODEL), device)
    with _LOCK:
        if key not in _ENCODERS:
            _ENCODERS[key] = load_embedding_model(key[0], device)
        return _ENCODERS[key]


class HeldModel:
    """For estimators with a ``model`` parameter (and optionally ``device`` and
    ``batch_size``): the model is loaded on first use and held by the estimator, with its
    own in-memory embedding cache, instead of in process-wide dicts. Pickling drops a model
    given by name or folder, which is loaded again on use (as skrub's ``TextEncoder``
    does); an encoder object passed as ``model`` is pickled with the estimator."""

    model: Any

    def _embeddings(self) -> EmbeddingCache:
        """This estimator's embedding cache over its model (rebuilt when the model,
        device or batch size parameters change)."""
        device, batch_size = (
            getattr(self, "device", None),
            getattr(self, "batch_size", TABLE_BATCH_SIZE),
        )
        key = (
            id(self.model) if is_embedding_model(self.model) else str(self.model),
            device,
            batch_size,
        )
        if (
            getattr(self, "_embedding_cache", None) is None
            or getattr(self, "_cache_key", key) != key
        ):
            if self.model is None:  # an estimator names its model (the default is one)
                raise InputTypeError(
                    "model must be a name, a folder or an encoder with .encode(), got NoneType"
                )
            self._cache_key = key
            self._embedding_cache = EmbeddingCache(
                load_embedding_model(self.model, device), persist=False, batch_size=batch_size
            )
        return self._embedding_cache

    def __getstate__(self):
        state = self.__dict__.copy()
        if not is_embedding_model(self.model):  # a name or folder: loaded again on use
            state.pop("_embedding_cache", None)
        state.pop("_cache_key", None)  # holds an id(), meaningless in another process
        return state


def expected_fingerprint(model: Any) -> str | None:
    """The fingerprint ``get_encoder(model)`` will have, computed without loading a model
    (so a stored fingerprint can be checked before anything is loaded); None where it can
    only be known by building the encoder (GloVe, string distance: nothing to load)."""
    from pathlib import Path

    from pearl.encoders.fingerprint import folder_fingerprint
    from pearl.encoders.resolve import resolve_model_path

    if model is not None and not isinstance(model, str | os.PathLike):
        return getattr(model, "fingerprint", None)
    name = os.fspath(model or DEFAULT_MODEL)
    if name.lower() in GLOVE_NAMES | STRING_DISTANCE_NAMES:
        return None
    target = resolve_model_path(model or DEFAULT_MODEL)
    return folder_fingerprint(target) if Path(target).is_absolute() else target


def clear_caches(models: bool = True) -> None:
    """Forget the in-memory embeddings (and, with ``models=True``, the loaded models) that
    the table functions keep per process (``fuzzy_join``, ``deduplicate``, ``cluster`` and
    ``EntityIndex`` share them so that a string is encoded once); the memory is freed when
    nothing else holds them.

    Parameters
    ----------
    models : bool, default=True
        Also forget the loaded models (they are loaded again on next use).
    """
    with _LOCK:
        _CACHES.clear()
        if models:
            _ENCODERS.clear()


def get_cache(encoder, batch_size: int = TABLE_BATCH_SIZE) -> EmbeddingCache:
    """The process-wide in-memory embedding cache of this encoder (keyed by its fingerprint;
    an encoder of another library, such as a ``SentenceTransformer``, has none and is keyed
    by the object itself, which the cache holds, so the key stays its own)."""
    key = cache_key(encoder)
    with _LOCK:
        cache = _CACHES.get(key)
        if cache is None:
            cache = _CACHES[key] = EmbeddingCache(encoder, persist=False, batch_size=batch_size)
        return cache


def is_missing(value: Any) -> bool:
    """None, NaN, pandas NA/NaT."""
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    try:
        import pandas as pd

        return bool(pd.isna(value)) if np.ndim(value) == 0 else False
    except (TypeError, ValueError):
        return False


def to_string_list(
    values, *, missing: str = "empty", non_string: str = "error", name: str = "values", labels=None
) -> tuple[list[str], np.ndarray]:
    """Turn a column into strings.

    Parameters
    ----------
    values : iterable
        A pandas/polars Series, a pyarrow array, a one-column table, a 1-d array or a list
        (see :func:`pearl.tables.frames.column_cells`).
    missing : {"empty", "error"}
        Missing values become ``""`` or raise ``ValueError``.
    non_string : {"error", "str"}
        Non-string cells raise ``ValueError`` naming the index, or go through ``str()``.

    labels : sequence, optional
        The rows' labels in the whole table (a partition's index), named in errors
        instead of the position in ``values``.

    Returns
    -------
    strings : list of str
    is_null : ndarray of bool
    """
    from pearl.tables.frames import column_cells

    values = column_cells(values, name)  # one-column tables, pyarrow nulls, polars...
    if set(map(type, values)) <= {str}:  # the usual column: every cell a str already
        return values, np.zeros(len(values), dtype=bool)
    out, nulls = [], []
    for i, v in enumerate(values):
        if isinstance(v, str):
            out.append(v)
            nulls.append(False)
        elif is_missing(v):
            if missing == "error":
                raise ValueError(
                    f"{_where(name, i, labels)} is missing; fill or drop missing values"
                )
            out.append("")
            nulls.append(True)
        elif non_string == "str" and not isinstance(v, (list, dict, set, tuple, np.ndarray)):
            out.append(_scalar_text(v))
            nulls.append(False)
        else:
            raise ValueError(
                f"{_where(name, i, labels)} is {type(v).__name__} ({v!r:.40}), expected str"
            )
    return out, np.array(nulls, dtype=bool)


def _scalar_text(v) -> str:
    """A non-string cell's text: ``str()``, but a whole float as an integer (``1.0`` ->
    ``"1"``): pandas stores a column of integers with a missing value as floats, whose
    ``"1.0"`` never equalled the other table's ``"1"``."""
    if isinstance(v, float | np.floating):
        f = float(v)
        if f.is_integer() and abs(f) < 2**53:
            return str(int(f))
    return str(v)


def _where(name: str, i: int, labels) -> str:
    return f"{name}[{i}]" if labels is None else f"{name} at row {labels[i]!r}"


#: Above this many queries, :func:`query_vectors` encodes them outside the process cache.
QUERY_CACHE_MAX = 100_000


def query_vectors(
    queries: list[str], encoder, batch_size: int, show_progress_bar: bool | None = None
) -> np.ndarray:
    """Unit embeddings of the queries: through the process cache, except above
    :data:`QUERY_CACHE_MAX` queries, whose vectors would be held twice (a million rows)
    and are normalised in place. The progress bar shows by default above 8,192 queries."""
    if show_progress_bar is None:
        show_progress_bar = len(queries) > 8192
    if len(queries) <= QUERY_CACHE_MAX:
        vecs = get_cache(encoder, batch_size)(queries, show_progress_bar=show_progress_bar)
        return normalize_rows(vecs)
    vecs = encoder.encode(queries, batch_size=batch_size, show_progress_bar=show_progress_bar)
    return normalize_rows(vecs, copy=False)  # the encoder's fresh array: no second copy


def distinct(texts: Iterable[str]) -> tuple[list[str], np.ndarray]:
    """The distinct strings of ``texts`` in order of first appearance, and each text's
    position among them (``uniq[inverse[i]] == texts[i]``)."""
    position: dict[str, int] = {}
    inverse = np.fromiter((position.setdefault(t, len(position)) for t in texts), dtype=np.int64)
    return list(position), inverse


def reference_vectors(chunk: list[str], encoder, batch_size: int) -> np.ndarray:
    """Unit embeddings of a reference chunk, each distinct string encoded once (a right
    table often repeats its keys). Not through the process cache: a streamed reference may
    be larger than memory."""
    uniq, inverse = distinct(chunk)
    vecs = encoder.encode(uniq, batch_size=batch_size, show_progress_bar=len(uniq) > 8192)
    vecs = normalize_rows(vecs)
    return vecs if len(uniq) == len(chunk) else vecs[inverse]
