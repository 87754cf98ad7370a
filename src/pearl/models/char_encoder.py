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
        if self.training or torch.is_grad_enabled():
            h = self.attention(x, src_key_padding_mask=safe)
        else:
            h = _attend(self.attention, x, safe)
        keep = (~pad).unsqueeze(-1).to(h.dtype)
        pooled = (h * keep).sum(1) / keep.sum(1).clamp(min=1.0)
        return self.project(pooled)


def _attend(layer: nn.TransformerEncoderLayer, x: torch.Tensor, pad: torch.Tensor) -> torch.Tensor:
    """``layer(x, src_key_padding_mask=pad)`` at inference, its attention through PyTorch's
    fused kernel (``scaled_dot_product_attention``): the layer's own inference path
    computes a masked softmax that took 9% of pearl-minilm's encoding of short titles,
    twice the fused kernel's time at 48-72 positions. The same outputs to about 1e-6 at
    the positions that are not padding (in float32; under bfloat16 autocast both compute
    their products in bfloat16)."""
    if layer.norm_first or layer.activation_relu_or_gelu != 1:  # not CharEncoder's layer
        return layer(x, src_key_padding_mask=pad)
    attn = layer.self_attn
    b, n, d = x.shape
    qkv = nn.functional.linear(x, attn.in_proj_weight, attn.in_proj_bias)
    q, k, v = qkv.view(b, n, 3, attn.num_heads, d // attn.num_heads).permute(2, 0, 3, 1, 4)
    a = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=~pad[:, None, None, :])
    x = layer.norm1(x + attn.out_proj(a.transpose(1, 2).reshape(b, n, d)))
    return layer.norm2(x + layer.linear2(torch.relu(layer.linear1(x))))
