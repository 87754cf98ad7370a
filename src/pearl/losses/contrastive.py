"""PEARL's contrastive objective: InfoNCE over the batch with extra hard negatives."""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = ["info_nce", "own_negatives_nce"]


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
    _check_pair(anchor, positive, temperature)
    a = F.normalize(anchor, dim=-1)
    candidates = (
        positive
        if hard_negatives is None or len(hard_negatives) == 0
        else torch.cat([positive, hard_negatives], dim=0)
    )
    logits = a @ F.normalize(candidates, dim=-1).T / temperature
    target = torch.arange(len(a), device=a.device)
    return F.cross_entropy(logits, target)


def _check_pair(anchor: torch.Tensor, positive: torch.Tensor, temperature: float) -> None:
    if anchor.shape != positive.shape or anchor.dim() != 2:
        raise ValueError(
            f"anchor and positive must both be (batch, dim), got "
            f"{tuple(anchor.shape)} and {tuple(positive.shape)}"
        )
    if temperature <= 0:
        raise ValueError("temperature must be > 0")


def own_negatives_nce(
    anchor: torch.Tensor,
    positive: torch.Tensor,
    negatives: torch.Tensor,
    valid: torch.Tensor | None = None,
    temperature: float = 0.07,
) -> torch.Tensor:
    """InfoNCE of each anchor against its positive and its *own* negatives only (cosine):
    each anchor's softmax is over ``[positive[i], negatives[i, 0], ..., negatives[i, k-1]]``,
    so a negative pushes away only the anchor it was chosen for ("New York Post" from
    "The New York Times"), not the whole batch.

    Parameters
    ----------
    anchor, positive : Tensor of shape (n, dim)
    negatives : Tensor of shape (n, k, dim)
    valid : Tensor of bool, shape (n, k), optional
        Which negatives count (padding aside); every anchor needs one.
    temperature : float, default=0.07

    Returns
    -------
    Tensor
        The mean loss over the anchors (a scalar).
    """
    _check_pair(anchor, positive, temperature)
    if negatives.dim() != 3 or negatives.shape[0] != len(anchor):
        raise ValueError(f"negatives must be (n, k, dim), got {tuple(negatives.shape)}")
    a = F.normalize(anchor, dim=-1)
    pos = (a * F.normalize(positive, dim=-1)).sum(-1, keepdim=True)
    neg = torch.einsum("nd,nkd->nk", a, F.normalize(negatives, dim=-1))
    if valid is not None:
        if not bool(valid.any(dim=1).all()):
            raise ValueError("every anchor needs at least one valid negative")
        neg = neg.masked_fill(~valid, float("-inf"))
    logits = torch.cat([pos, neg], dim=1) / temperature
    target = torch.zeros(len(a), dtype=torch.long, device=a.device)
    return F.cross_entropy(logits, target)
