"""Phrase-BERT's objective: a triplet loss on Euclidean distances."""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = ["triplet_loss"]


def triplet_loss(anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor,
                 margin: float = 1.0) -> torch.Tensor:
    """``mean(max(0, |a - p| - |a - n| + margin))`` (Phrase-BERT uses margin 1).

    Parameters
    ----------
    anchor, positive, negative : Tensor of shape (batch, dim)
    margin : float, default=1.0
    """
    if not anchor.shape == positive.shape == negative.shape:
        raise ValueError("anchor, positive and negative must have the same shape")
    d_pos = F.pairwise_distance(anchor, positive)
    d_neg = F.pairwise_distance(anchor, negative)
    return F.relu(d_pos - d_neg + margin).mean()
