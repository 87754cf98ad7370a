"""The paper's "String Distance" baseline: Jaccard similarity of character n-grams.

It produces no embeddings, so it only takes part in tasks that compare pairs
of strings (Turney, BIRD, YAGO, UMLS, AutoFJ).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import scipy.sparse as sp

from pearl._validation import check_texts

__all__ = ["StringDistance", "load_model"]


class StringDistance:
    """Jaccard similarity of the sets of character n-grams of two strings.

    Parameters
    ----------
    n : int, default=3
        n-gram length. Strings are lower-cased and padded with one space on
        each side, so short words still have n-grams.

    Notes
    -----
    Two empty strings have similarity 0 (no n-grams in common).
    """

    name = "String Distance"
    fingerprint = "string-distance"

    def __init__(self, n: int = 3) -> None:
        if n < 1:
            raise ValueError("n must be >= 1")
        self.n = n

    def ngrams(self, text: str) -> set[str]:
        """The set of character n-grams of ``text``."""
        s = f" {text.lower()} "
        if len(s) < self.n:
            return {s}
        return {s[i : i + self.n] for i in range(len(s) - self.n + 1)}

    def _matrix(self, texts: list[str], vocab: dict[str, int], grow: bool) -> sp.csr_matrix:
        rows, cols = [], []
        for r, t in enumerate(texts):
            for g in self.ngrams(t) if t else ():
                j = vocab.get(g)
                if j is None:
                    if not grow:
                        continue
                    j = vocab[g] = len(vocab)
                rows.append(r)
                cols.append(j)
        data = np.ones(len(rows), dtype=np.float32)
        return sp.csr_matrix((data, (rows, cols)), shape=(len(texts), max(len(vocab), 1)))

    def _sizes(self, texts: list[str]) -> np.ndarray:
        return np.array([len(self.ngrams(t)) if t else 0 for t in texts], dtype=np.float32)

    def pair_scores(self, a: Iterable[str], b: Iterable[str]) -> np.ndarray:
        """Similarity of ``a[i]`` with ``b[i]`` for each i."""
        a, b = check_texts(a, "a"), check_texts(b, "b")
        if len(a) != len(b):
            raise ValueError("a and b must have the same length")
        out = np.zeros(len(a), dtype=np.float32)
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            gx, gy = (self.ngrams(x) if x else set()), (self.ngrams(y) if y else set())
            union = len(gx | gy)
            out[i] = len(gx & gy) / union if union else 0.0
        return out

    def similarity(
        self, a: str | Iterable[str], b: str | Iterable[str], chunk_size: int | None = None
    ) -> np.ndarray | float:
        """Full similarity matrix between ``a`` and ``b`` (a float for two strings)."""
        la, lb = check_texts(a, "a"), check_texts(b, "b")
        sim = self._blocks(la, lb, chunk_size, keep="all")
        if isinstance(a, str) and isinstance(b, str):
            return float(sim[0, 0])
        return sim

    def top1(
        self, queries: Iterable[str], corpus: Iterable[str], chunk_size: int | None = None
    ) -> Any:
        """Index and score of each query's most similar corpus string.

        Returns
        -------
        idx : ndarray of int64, shape (n_queries,)
        score : ndarray of float32, shape (n_queries,)
        """
        q, c = check_texts(queries, "queries"), check_texts(corpus, "corpus")
        return self._blocks(q, c, chunk_size, keep="top1")

    def _blocks(self, q: list[str], c: list[str], chunk_size: int | None, keep: str) -> Any:
        if chunk_size is None:  # keep one dense block near 20M cells
            chunk_size = max(1, 20_000_000 // max(len(c), 1))
        vocab: dict[str, int] = {}
        cm = self._matrix(c, vocab, grow=True)
        csize = self._sizes(c)
        cmt = cm.T.tocsr()
        parts_i, parts_s, full = [], [], []
        for start in range(0, len(q), chunk_size):
            block = q[start : start + chunk_size]
            qm = self._matrix(block, vocab, grow=False)
            qsize = self._sizes(block)
            inter = (qm @ cmt).toarray()
            union = qsize[:, None] + csize[None, :] - inter
            sim = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
            if keep == "all":
                full.append(sim.astype(np.float32))
            else:
                idx = sim.argmax(axis=1)
                parts_i.append(idx)
                parts_s.append(sim[np.arange(len(block)), idx].astype(np.float32))
        if keep == "all":
            return np.vstack(full) if full else np.zeros((0, len(c)), dtype=np.float32)
        if not parts_i:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        return np.concatenate(parts_i).astype(np.int64), np.concatenate(parts_s)


def load_model(name):
    """A benchmark model from a name: the String Distance baseline for
    ``"string-distance"``, otherwise :func:`pearl.encoders.load_encoder`'s encoder,
    computing in float32, the reference precision of every record, whatever the CPU (an
    object is returned as it is)."""
    import os

    from pearl.encoders import STRING_DISTANCE_NAMES, load_encoder

    if isinstance(name, str | os.PathLike) and os.fspath(name).lower() in STRING_DISTANCE_NAMES:
        return StringDistance()
    if not isinstance(name, str | os.PathLike):
        return name
    encoder = load_encoder(name)
    if hasattr(encoder, "compute_dtype"):
        encoder.compute_dtype = "float32"
    return encoder
