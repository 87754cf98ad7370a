"""The interface every pearl encoder shares."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable

import numpy as np

__all__ = ["Encoder", "cosine_matrix", "normalize_rows", "is_embedding_model"]


def normalize_rows(x: np.ndarray) -> np.ndarray:
    """L2-normalise rows as contiguous float32; rows of zeros stay zero."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms == 0, 1, norms)


def is_embedding_model(model: object) -> bool:
    """Whether ``model`` makes embeddings (has a callable ``encode``), as opposed to a
    pairwise scorer such as :class:`~pearl.evaluation.StringDistance` or a model name."""
    return not isinstance(model, str) and callable(getattr(model, "encode", None))


def cosine_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity between the rows of ``a`` and of ``b``.

    Rows of zeros (for instance a GloVe phrase with no known word) get a
    similarity of 0 with everything.
    """
    return normalize_rows(a) @ normalize_rows(b).T


class Encoder(ABC):
    """A phrase encoder: strings in, one float32 vector per string out.

    Subclasses implement :meth:`encode`, :attr:`embedding_dim` and
    :attr:`fingerprint`; :meth:`similarity` comes for free.
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

    def similarity(self, a: str | Iterable[str], b: str | Iterable[str]) -> np.ndarray | float:
        """Cosine similarity between the phrases of ``a`` and of ``b``.

        Parameters
        ----------
        a, b : str or iterable of str
            Phrases to compare.

        Returns
        -------
        float or ndarray of shape (len(a), len(b))
            A float when both ``a`` and ``b`` are single strings, else the
            full similarity matrix.
        """
        ea = np.atleast_2d(self.encode(a, show_progress_bar=False))
        eb = np.atleast_2d(self.encode(b, show_progress_bar=False))
        sim = cosine_matrix(ea, eb)
        if isinstance(a, str) and isinstance(b, str):
            return float(sim[0, 0])
        return sim

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, dim={self.embedding_dim})"
