"""SentPWNet's lightweight encoders: a BiLSTM or a CNN over GloVe word vectors.

:class:`GloveSequenceEncoder` is a sentence-transformers module (it saves and loads in the
folder format, and is allow-listed, so ``pearl.PhraseEncoder(folder)`` loads it without
``trust_remote_code``). It lower-cases and splits a phrase into GloVe's words, embeds them
(id 0 pads, id 1 stands for any word outside its vocabulary), and pools the outputs of

- ``arch="bilstm"``: a one-layer bidirectional LSTM, mean-pooled over the words;
- ``arch="cnn"``: a 1-D convolution (``kernel_size`` words, ReLU), max-pooled over the words.

A phrase with no word (an empty or blank string) gets the zero vector. Train one with
``pearl finetune --encoder bilstm`` (or ``cnn``): :func:`pearl.training.finetune.finetune`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from sentence_transformers.base.modules import Module
from torch import nn

from pearl.models.glove_vectors import GloveVectors, glove_tokenize

__all__ = ["GloveSequenceEncoder"]

CONFIG = "glove_sequence_config.json"
WEIGHTS = "model.safetensors"
VOCAB = "vocab.json"
ARCHS = ("bilstm", "cnn")


class GloveSequenceEncoder(Module):
    """A BiLSTM or CNN phrase encoder over word vectors.

    Parameters
    ----------
    words : list of str
        The vocabulary, row-aligned with ``vectors``.
    vectors : array of shape (len(words), dim), optional
        Initial word vectors (e.g. GloVe); random when omitted (a model about to be
        loaded from its weights).
    arch : {"bilstm", "cnn"}, default="bilstm"
    hidden_dim : int, default=150
        LSTM units per direction, or half the CNN's filters: the output has
        ``2 * hidden_dim`` dimensions either way.
    kernel_size : int, default=3
        Width of the CNN's filters, in words.
    max_words : int, default=32
        Longer phrases are cut.
    embedding_dim : int, optional
        Size of the word vectors when ``vectors`` is omitted.
    """

    config_keys = ["arch", "hidden_dim", "kernel_size", "max_words", "embedding_dim"]

    def __init__(
        self,
        words: list[str],
        vectors=None,
        arch: str = "bilstm",
        hidden_dim: int = 150,
        kernel_size: int = 3,
        max_words: int = 32,
        embedding_dim: int | None = None,
    ) -> None:
        super().__init__()
        if arch not in ARCHS:
            raise ValueError(f"arch must be one of {ARCHS}, got {arch!r}")
        if vectors is None and not embedding_dim:
            raise ValueError("give the word vectors or their embedding_dim")
        self.words = list(words)
        self.index = {w: i + 2 for i, w in enumerate(self.words)}
        self.arch, self.hidden_dim = arch, int(hidden_dim)
        self.kernel_size, self.max_words = int(kernel_size), int(max_words)
        self.embedding_dim = int(embedding_dim or np.shape(vectors)[1])
        self.embedding = nn.Embedding(len(self.words) + 2, self.embedding_dim, padding_idx=0)
        with torch.no_grad():
            self.embedding.weight[0].zero_()
            if vectors is not None:
                table = torch.as_tensor(np.asarray(vectors), dtype=torch.float32)
                if table.shape != (len(self.words), self.embedding_dim):
                    raise ValueError(
                        f"vectors of shape {tuple(table.shape)} for {len(self.words)} words"
                    )
                self.embedding.weight[2:] = table
                self.embedding.weight[1] = table.mean(0)  # unknown words: the mean vector
        if arch == "bilstm":
            self.encoder = nn.LSTM(
                self.embedding_dim, self.hidden_dim, batch_first=True, bidirectional=True
            )
        else:
            self.encoder = nn.Conv1d(
                self.embedding_dim,
                2 * self.hidden_dim,
                self.kernel_size,
                padding=self.kernel_size // 2,
            )

    @classmethod
    def from_glove(
        cls, arch: str = "bilstm", texts: Iterable[str] = (), vocab_size: int = 50_000, **kwargs
    ) -> GloveSequenceEncoder:
        """A fresh encoder on the packaged GloVe 6B 50-d vectors: its ``vocab_size`` most
        frequent words plus every GloVe word of ``texts`` (the training strings)."""
        glove = GloveVectors()
        order = sorted(glove.index.items(), key=lambda kv: kv[1])
        keep = {i for _, i in order[:vocab_size]}
        for text in texts:
            keep.update(glove.index[w] for w in glove_tokenize(str(text)) if w in glove.index)
        rows = sorted(keep)
        by_row = {i: w for w, i in glove.index.items()}
        return cls([by_row[i] for i in rows], np.asarray(glove.vectors[rows]), arch=arch, **kwargs)

    def get_sentence_embedding_dimension(self) -> int:
        return 2 * self.hidden_dim

    get_embedding_dimension = get_sentence_embedding_dimension

    def preprocess(self, texts: list[str], **kwargs) -> dict[str, torch.Tensor]:
        ids = [
            [self.index.get(w, 1) for w in glove_tokenize(str(t))][: self.max_words] for t in texts
        ]
        width = max([1, *map(len, ids)])
        out = np.zeros((len(ids), width), dtype=np.int64)
        for row, seq in enumerate(ids):
            out[row, : len(seq)] = seq
        return {
            "input_ids": torch.from_numpy(out),
            "lengths": torch.tensor([len(s) for s in ids], dtype=torch.int64),
        }

    tokenize = preprocess

    def forward(self, features: dict[str, torch.Tensor], **kwargs) -> dict[str, torch.Tensor]:
        ids, lengths = features["input_ids"], features["lengths"]
        mask = (ids != 0).unsqueeze(-1)
        x = self.embedding(ids)
        if self.arch == "bilstm":
            packed = nn.utils.rnn.pack_padded_sequence(
                x, lengths.clamp(min=1).cpu(), batch_first=True, enforce_sorted=False
            )
            out, _ = self.encoder(packed)
            out, _ = nn.utils.rnn.pad_packed_sequence(
                out, batch_first=True, total_length=ids.shape[1]
            )
            pooled = (out * mask).sum(1) / mask.sum(1).clamp(min=1)
        else:
            out = torch.relu(self.encoder(x.transpose(1, 2))).transpose(1, 2)
            pooled = out.masked_fill(~mask, float("-inf")).amax(1)
        empty = (lengths == 0).unsqueeze(-1)
        features["sentence_embedding"] = pooled.masked_fill(empty, 0.0)
        return features

    def get_config_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.config_keys}

    def save(self, output_path: str, *args, safe_serialization: bool = True, **kwargs) -> None:
        os.makedirs(output_path, exist_ok=True)
        with open(os.path.join(output_path, CONFIG), "w", encoding="utf-8") as f:
            json.dump(self.get_config_dict(), f, indent=2)
        with open(os.path.join(output_path, VOCAB), "w", encoding="utf-8") as f:
            json.dump(self.words, f, ensure_ascii=False)
        state = {k: v.detach().contiguous() for k, v in self.state_dict().items()}
        save_file(state, os.path.join(output_path, WEIGHTS))

    @classmethod
    def load(cls, model_name_or_path: str, subfolder: str = "", **kwargs) -> GloveSequenceEncoder:
        folder = Path(model_name_or_path) / subfolder
        paths = [folder / CONFIG, folder / VOCAB, folder / WEIGHTS]
        for p in paths:
            if not p.is_file():
                raise OSError(f"incomplete GloVe sequence encoder: {p} is missing")
        try:
            config = json.loads(paths[0].read_text(encoding="utf-8"))
            words = json.loads(paths[1].read_text(encoding="utf-8"))
            if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
                raise ValueError("the vocabulary is not a list of strings")
            module = cls(words, **config)
            state = {k: v.float() for k, v in load_file(str(paths[2])).items()}
            module.load_state_dict(state, strict=True)
        except Exception as exc:
            raise OSError(f"corrupt GloVe sequence encoder in {folder}: {exc}") from exc
        return module
