"""Hashed character n-grams of phrases, computed with NumPy alone.

pearl-static's second table (:mod:`pearl.models.static`) and its torch-free inference
(:mod:`pearl.models.static_inference`) both read phrases through :func:`char_ngram_ids`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["char_ngram_ids"]

_MULT = np.int64(0x9E3779B1)


def char_ngram_ids(
    texts: list[str], n_buckets: int, ngram_range: tuple[int, int] = (3, 5), max_chars: int = 64
) -> tuple[np.ndarray, np.ndarray]:
    """Hashed character n-grams of each lower-cased text, with ``<`` and ``>`` around it.

    Parameters
    ----------
    texts : list of str
    n_buckets : int
    ngram_range : (int, int), default=(3, 5)
    max_chars : int, default=64
        UTF-8 bytes read per text (longer texts are cut).

    Returns
    -------
    ids : ndarray of int64
        The bucket of every n-gram, text after text.
    offsets : ndarray of int64, shape (len(texts),)
        Where each text's n-grams start in ``ids`` (the ``EmbeddingBag`` convention).
    """
    lo, hi = ngram_range
    n = len(texts)
    raw = [("<" + t.lower() + ">").encode("utf-8", "replace")[:max_chars] for t in texts]
    lens = np.fromiter((len(b) for b in raw), dtype=np.int64, count=n)
    # no n-gram is longer than the longest (cut) text: sizes past it are not tried (an
    # ngram_range of (1, 100000) padded every text to 100,000 bytes, minutes a phrase)
    width = max(int(lens.max()) if n else 0, 1)
    hi = min(hi, width)
    buf = np.frombuffer(
        b"".join(b.ljust(width, b"\0") for b in raw) or b"\0" * width, dtype=np.uint8
    )
    chars = buf[: n * width].reshape(n, width).astype(np.int64) + 1
    grams, counts = [], np.zeros(n, dtype=np.int64)
    # rolling polynomial hash: the k-gram value extends the (k-1)-gram one by one character
    poly = np.zeros((n, width), dtype=np.int64)
    for k in range(1, hi + 1):
        m = width - k + 1
        poly = poly[:, :m] * 263 + chars[:, k - 1 : k - 1 + m]
        if k < lo:
            continue
        h = ((poly + k) * _MULT) % np.int64(n_buckets)
        valid = np.arange(m)[None, :] + k <= lens[:, None]
        grams.append((h, valid))
        counts += valid.sum(1)
    # text after text: concatenate each row's n-grams of every size
    ids = (
        np.concatenate([h for h, _ in grams], axis=1)[np.concatenate([v for _, v in grams], axis=1)]
        if n and grams
        else np.zeros(0, np.int64)
    )
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]) if n else np.zeros(0, np.int64)
    return ids.astype(np.int64), offsets.astype(np.int64)
