"""Supervised contrastive loss over type labels (Khosla et al., 2020): phrases of one entity
type pull together in the cosine space that clustering and retrieval read, where PEARL's
type head only makes the type linearly readable."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from pearl.losses.types import IGNORE_LABEL

__all__ = ["supervised_contrastive_loss"]


def supervised_contrastive_loss(
    embeddings: torch.Tensor, labels: torch.Tensor, temperature: float = 0.1
) -> torch.Tensor | None:
    """SupCon's ``L_out``: each labelled row against every other row of the batch.

    For a row ``i`` with a label and at least one other row of the same label (its
    positives ``P(i)``), the loss is ``-1/|P(i)| sum_{p in P(i)} log softmax_{a != i}
    (s_ia / temperature)[p]``, ``s`` the cosine similarity. Rows labelled
    :data:`~pearl.losses.types.IGNORE_LABEL` are never anchors nor positives, but they are
    negatives in every denominator.

    Parameters
    ----------
    embeddings : Tensor of shape (n, dim)
    labels : Tensor of shape (n,)
    temperature : float, default=0.1

    Returns
    -------
    Tensor or None
        The mean over the rows that have a positive; None when no row has one (a loss of
        nothing, which the caller leaves out rather than adding a NaN).
    """
    labels = torch.as_tensor(labels, device=embeddings.device)
    if embeddings.dim() != 2 or labels.shape != embeddings.shape[:1]:
        raise ValueError(
            f"embeddings must be (n, dim) and labels (n,), got "
            f"{tuple(embeddings.shape)} and {tuple(labels.shape)}"
        )
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    n = len(labels)
    eye = torch.eye(n, dtype=torch.bool, device=embeddings.device)
    known = labels != IGNORE_LABEL
    pos = (labels[:, None] == labels[None, :]) & known[:, None] & ~eye
    anchors = pos.any(dim=1)
    if not bool(anchors.any()):
        return None
    x = F.normalize(embeddings, dim=-1)
    logits = (x @ x.T / temperature).masked_fill(eye, float("-inf"))
    log_prob = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    per_row = -(log_prob.masked_fill(~pos, 0.0).sum(dim=1) / pos.sum(dim=1).clamp(min=1))
    return per_row[anchors].mean()
