"""SentPWNet's objective: the multi-similarity loss with locality weighting and epsilon
pair mining (Wang et al., 2019; SentPWNet eq. 8-12)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = ["multi_similarity_loss", "mine_pairs"]


def mine_pairs(
    similarities: torch.Tensor, labels: torch.Tensor, epsilon: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor]:
    """The pairs whose locality is not yet preserved (SentPWNet eq. 11-12).

    A negative pair ``(i, j)`` is kept when ``S_ij > min_{k in P_i} S_ik - epsilon``, a
    positive one when ``S_ij < max_{k in N_i} S_ik + epsilon``.

    Parameters
    ----------
    similarities : Tensor of shape (batch, batch)
    labels : Tensor of shape (batch,)
        Each row's group.
    epsilon : float, default=0.1

    Returns
    -------
    positives, negatives : Tensor of bool, shape (batch, batch)
    """
    s = similarities.detach()
    labels = torch.as_tensor(labels, device=s.device)
    same = labels[:, None] == labels[None, :]
    eye = torch.eye(len(s), dtype=torch.bool, device=s.device)
    pos, neg = same & ~eye, ~same
    inf = torch.tensor(float("inf"), device=s.device, dtype=s.dtype)
    min_pos = torch.where(pos, s, inf).min(dim=1, keepdim=True).values
    max_neg = torch.where(neg, s, -inf).max(dim=1, keepdim=True).values
    return pos & (s < max_neg + epsilon), neg & (s > min_pos - epsilon)


def multi_similarity_loss(
    embeddings: torch.Tensor,
    labels: torch.Tensor,
    alpha: float = 2.0,
    beta: float = 50.0,
    base: float = 0.5,
    epsilon: float = 0.1,
) -> torch.Tensor:
    """Multi-similarity loss over a batch of labelled embeddings.

    For each anchor ``i``, positives are the other rows with its label, negatives the rows
    with another label. Pairs whose locality is already preserved are mined out (eq. 11-12):
    a negative is kept only when ``S_ij > min_pos S_ik - epsilon``, a positive only when
    ``S_ij < max_neg S_ik + epsilon``. The kept pairs are weighted by the loss itself
    (eq. 9-10: by their own similarity and their similarity relative to the anchor's other
    pairs), which is what

    ``1/alpha log(1 + sum_P exp(-alpha (S_ik - base))) + 1/beta log(1 + sum_N exp(beta (S_ik
    - base)))``

    does when differentiated. The loss is the mean over the anchors that keep at least one
    pair; 0 (with a gradient path) when none does.

    Parameters
    ----------
    embeddings : Tensor of shape (batch, dim)
    labels : Tensor of shape (batch,)
        Group ids: rows with the same id name the same thing.
    alpha, beta : float
        Scales of the positive and negative terms (2 and 50 as in the MS paper).
    base : float, default=0.5
        The similarity margin lambda.
    epsilon : float, default=0.1
        The mining margin (SentPWNet uses 0.1).
    """
    labels = torch.as_tensor(labels, device=embeddings.device)
    if embeddings.dim() != 2 or labels.shape != embeddings.shape[:1]:
        raise ValueError(
            f"embeddings must be (batch, dim) and labels (batch,), got "
            f"{tuple(embeddings.shape)} and {tuple(labels.shape)}"
        )
    x = F.normalize(embeddings, dim=-1)
    sim = x @ x.T
    keep_pos, keep_neg = mine_pairs(sim, labels, epsilon)
    anchors = keep_pos.any(1) & keep_neg.any(1)
    if not bool(anchors.any()):
        return embeddings.sum() * 0.0
    zeros = torch.zeros(len(x), 1, device=x.device, dtype=sim.dtype)
    pos_logits = torch.where(keep_pos, -alpha * (sim - base), -torch.inf)
    neg_logits = torch.where(keep_neg, beta * (sim - base), -torch.inf)
    pos_term = torch.logsumexp(torch.cat([zeros, pos_logits], dim=1), dim=1) / alpha
    neg_term = torch.logsumexp(torch.cat([zeros, neg_logits], dim=1), dim=1) / beta
    return (pos_term + neg_term)[anchors].mean()
