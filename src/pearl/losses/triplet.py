"""Phrase-BERT's objective: a triplet loss on Euclidean distances."""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = ["triplet_loss", "batch_hard_triplet_loss"]


def triplet_loss(
    anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor, margin: float = 1.0
) -> torch.Tensor:
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


def batch_hard_triplet_loss(
    anchor: torch.Tensor,
    positive: torch.Tensor,
    hard_negatives: torch.Tensor | None = None,
    margin: float = 1.0,
) -> torch.Tensor:
    """:func:`triplet_loss` where each anchor's negative is the closest (L2) of the other
    anchors' positives and the shared ``hard_negatives``: the triplet objective on the
    same batches as PEARL's InfoNCE.

    Parameters
    ----------
    anchor, positive : Tensor of shape (batch, dim)
    hard_negatives : Tensor of shape (k, dim), optional
    margin : float, default=1.0
    """
    if anchor.shape != positive.shape or anchor.dim() != 2:
        raise ValueError("anchor and positive must both be (batch, dim)")
    candidates = (
        positive
        if hard_negatives is None or len(hard_negatives) == 0
        else torch.cat([positive, hard_negatives], dim=0)
    )
    if len(candidates) < 2:
        raise ValueError("a batch-hard triplet needs at least one negative candidate")
    with torch.no_grad():
        dist = torch.cdist(anchor, candidates)
        idx = torch.arange(len(anchor), device=anchor.device)
        dist[idx, idx] = float("inf")  # an anchor's own positive is not its negative
        hardest = dist.argmin(dim=1)
    return triplet_loss(anchor, positive, candidates[hardest], margin)
