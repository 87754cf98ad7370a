"""A character channel that carries surface form: a bag of hashed n-grams and subwords.

The LOVE-style attention encoder (:mod:`pearl.models.char_encoder`) of the fused model ranks
"NYTimes" last among Figure 1's candidates, while pearl-static's bag of hashed character
3-5-grams ranks it first (issue 49). :class:`NgramBagEncoder` is that bag as the fused
model's character channel: the mean vector of the phrase's hashed character n-grams (the
same ids as pearl-static, :func:`~pearl.models.char_ngrams.char_ngram_ids`) plus the mean
vector of its subword tokens (the "words": WordPiece keeps frequent words whole), trained
jointly with the phrase encoder under PEARL's objective. It takes the same inputs as
:class:`~pearl.models.CharEncoder` (UTF-8 byte ids and subword ids), so the fusion module,
the character pretraining and the trainers use either unchanged. :class:`BothCharEncoders`
sums the two (the "both" arm of the comparison).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from pearl.models.char_encoder import _OFFSET, PAD, CharEncoder
from pearl.models.char_ngrams import char_ngram_ids

__all__ = ["NgramBagEncoder", "BothCharEncoders", "build_char_encoder", "CHAR_KINDS"]

#: ``char_config["kind"]``: the character encoders the fused model can hold
CHAR_KINDS = ("attention", "ngram_bag", "both")


def _texts_of(char_ids: torch.Tensor) -> list[str]:
    """The phrases back from byte ids (``encode_chars``: byte + 2, 0 = padding)."""
    rows = (char_ids - _OFFSET).clamp(min=0).to(torch.uint8).cpu().numpy()
    keep = (char_ids != PAD).cpu().numpy()
    return [bytes(r[k]).decode("utf-8", "replace") for r, k in zip(rows, keep, strict=True)]


class NgramBagEncoder(nn.Module):
    """Mean of hashed character n-gram vectors + mean of subword vectors.

    Parameters
    ----------
    out_dim : int, default=128
        Size of the phrase vector (the width of both tables: no projection, as in
        pearl-static, so the vector stays a bag of surface features).
    n_buckets : int, default=16384
        Rows of the n-gram table.
    ngram_range : (int, int), default=(3, 5)
    subword_vocab : int, default=0
        Rows of the subword table (the backbone tokenizer's vocabulary); 0: n-grams only.
    max_chars : int, default=64
        Bytes read per phrase.
    dim : int, optional
        Accepted for configuration compatibility with :class:`CharEncoder`; unused.
    """

    def __init__(
        self,
        out_dim: int = 128,
        n_buckets: int = 16384,
        ngram_range: tuple[int, int] | list[int] = (3, 5),
        subword_vocab: int = 0,
        max_chars: int = 64,
        dim: int | None = None,
    ) -> None:
        super().__init__()
        lo, hi = int(ngram_range[0]), int(ngram_range[1])
        if not 1 <= lo <= hi or n_buckets < 1 or out_dim < 1:
            raise ValueError(
                f"an n-gram bag needs 1 <= ngram_range[0] <= ngram_range[1] and positive "
                f"sizes, got ngram_range={ngram_range}, n_buckets={n_buckets}, "
                f"out_dim={out_dim}"
            )
        self.config: dict[str, Any] = {
            "out_dim": int(out_dim),
            "n_buckets": int(n_buckets),
            "ngram_range": [lo, hi],
            "subword_vocab": int(subword_vocab),
            "max_chars": int(max_chars),
        }
        self.ngrams = nn.EmbeddingBag(int(n_buckets), int(out_dim), mode="mean")
        self.subwords = (
            nn.EmbeddingBag(int(subword_vocab), int(out_dim), mode="sum", padding_idx=PAD)
            if subword_vocab
            else None
        )
        with torch.no_grad():  # small, so the channel starts near the backbone's scale
            self.ngrams.weight.normal_(0.0, 0.1)
            if self.subwords is not None:
                self.subwords.weight.normal_(0.0, 0.1)
                self.subwords.weight[PAD].zero_()

    def forward(
        self, char_ids: torch.Tensor, subword_ids: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Phrase vectors, shape (batch, out_dim)."""
        cfg = self.config
        texts = _texts_of(char_ids)
        ids, offsets = char_ngram_ids(
            texts, cfg["n_buckets"], tuple(cfg["ngram_range"]), cfg["max_chars"]
        )
        device = self.ngrams.weight.device
        out = self.ngrams(torch.from_numpy(ids).to(device), torch.from_numpy(offsets).to(device))
        if subword_ids is not None:
            if self.subwords is None:
                raise ValueError("this NgramBagEncoder was built without a subword vocabulary")
            count = (subword_ids != PAD).sum(1, keepdim=True).clamp(min=1).to(out.dtype)
            out = out + self.subwords(subword_ids.to(device)) / count
        return out


class BothCharEncoders(nn.Module):
    """The attention encoder and the n-gram bag, summed (same ``out_dim``)."""

    def __init__(self, **config) -> None:
        super().__init__()
        bag_keys = ("out_dim", "n_buckets", "ngram_range", "subword_vocab", "max_chars")
        attention_keys = ("out_dim", "dim", "subword_vocab", "heads", "max_len")
        self.attention = CharEncoder(**{k: config[k] for k in attention_keys if k in config})
        self.bag = NgramBagEncoder(**{k: config[k] for k in bag_keys if k in config})
        self.config = {**self.attention.config, **self.bag.config}

    def forward(
        self, char_ids: torch.Tensor, subword_ids: torch.Tensor | None = None
    ) -> torch.Tensor:
        return self.attention(char_ids, subword_ids) + self.bag(char_ids, subword_ids)


def build_char_encoder(char_config: dict) -> nn.Module:
    """The character encoder a ``CharFusion`` config names (``kind``, default
    ``"attention"``: the LOVE-style encoder of the paper)."""
    config = dict(char_config)
    kind = config.pop("kind", "attention")
    if kind == "attention":
        return CharEncoder(**config)
    if kind == "ngram_bag":
        return NgramBagEncoder(**config)
    if kind == "both":
        return BothCharEncoders(**config)
    raise ValueError(f"char_config kind must be one of {CHAR_KINDS}, got {kind!r}")
