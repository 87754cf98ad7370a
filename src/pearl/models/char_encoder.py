"""A LOVE-style character encoder (Chen et al., 2022; PEARL section 3.2).

A phrase is read as its characters plus its subword tokens; both are embedded, get
position embeddings, go through one self-attention layer, are mean-pooled over the
non-padding positions and projected by a linear layer to the output size. It sees surface
forms only, which is what makes it robust to typos and abbreviations.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

__all__ = ["CharEncoder", "encode_chars"]

PAD, UNK = 0, 1
_OFFSET = 2  # byte b gets id b + 2


def encode_chars(texts: list[str], max_chars: int = 64) -> torch.Tensor:
    """UTF-8 bytes of each phrase as ids (0 = padding), truncated to ``max_chars``.

    Built with array operations over the joined bytes (no per-row tensor fills).

    Parameters
    ----------
    texts : list of str
    max_chars : int, default=64

    Returns
    -------
    Tensor of int64, shape (len(texts), longest)
        Byte ids shifted past the padding id.
    """
    encoded = [t.encode("utf-8", "replace")[:max_chars] for t in texts]
    lengths = np.fromiter((len(b) for b in encoded), dtype=np.int64, count=len(encoded))
    width = int(lengths.max()) if len(lengths) and lengths.max() > 0 else 1
    out = np.zeros((len(encoded), width), dtype=np.int64)
    if lengths.sum():
        flat = np.frombuffer(b"".join(encoded), dtype=np.uint8).astype(np.int64) + _OFFSET
        out[np.arange(width) < lengths[:, None]] = flat
    return torch.from_numpy(out)


class CharEncoder(nn.Module):
    """Characters (+ optional subword ids) -> one attention layer -> mean pool -> linear.

    Parameters
    ----------
    out_dim : int, default=128
        Size of the phrase vector.
    dim : int, default=64
        Internal width.
    subword_vocab : int, default=0
        Size of the subword vocabulary (e.g. the backbone tokenizer's); 0 reads
        characters only.
    heads : int, default=4
    max_len : int, default=128
        Longest character + subword sequence.
    """

    def __init__(
        self,
        out_dim: int = 128,
        dim: int = 64,
        subword_vocab: int = 0,
        heads: int = 4,
        max_len: int = 128,
    ) -> None:
        super().__init__()
        self.config = {
            "out_dim": out_dim,
            "dim": dim,
            "subword_vocab": subword_vocab,
            "heads": heads,
            "max_len": max_len,
        }
        self.chars = nn.Embedding(256 + _OFFSET, dim, padding_idx=PAD)
        self.subwords = nn.Embedding(subword_vocab, dim, padding_idx=PAD) if subword_vocab else None
        self.positions = nn.Embedding(max_len, dim)
        self.segment = nn.Embedding(2, dim)
        self.attention = nn.TransformerEncoderLayer(
            dim, heads, dim_feedforward=2 * dim, dropout=0.0, batch_first=True
        )
        self.project = nn.Linear(dim, out_dim)

    def forward(
        self, char_ids: torch.Tensor, subword_ids: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Phrase vectors, shape (batch, out_dim)."""
        max_len = self.config["max_len"]
        char_len = (char_ids != PAD).sum(1, keepdim=True)
        parts = [self.chars(char_ids)]
        segments = [torch.zeros_like(char_ids)]
        positions = [torch.arange(char_ids.shape[1], device=char_ids.device).expand_as(char_ids)]
        ids = [char_ids]
        if subword_ids is not None:
            if self.subwords is None:
                raise ValueError("this CharEncoder was built without a subword vocabulary")
            parts.append(self.subwords(subword_ids))
            segments.append(torch.ones_like(subword_ids))
            # subwords continue right after each row's own characters, so padding the
            # character part of a batch does not move them
            positions.append(
                char_len + torch.arange(subword_ids.shape[1], device=subword_ids.device)
            )
            ids.append(subword_ids)
        x = torch.cat(parts, dim=1)[:, :max_len]
        all_ids = torch.cat(ids, dim=1)[:, :max_len]
        seg = torch.cat(segments, dim=1)[:, :max_len]
        pos = torch.cat(positions, dim=1)[:, :max_len].clamp(max=max_len - 1)
        x = x + self.positions(pos) + self.segment(seg)
        pad = all_ids == PAD
        # an all-padding row (empty phrase) attends to its first position instead of nothing
        safe = pad.clone()
        safe[:, 0] = False
        h = self.attention(x, src_key_padding_mask=safe)
        keep = (~pad).unsqueeze(-1).to(h.dtype)
        pooled = (h * keep).sum(1) / keep.sum(1).clamp(min=1.0)
        return self.project(pooled)
