"""pearl-static served with NumPy, safetensors and tokenizers alone (no torch).

A static model's forward pass is two table lookups and two means: the mean of its token
vectors and the mean of its hashed character n-gram vectors, added, then L2-normalised when
the folder ends with ``Normalize``. :class:`StaticInference` computes exactly that from the
folder's files, so every table tool and ``pearl.PhraseEncoder`` serve a static folder
without importing torch or sentence-transformers (about 0.1 s instead of 6-8 s to the first
vector). The vectors equal the torch module's (:class:`pearl.models.static
.StaticPhraseEmbedding`) to float32 rounding (tested, max |diff| <= 1e-6).

The folder is checked by the same rules as any model folder
(:func:`pearl.models.folder_checks.check_model_folder`) and read as data: JSON, a
``tokenizer.json`` and safetensors weights; nothing in it can run code.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from pearl._io import read_json
from pearl._validation import clean_text
from pearl.models.char_ngrams import char_ngram_ids
from pearl.models.wordpiece import AsciiWordPiece, encoding_ids

__all__ = [
    "StaticInference",
    "module_files",
    "is_static_stack",
    "CONFIG",
    "WEIGHTS",
    "LEGACY_WEIGHTS",
    "STATIC_TYPE",
    "NORMALIZE_TYPES",
    "MAX_NGRAM",
    "MAX_CHARS",
    "check_ngram_settings",
]

CONFIG = "pearl_static_config.json"
#: The weights file. Not ``model.safetensors``: model2vec reads a folder holding that name,
#: ``tokenizer.json`` and ``config_sentence_transformers.json`` as its own and would take
#: the token table alone, silently dropping the character n-grams (other vectors). Under
#: this name model2vec refuses the folder; pearl and sentence-transformers (through
#: pearl's module) load it whole.
WEIGHTS = "pearl_static.safetensors"
LEGACY_WEIGHTS = "model.safetensors"
STATIC_TYPE = "pearl.models.static.StaticPhraseEmbedding"
#: the ``modules.json`` names of sentence-transformers' ``Normalize``
NORMALIZE_TYPES = frozenset(
    {
        "sentence_transformers.base.modules.normalize.Normalize",
        "sentence_transformers.models.Normalize",
        "sentence_transformers.sentence_transformer.modules.Normalize",
        "sentence_transformers.base.modules.Normalize",
    }
)
#: ``torch.nn.functional.normalize``'s floor on the norm, as the ``Normalize`` module uses
_NORM_EPS = 1e-12


#: the longest character n-gram and the most bytes of a text a folder may ask for
#: (fastText and LOVE use 3 to 6; pearl-static 3 to 5 of 64 bytes)
MAX_NGRAM, MAX_CHARS = 64, 4096


def check_ngram_settings(ngram_range: tuple[int, int], max_chars: int) -> None:
    """A ``ValueError`` unless the n-gram sizes are ordered within 1..:data:`MAX_NGRAM` and
    ``max_chars`` within 1..:data:`MAX_CHARS` (the torch module and the loader alike)."""
    lo, hi = ngram_range
    if not 1 <= lo <= hi <= MAX_NGRAM or not 1 <= max_chars <= MAX_CHARS:
        raise ValueError(
            f"ngram_range {tuple(ngram_range)} and max_chars {max_chars} must be ordered, "
            f"1 <= n <= {MAX_NGRAM} and 1 <= max_chars <= {MAX_CHARS}"
        )


def module_files(folder: Path) -> tuple[Path, Path, Path]:
    """A pearl-static module's ``tokenizer.json``, weights and configuration in ``folder``
    (the weights under their pre-0.2 name where only that exists); ``OSError`` naming the
    first one missing."""
    weights = folder / WEIGHTS
    if not weights.is_file() and (folder / LEGACY_WEIGHTS).is_file():
        weights = folder / LEGACY_WEIGHTS  # a folder of pearl before 0.2
    paths = (folder / "tokenizer.json", weights, folder / CONFIG)
    for p in paths:
        if not p.is_file():
            raise OSError(f"incomplete pearl-static module: {p} is missing")
    return paths


def is_static_stack(entries: list[dict]) -> bool:
    """Whether ``modules.json`` entries are pearl-static's stack: its module at the folder's
    root, optionally followed by ``Normalize`` (what :class:`StaticInference` serves)."""
    if not entries or entries[0].get("type") != STATIC_TYPE or entries[0].get("path", ""):
        return False
    rest = [e.get("type") for e in entries[1:]]
    return len(rest) <= 1 and all(t in NORMALIZE_TYPES for t in rest)


#: Below this many phrases the rows are gathered and summed with NumPy; above, a sparse
#: matrix product does it (gathering copies every n-gram's vector: 750 MB and 20x the time
#: for 8,192 phrases), at the cost of importing scipy.sparse once (0.4 s), which a query of
#: a few phrases should not pay.
SPARSE_FROM = 64


def _bag_mean(table: np.ndarray, ids: np.ndarray, offsets: np.ndarray, n: int) -> np.ndarray:
    """Mean of ``table`` rows per bag (``EmbeddingBag(mode="mean")``; empty bags are 0)."""
    if n == 0 or ids.size == 0:
        return np.zeros((n, table.shape[1]), dtype=np.float32)
    indptr = np.append(offsets, ids.size).astype(np.int64)
    counts = np.diff(indptr)
    if n < SPARSE_FROM:
        out = np.zeros((n, table.shape[1]), dtype=np.float32)
        full = counts > 0
        # reduceat over the starts of non-empty bags: each runs to the next non-empty start
        out[full] = np.add.reduceat(table[ids], offsets[full], axis=0)
        return out / np.maximum(counts, 1)[:, None].astype(np.float32)
    from scipy.sparse import csr_matrix

    weights = np.repeat(1.0 / np.maximum(counts, 1), counts).astype(np.float32)
    bags = csr_matrix((weights, ids, indptr), shape=(n, table.shape[0]))
    return np.asarray(bags @ table, dtype=np.float32)


class StaticInference:
    """A pearl-static folder, encoded with NumPy.

    Parameters
    ----------
    path : path-like
        The model folder (already checked by ``check_model_folder``).
    normalize : bool
        Whether the folder's stack ends with ``Normalize``.

    Raises
    ------
    OSError
        A file is missing or corrupt, or the tables do not fit the tokenizer (naming it).
    """

    #: a static model reads every token (sentence-transformers reports infinity too)
    max_seq_length = math.inf

    def __init__(self, path: str | os.PathLike, normalize: bool) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        folder = Path(path)
        tokenizer, weights, config_file = module_files(folder)
        try:
            config: Any = read_json(config_file, "pearl-static configuration")
            state = load_file(str(weights))
            self.tokenizer = Tokenizer.from_file(str(tokenizer))
            self.tokens = np.ascontiguousarray(state["embedding.weight"], dtype=np.float32)
            self.ngrams = np.ascontiguousarray(state["ngrams.weight"], dtype=np.float32)
            self.n_buckets = int(config["n_buckets"])
            self.ngram_range = (int(config["ngram_range"][0]), int(config["ngram_range"][1]))
            self.max_chars = int(config["max_chars"])
        except Exception as exc:  # a missing key, a bad value, safetensors/tokenizers errors
            raise OSError(f"corrupt pearl-static module in {folder}: {exc!r}") from exc
        self.tokenizer.no_padding()
        self._check_tables(folder)
        self._ascii = AsciiWordPiece.from_tokenizer(self.tokenizer)  # None: not BERT's
        self.normalize = bool(normalize)
        self.prompts = self._prompts(folder)

    def _check_tables(self, folder: Path) -> None:
        tokens, grams = self.tokens, self.ngrams
        if tokens.ndim != 2 or grams.ndim != 2 or tokens.shape[1] != grams.shape[1]:
            raise OSError(
                f"corrupt pearl-static module in {folder}: token table {tokens.shape} and "
                f"n-gram table {grams.shape} are not two tables of the same width"
            )
        if grams.shape[0] != self.n_buckets or self.n_buckets < 1:
            raise OSError(
                f"corrupt pearl-static module in {folder}: {CONFIG} says {self.n_buckets} "
                f"n-gram buckets, the table has {grams.shape[0]} rows"
            )
        # the largest id, not the count of entries: a vocabulary may skip ids
        vocab = self.tokenizer.get_vocab(with_added_tokens=True)
        ids = max(self.tokenizer.get_vocab_size(), max(vocab.values(), default=-1) + 1)
        if ids > tokens.shape[0]:
            raise OSError(
                f"{folder}: the tokenizer has ids up to {ids - 1:,} but the token table "
                f"{tokens.shape[0]:,} rows; ids past the table cannot be embedded"
            )
        try:
            check_ngram_settings(self.ngram_range, self.max_chars)
        except ValueError as exc:
            raise OSError(f"corrupt pearl-static module in {folder}: {exc}") from None
        for name, table in (("token", tokens), ("n-gram", grams)):
            if not np.isfinite(table).all():
                raise OSError(
                    f"corrupt pearl-static module in {folder}: its {name} table holds NaN or "
                    "infinite weights"
                )

    @staticmethod
    def _prompts(folder: Path) -> dict[str, str]:
        config = folder / "config_sentence_transformers.json"
        data = read_json(config, "model configuration") if config.is_file() else {}
        prompts = data.get("prompts") if isinstance(data, dict) else None
        if not isinstance(prompts, dict):
            return {}
        return {str(k): v for k, v in prompts.items() if isinstance(v, str)}

    @property
    def embedding_dim(self) -> int:
        """The width of the vectors."""
        return int(self.tokens.shape[1])

    def encode(self, texts: list[str]) -> np.ndarray:
        """float32 vectors of checked strings, shape ``(len(texts), embedding_dim)``.

        As the torch module: whitespace-only strings are ``""``, lone surrogates U+FFFD; an
        empty phrase (no token, no n-gram) is the zero vector.
        """
        texts = [clean_text(t) for t in texts]
        n = len(texts)
        flat, lengths = self._token_ids(texts)
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        emb = _bag_mean(self.tokens, flat, offsets[:n], n)
        ids, starts = char_ngram_ids(texts, self.n_buckets, self.ngram_range, self.max_chars)
        emb += _bag_mean(self.ngrams, ids, starts, n)
        if self.normalize:
            norms = np.linalg.norm(emb, axis=1, keepdims=True)
            emb /= np.maximum(norms, _NORM_EPS)
        return emb

    def _token_ids(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Every text's token ids, text after text, and each text's count (int64)."""
        if self._ascii is not None:  # BERT's WordPiece: printable ASCII without Encodings
            return self._ascii.flat_ids(texts)
        return encoding_ids(self.tokenizer, texts)
