"""The interface every pearl encoder shares."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable

import numpy as np

__all__ = ["Encoder", "cosine_matrix", "normalize_rows", "is_embedding_model"]


def normalize_rows(x: np.ndarray, copy: bool = True) -> np.ndarray:
    """L2-normalise rows as contiguous float32; rows of zeros stay zero. ``copy=False``
    divides in place when ``x`` is contiguous float32 already (a million 512-d rows are
    2 GB: a caller that owns them need not hold them twice)."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    norms = np.where(norms == 0, 1, norms)
    if copy:
        return x / norms
    x /= norms
    return x


def is_embedding_model(model: object) -> bool:
    """Whether ``model`` makes embeddings (has a callable ``encode``), as opposed to a
    pairwise scorer such as :class:`~pearl.evaluation.StringDistance` or a model name."""
    return not isinstance(model, str) and callable(getattr(model, "encode", None))


def cosine_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity between the rows of ``a`` and of ``b``.

    Rows of zeros (for instance a GloVe phrase with no known word) get a
    similarity of 0 with everything.

    Parameters
    ----------
    a : ndarray of shape (n, dim)
    b : ndarray of shape (m, dim)

    Returns
    -------
    ndarray of shape (n, m)
    """
    return normalize_rows(a) @ normalize_rows(b).T


class Encoder(ABC):
    """A phrase encoder: strings in, one float32 vector per string out.

    Subclasses implement :meth:`encode`, :attr:`embedding_dim` and
    :attr:`fingerprint`; :meth:`similarity` comes for free.

    Attributes
    ----------
    embedding_dim : int
        The width of the vectors.
    fingerprint : str
        Identifies the model's vectors (the embedding cache's key).
    """

    #: Human-readable name used in benchmark tables.
    name: str = "encoder"

    @property
    @abstractmethod
    def embedding_dim(self) -> int:
        """Size of one embedding."""

    @property
    @abstractmethod
    def fingerprint(self) -> str:
        """A string that changes whenever the encoder's outputs could change (cache key)."""

    @abstractmethod
    def encode(
        self,
        texts: str | Iterable[str],
        batch_size: int = 64,
        normalize: bool = False,
        show_progress_bar: bool | None = None,
    ) -> np.ndarray:
        """Embed phrases into a ``(n, embedding_dim)`` float32 array."""

    def similarity(self, a, b):
        """Cosine similarity between the phrases (or embeddings) of ``a`` and of ``b``.

        Parameters
        ----------
        a, b : str, iterable of str, or embeddings
            Phrases to compare, or embeddings already made (a NumPy array or a torch
            tensor of shape ``(n, dim)`` or ``(dim,)``, as sentence-transformers'
            ``similarity`` takes them).

        Returns
        -------
        float, ndarray of shape (len(a), len(b)), or tensor
            A float when both ``a`` and ``b`` are single strings; a torch tensor when
            either is a tensor (as sentence-transformers returns); else the full
            similarity matrix as a float32 array.
        """
        ea, ta = self._as_embeddings(a)
        eb, tb = self._as_embeddings(b)
        sim = cosine_matrix(ea, eb)
        if ta or tb:
            import torch

            return torch.from_numpy(sim)
        if isinstance(a, str) and isinstance(b, str):
            return float(sim[0, 0])
        return sim

    #: the similarity :meth:`similarity` computes (sentence-transformers' attribute)
    similarity_fn_name = "cosine"

    def similarity_pairwise(self, a, b):
        """Cosine similarity of each pair ``(a[i], b[i])`` (sentence-transformers'
        ``similarity_pairwise``).

        Parameters
        ----------
        a, b : iterable of str, or embeddings
            As many phrases or embeddings each (see :meth:`similarity`).

        Returns
        -------
        ndarray of shape (n,), or a tensor when either input is one
        """
        ea, ta = self._as_embeddings(a)
        eb, tb = self._as_embeddings(b)
        if ea.shape != eb.shape:
            raise ValueError(f"similarity_pairwise needs as many rows: {ea.shape} and {eb.shape}")
        sim = (normalize_rows(ea) * normalize_rows(eb)).sum(axis=1).astype(np.float32)
        if ta or tb:
            import torch

            return torch.from_numpy(sim)
        return sim

    def _as_embeddings(self, x) -> tuple[np.ndarray, bool]:
        """``(2-d float32 embeddings, whether x was a torch tensor)``: numbers are taken as
        embeddings, anything else is encoded as phrases."""
        if type(x).__module__.startswith("torch") and hasattr(x, "detach"):
            return np.atleast_2d(x.detach().cpu().float().numpy()), True
        if isinstance(x, np.ndarray) and x.dtype.kind in "fiu":
            if x.ndim not in (1, 2):
                raise ValueError(f"embeddings must be 1-d or 2-d, got shape {x.shape}")
            return np.atleast_2d(x.astype(np.float32, copy=False)), False
        return np.atleast_2d(self.encode(x, show_progress_bar=False)), False

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, dim={self.embedding_dim})"
