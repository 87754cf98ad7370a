"""The surface signal of the combined matcher: character n-grams and words, TF-IDF.

:class:`NgramVectorizer` is skrub's default string encoding, hashed character 2-4-grams
within word boundaries, TF-IDF weighted, with whole words beside them (at half weight), so
that the distinctive words and numbers two names share count too. The n-grams of a whole
column are hashed at once in NumPy (:func:`hashed_char_ngrams`, :func:`hashed_words`).
"""

from __future__ import annotations

import re

import numpy as np

from pearl._validation import nfc

__all__ = [
    "NgramVectorizer",
    "hashed_char_ngrams",
    "hashed_words",
    "positions_in",
    "distinct_columns",
]


class NgramVectorizer:
    """Surface form as a sparse vector: character 2-4-grams and whole words, TF-IDF.

    Two hashed blocks of ``n_features`` columns each: character n-grams within word
    boundaries (``char_wb``, skrub's default string encoding) and lower-cased words (runs
    of letters and digits: "2011", "Grammy", "(wrestler)" gives "wrestler"). Each block's
    TF-IDF row is scaled to unit length, the word block by ``word_weight``, and the row is
    L2-normalised again, so the cosine of two rows mixes both: n-grams see typos and
    shared letters, words see which distinctive words and numbers two names share
    ("2009 Tour" and "2011 Tour" share most n-grams but not the year). ``word_weight=0``
    gives skrub's n-gram encoding alone.

    Parameters
    ----------
    ngram_range : tuple of int, default=(2, 4)
    n_features : int, default=2**20
        Columns per block.
    word_weight : float, default=0.5
        Weight of the unit word block against the unit n-gram block; chosen on held-out
        training-pipeline queries (``benchmarks/data/matcher_weights.py``).
    """

    def __init__(
        self,
        ngram_range: tuple[int, int] = (2, 4),
        n_features: int = 2**20,
        word_weight: float = 0.5,
    ):
        self.ngram_range = ngram_range
        self.n_features = n_features
        self.word_weight = word_weight

    def fit(self, texts: list[str]) -> NgramVectorizer:
        """Learn the inverse document frequencies from ``texts`` (the reference names)."""
        return self.fit_counts(self.counts(list(texts) or [""]))

    def fit_counts(self, counts, repeats: np.ndarray | None = None) -> NgramVectorizer:
        """Learn the inverse document frequencies from hashed counts (:meth:`counts`) of
        the texts, each row standing for ``repeats[i]`` texts when given (the distinct
        values of a column and how often each occurs in it: the same IDF as :meth:`fit`
        on the column, without counting a repeated value again). Rows that stand for no
        text add nothing; with no text at all, the IDF of one empty text."""
        if repeats is None:
            n_docs = counts.shape[0]
            weights = None
        else:
            repeats = np.asarray(repeats, dtype=np.int64)
            if repeats.shape != (counts.shape[0],) or (repeats < 0).any():
                raise ValueError("repeats must be one non-negative count per row of counts")
            n_docs = int(repeats.sum())
            weights = np.repeat(repeats, np.diff(counts.indptr)).astype(np.float64)
        if n_docs == 0:  # fit([]) is fit([""]): one text without n-grams
            return self._set_idf(counts.shape[1], np.zeros(0, np.int64), np.zeros(0), 1)
        if counts.nnz > counts.shape[1] // 4:
            df = np.bincount(counts.indices, weights, minlength=counts.shape[1])
            return self.fit_frequencies(df.astype(np.int64), n_docs)
        # few n-grams (a short column): count the columns seen, not all 2 million
        seen, at = np.unique(counts.indices, return_inverse=True)
        df = np.bincount(at, weights, minlength=len(seen)).astype(np.int64)
        return self._set_idf(counts.shape[1], seen[df > 0], df[df > 0], n_docs)

    def counts(self, texts: list[str]):
        """Hashed n-gram and word counts (before IDF), sparse CSR of ``2 * n_features``
        columns (n-grams first), canonical (sorted columns, no repeats).

        Both kinds of features lie within whitespace-separated words, so a text's counts
        are the sum of its words': each distinct word is counted once
        (:meth:`_word_counts`) and the texts' rows are their words' rows summed, one
        sparse product (200,000 company names: 0.46 s where each text counted alone took
        1.3 s; the same matrix)."""
        import pandas as pd
        from scipy.sparse import csr_matrix

        lowered = [nfc(t).lower() for t in texts]  # "é" written in either form: one n-gram
        if len(lowered) < WORD_SUM_MIN:  # the product's set-up costs more than it saves
            return self._word_counts(lowered)
        # the texts' words in one split, between separator tokens
        tokens = np.array(_SEPARATOR.join(lowered).split(), dtype=object)
        between = tokens == _SEPARATOR.strip()
        if int(between.sum()) != len(lowered) - 1:  # no text, or one holding the separator
            return self._word_counts(lowered)
        ids, vocab = pd.factorize(tokens[~between])
        if len(vocab) > 0.8 * len(ids):  # few repeated words: count the texts directly
            return self._word_counts(lowered)
        per_text = np.diff(np.r_[-1, np.flatnonzero(between), len(tokens)]) - 1
        words = csr_matrix(
            (np.ones(len(ids)), ids, np.r_[0, np.cumsum(per_text)]),
            shape=(len(lowered), len(vocab)),
        )
        out = (words @ self._word_counts(list(vocab))).tocsr()
        out.sort_indices()
        return out

    def _word_counts(self, lowered: list[str]):
        """:meth:`counts` of lower-cased NFC texts, each n-gram of every text hashed."""
        from scipy.sparse import csr_matrix

        n, width = len(lowered), self.n_features
        rows, cols = [], []
        row, col = hashed_char_ngrams(lowered, self.ngram_range, width)
        rows.append(row)
        cols.append(col)
        if self.word_weight > 0:
            row, col = hashed_words(lowered, width)
            rows.append(row)
            cols.append(col + width)
        # one sort of (row, column) keys: an n-gram seen twice in a row counts 2, and the
        # rows come out in canonical order (half the time of scipy's conversion and sum)
        key = np.concatenate(rows) * (2 * width) + np.concatenate(cols)
        key.sort()
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else key
        data = np.diff(np.r_[starts, len(key)]).astype(np.float64)
        key = key[starts]
        indptr = np.r_[0, np.cumsum(np.bincount(key // (2 * width), minlength=n))]
        return csr_matrix((data, (key % (2 * width)).astype(np.int32), indptr), (n, 2 * width))

    @staticmethod
    def document_frequencies(counts) -> np.ndarray:
        """How many rows of ``counts`` hold each n-gram (sums over partitions add up)."""
        return np.bincount(counts.indices, minlength=counts.shape[1]).astype(np.int64, copy=False)

    def fit_frequencies(self, df: np.ndarray, n_docs: int) -> NgramVectorizer:
        """The IDF of ``n_docs`` texts with document frequencies ``df`` (the same as
        :meth:`fit` on those texts): scikit-learn's smoothed IDF, ``ln((1 + n) / (1 + df))
        + 1`` (see :attr:`idf_`), kept for the columns seen; every other column has
        ``ln(1 + n) + 1``."""
        df = np.asarray(df)
        seen = np.flatnonzero(df)  # a few thousand of the 2 million columns
        return self._set_idf(len(df), seen, df[seen], n_docs)

    def _set_idf(self, n_columns: int, seen: np.ndarray, df: np.ndarray, n_docs: int):
        self.n_columns_, self.seen_ = n_columns, seen
        self.seen_idf_ = np.log((1 + n_docs) / (1 + df.astype(np.float64))) + 1
        self.unseen_idf_ = float(np.log(1 + n_docs) + 1)
        return self

    @property
    def idf_(self) -> np.ndarray:
        """The IDF of every column, shape ``(2 * n_features,)``."""
        idf = np.full(self.n_columns_, self.unseen_idf_)
        idf[self.seen_] = self.seen_idf_
        return idf

    def _idf_at(self, columns: np.ndarray) -> np.ndarray:
        at, found = positions_in(self.seen_, columns, self.n_columns_)
        if not len(self.seen_):
            return np.full(len(columns), self.unseen_idf_)
        return np.where(found, self.seen_idf_[at], self.unseen_idf_)

    def weigh(self, counts):
        """Unit rows of hashed counts (see :meth:`counts`): TF-IDF, each block scaled to
        unit length (the word block to ``word_weight``), the row normalised."""
        from scipy.sparse import csr_matrix

        x = counts.tocsr()  # new arrays below: the caller's counts stay counts
        n = x.shape[0]
        data = x.data.astype(np.float64) * self._idf_at(x.indices)
        rows = np.repeat(np.arange(n), np.diff(x.indptr))
        block = rows * 2 + (x.indices >= self.n_features)  # (row, n-grams 0 / words 1)
        # a block's norm, 1 for a row without entries in it (nothing to scale there)
        norms = np.sqrt(np.bincount(block, data**2, minlength=2 * n)).reshape(n, 2)
        norms = np.where(norms > 0, norms, 1.0)
        data = data * (np.array([1.0, self.word_weight]) / norms).ravel()[block]
        # each row to unit length (scikit-learn's normalize, without its 1 s import)
        total = np.sqrt(np.bincount(rows, data**2, minlength=n))
        data = data / np.where(total > 0, total, 1.0)[rows]
        return csr_matrix((data.astype(np.float32), x.indices, x.indptr), shape=x.shape)

    def transform(self, texts: list[str]):
        """Sparse CSR matrix of unit rows (all-zero for an empty string)."""
        return self.weigh(self.counts(texts))

    def fit_transform(self, texts: list[str]):
        """``fit(texts).transform(texts)``, the n-grams counted once."""
        texts = list(texts)
        counts = self.counts(texts or [""])
        self.fit_counts(counts)
        return self.weigh(counts[: len(texts)])


def _dense(n_values: int, n_columns: int) -> bool:
    """Whether ``n_values`` lookups among ``n_columns`` possible columns go faster through a
    dense table of the columns (filled once, then gathered) than through sorted searches."""
    return n_values >= n_columns // 64


def distinct_columns(columns: np.ndarray, n_columns: int | None = None) -> np.ndarray:
    """The sorted distinct ``columns``; with ``n_columns`` (their range) and many of them,
    marked in a dense table instead of sorted (the same array)."""
    if n_columns is None or not _dense(len(columns), n_columns):
        return np.unique(columns)
    mask = np.zeros(n_columns, dtype=bool)
    mask[columns] = True
    return np.flatnonzero(mask)


def positions_in(
    sorted_values: np.ndarray, values: np.ndarray, n_columns: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Where each of ``values`` sits in the sorted ``sorted_values`` (0 where it is not
    there), and whether it is there. With ``n_columns`` (the range of both) and many
    values, a dense table of positions is gathered instead of searched (the same answer)."""
    if not len(sorted_values):
        return np.zeros(len(values), dtype=np.int64), np.zeros(len(values), dtype=bool)
    if n_columns is not None and _dense(len(values), n_columns):
        table = np.full(n_columns, -1, dtype=np.int64)
        table[sorted_values] = np.arange(len(sorted_values))
        at = table[values]
    else:
        at = np.minimum(np.searchsorted(sorted_values, values), len(sorted_values) - 1)
        at[sorted_values[at] != values] = -1
    found = at >= 0
    at[~found] = 0
    return at, found


_MIX = np.uint64(0x9E3779B97F4A7C15)
_BASE = np.uint64(1_000_003)
_WORD = re.compile(r"(?u)\b\w+\b")
#: The fewest texts :meth:`NgramVectorizer.counts` counts through their distinct words.
WORD_SUM_MIN = 2_000
_SEPARATOR = " \x01 "  # a token between texts (not whitespace; NUL is lost by NumPy)


def _buckets(hashes: np.ndarray, n_buckets: int) -> np.ndarray:
    """Column of each 64-bit hash (a multiplicative mix, its high half modulo the width)."""
    with np.errstate(over="ignore"):
        high = (hashes * _MIX) >> np.uint64(32)
    if n_buckets > 0 and n_buckets & (n_buckets - 1) == 0:  # a power of two: 6x faster
        return (high & np.uint64(n_buckets - 1)).astype(np.int64)
    return (high % np.uint64(n_buckets)).astype(np.int64)


def hashed_char_ngrams(
    texts: list[str], ngram_range: tuple[int, int], n_buckets: int
) -> tuple[np.ndarray, np.ndarray]:
    """Row and column of every character n-gram within word boundaries, as
    scikit-learn's ``analyzer="char_wb"`` makes them (each whitespace-separated word
    padded with a space on each side; a padded word shorter than an n-gram length counts
    once, whole), hashed to ``n_buckets`` columns. The n-grams of all texts are hashed at
    once by a rolling polynomial over code points (no Python loop over n-grams), an order
    of magnitude faster than scikit-learn's ``HashingVectorizer``; the columns differ from
    its murmur hashes, the n-grams they count do not."""
    lo, hi = ngram_range
    split = [t.split() for t in texts]
    words = [w for ws in split for w in ws]
    per_text = np.fromiter((len(ws) for ws in split), dtype=np.int64, count=len(texts))
    if not words:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    padded = " " + "  ".join(words) + " "
    codes = np.frombuffer(padded.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    codes = codes.astype(np.uint64) + np.uint64(1)
    lengths = np.fromiter((len(w) + 2 for w in words), dtype=np.int64, count=len(words))
    starts = np.cumsum(lengths) - lengths
    word_of = np.repeat(np.arange(len(words)), lengths)
    text_of_word = np.repeat(np.arange(len(texts)), per_text)
    rows, cols = [], []
    poly = np.zeros(len(codes), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k in range(1, hi + 1):
            m = len(codes) - k + 1
            if m <= 0:  # no text this long (a range beyond the padded words)
                break
            poly = poly[:m] * _BASE + codes[k - 1 : k - 1 + m]
            if k >= lo:
                at = np.flatnonzero(word_of[:m] == word_of[k - 1 :])
            else:  # a padded word shorter than the smallest n-gram counts once, whole
                at = starts[lengths == k]
            rows.append(text_of_word[word_of[at]])
            cols.append(_buckets(poly[at], n_buckets))
    return np.concatenate(rows), np.concatenate(cols)


def hashed_words(texts: list[str], n_buckets: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column of every word (runs of letters and digits, scikit-learn's
    ``token_pattern=r"(?u)\\b\\w+\\b"``), hashed to ``n_buckets`` columns (CRC-32 of
    each distinct word, mixed)."""
    import zlib

    table: dict[str, int] = {}
    tokens = [_WORD.findall(t) for t in texts]
    ids = np.fromiter(
        (table.setdefault(w, len(table)) for ws in tokens for w in ws), dtype=np.int64
    )
    rows = np.repeat(np.arange(len(texts)), [len(ws) for ws in tokens])
    crc = np.fromiter(
        (zlib.crc32(w.encode("utf-8", "surrogatepass")) for w in table),
        dtype=np.uint64,
        count=len(table),
    )
    return rows.astype(np.int64), _buckets(crc, n_buckets)[ids]
