"""PEARL's auxiliary objective: cross-entropy of the phrase type (95 labels)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = ["IGNORE_LABEL", "type_loss"]

#: The label of a phrase without a type; such phrases do not count in the loss.
IGNORE_LABEL = -100


def type_loss(
    logits: torch.Tensor, labels: torch.Tensor, class_weights: torch.Tensor | None = None
) -> torch.Tensor | None:
    """Cross-entropy of the phrase-type logits, ignoring untyped phrases.

    Parameters
    ----------
    logits : Tensor of shape (n, n_labels)
    labels : Tensor of shape (n,)
        Label ids, or :data:`IGNORE_LABEL` for a phrase without a type.
    class_weights : Tensor of shape (n_labels,), optional
        Per-class weights (e.g. inverse frequencies).

    Returns
    -------
    Tensor or None
        The mean loss over the typed phrases; None when no phrase of the batch is typed
        (a loss of nothing, which the caller leaves out rather than adding a NaN).
    """
    labels = torch.as_tensor(labels, device=logits.device)
    if logits.dim() != 2 or labels.shape != logits.shape[:1]:
        raise ValueError(
            f"logits must be (n, n_labels) and labels (n,), got "
            f"{tuple(logits.shape)} and {tuple(labels.shape)}"
        )
    if not bool((labels != IGNORE_LABEL).any()):
        return None
    return F.cross_entropy(logits, labels, weight=class_weights, ignore_index=IGNORE_LABEL)
