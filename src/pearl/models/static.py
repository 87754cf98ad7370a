"""pearl-static's module: static token vectors plus hashed character n-gram vectors.

:class:`StaticPhraseEmbedding` extends sentence-transformers' ``StaticEmbedding`` (the mean
of per-token vectors, as model2vec distils them from a transformer) with a second table of
vectors for hashed character 3-5-grams of the lower-cased phrase, averaged the same way and
added. The token table gives meaning; the n-gram table gives robustness to typos and to words
the tokenizer splits badly. Both are trained with PEARL's objective
(:mod:`pearl.training.static`). The n-gram ids are computed with vectorised rolling hashes
over a padded byte array, so encoding stays at tens of thousands of phrases per second on a
CPU.

A folder holding it loads with ``pearl.PhraseEncoder(path)`` (the class is allow-listed) or
with ``SentenceTransformer(path, trust_remote_code=True)`` while pearl is installed; its
``embedding.weight`` is the plain ``StaticEmbedding`` token table.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from sentence_transformers.sentence_transformer.modules import StaticEmbedding
from tokenizers import Tokenizer
from torch import nn

from pearl._validation import clean_text
from pearl.models.char_ngrams import char_ngram_ids
from pearl.models.static_inference import CONFIG, WEIGHTS, check_ngram_settings, module_files

__all__ = ["StaticPhraseEmbedding", "char_ngram_ids", "WEIGHTS"]


class StaticPhraseEmbedding(StaticEmbedding):
    """Mean token vector + mean hashed character n-gram vector.

    Parameters
    ----------
    tokenizer : tokenizers.Tokenizer
    embedding_weights : array, optional
        Token vectors (e.g. distilled by model2vec), shape (vocab, dim).
    embedding_dim : int, optional
        With no weights: random token vectors of this size.
    n_buckets : int, default=16384
        Rows of the character n-gram table (n-grams are hashed into them).
    ngram_range : (int, int), default=(3, 5)
    max_chars : int, default=64
    ngram_weights : array, optional
        The n-gram table; zeros by default, so a fresh module equals its token table.
    """

    def __init__(
        self,
        tokenizer,
        embedding_weights=None,
        embedding_dim: int | None = None,
        n_buckets: int = 16384,
        ngram_range: tuple[int, int] = (3, 5),
        max_chars: int = 64,
        ngram_weights=None,
        **kwargs,
    ) -> None:
        super().__init__(
            tokenizer, embedding_weights=embedding_weights, embedding_dim=embedding_dim, **kwargs
        )
        self.n_buckets = int(n_buckets)
        self.ngram_range = (int(ngram_range[0]), int(ngram_range[1]))
        self.max_chars = int(max_chars)
        check_ngram_settings(self.ngram_range, self.max_chars)
        self.ngrams = nn.EmbeddingBag(self.n_buckets, self.embedding_dim, mode="mean")
        with torch.no_grad():
            if ngram_weights is None:
                self.ngrams.weight.zero_()
            else:
                self.ngrams.weight.copy_(torch.as_tensor(ngram_weights))

    def preprocess(
        self, inputs: list[str], prompt: str | None = None, **kwargs
    ) -> dict[str, torch.Tensor]:
        if prompt:
            inputs = self._prepend_prompt(inputs, prompt)
        # as pearl.PhraseEncoder does: whitespace-only strings are "" (the same vector
        # through plain sentence-transformers), lone surrogates U+FFFD
        inputs = [clean_text(t) if isinstance(t, str) else t for t in inputs]
        # one call per text: the batch call's thread pool costs more than it gains on
        # phrases this short (10,000 PPDB phrases on 2 cores: 0.075 s against 0.106 s)
        encode = self.tokenizer.encode
        token_ids = [encode(t, add_special_tokens=False).ids for t in inputs]
        lengths = np.fromiter((len(t) for t in token_ids), dtype=np.int64, count=len(inputs))
        flat = np.fromiter(
            (i for t in token_ids for i in t), dtype=np.int64, count=int(lengths.sum())
        )
        features = {
            "input_ids": torch.from_numpy(flat),
            "offsets": torch.from_numpy(
                np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
            ),
        }
        ids, offsets = char_ngram_ids(inputs, self.n_buckets, self.ngram_range, self.max_chars)
        features["ngram_ids"] = torch.from_numpy(ids)
        features["ngram_offsets"] = torch.from_numpy(offsets)
        return features

    tokenize = preprocess

    def forward(self, features: dict[str, torch.Tensor], **kwargs) -> dict[str, torch.Tensor]:
        tokens = self.embedding(features["input_ids"], features["offsets"])
        grams = self.ngrams(features["ngram_ids"], features["ngram_offsets"])
        features["sentence_embedding"] = tokens + grams.to(tokens.dtype)
        return features

    def save(self, output_path: str, *args, safe_serialization: bool = True, **kwargs) -> None:
        os.makedirs(output_path, exist_ok=True)
        state = {k: v.detach().contiguous() for k, v in self.state_dict().items()}
        save_file(state, os.path.join(output_path, WEIGHTS))
        self.tokenizer.save(str(Path(output_path) / "tokenizer.json"))
        with open(os.path.join(output_path, CONFIG), "w", encoding="utf-8") as f:
            json.dump(
                {
                    "n_buckets": self.n_buckets,
                    "ngram_range": list(self.ngram_range),
                    "max_chars": self.max_chars,
                },
                f,
                indent=2,
            )

    @classmethod
    def load(cls, model_name_or_path: str, subfolder: str = "", **kwargs) -> StaticPhraseEmbedding:
        folder = Path(model_name_or_path) / subfolder
        paths = module_files(folder)
        try:
            config = json.loads(paths[2].read_text(encoding="utf-8"))
            state = load_file(str(paths[1]))
            tokenizer = Tokenizer.from_file(str(paths[0]))
            return cls(
                tokenizer,
                embedding_weights=state["embedding.weight"].float(),
                ngram_weights=state["ngrams.weight"].float(),
                n_buckets=int(config["n_buckets"]),
                ngram_range=tuple(config["ngram_range"]),
                max_chars=int(config["max_chars"]),
            )
        except Exception as exc:
            raise OSError(f"corrupt pearl-static module in {folder}: {exc}") from exc
