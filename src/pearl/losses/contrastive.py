"""PEARL's contrastive objective: InfoNCE over the batch with extra hard negatives."""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = ["info_nce"]


def info_nce(
    anchor: torch.Tensor,
    positive: torch.Tensor,
    hard_negatives: torch.Tensor | None = None,
    temperature: float = 0.07,
) -> torch.Tensor:
    """InfoNCE with cosine similarity, in-batch negatives and shared hard negatives.

    For anchor ``i`` the positive is ``positive[i]``; every other ``positive[j]`` and every
    row of ``hard_negatives`` is a negative (the paper adds k hard negatives per batch).

    Parameters
    ----------
    anchor, positive : Tensor of shape (batch, dim)
    hard_negatives : Tensor of shape (k, dim), optional
    temperature : float, default=0.07

    Returns
    -------
    Tensor
        The mean loss over the batch (a scalar).
    """
    if anchor.shape != positive.shape or anchor.dim() != 2:
        raise ValueError(
            f"anchor and positive must both be (batch, dim), got "
            f"{tuple(anchor.shape)} and {tuple(positive.shape)}"
        )
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    a = F.normalize(anchor, dim=-1)
    candidates = (
        positive
        if hard_negatives is None or len(hard_negatives) == 0
        else torch.cat([positive, hard_negatives], dim=0)
    )
    logits = a @ F.normalize(candidates, dim=-1).T / temperature
    target = torch.arange(len(a), device=a.device)
    return F.cross_entropy(logits, target)
