"""MLP probes trained on frozen embeddings (paraphrase and short-text classification).

The architecture and schedule follow PEARL's released evaluation code:
Linear(d, 256) -> ReLU -> Linear(256, out), Adam, batch 200, early stopping on
validation accuracy with patience 5, between 3 and 100 epochs, and the test
accuracy of the weights in hand when training stops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

__all__ = ["ProbeResult", "train_probe", "split_indices"]


@dataclass
class ProbeResult:
    """Outcome of one probe run."""

    test_accuracy: float
    best_val_accuracy: float
    epochs: int


def split_indices(n: int, seed: int, fractions=(0.7, 0.85)) -> tuple[np.ndarray, ...]:
    """Seeded shuffle, then cut at ``ceil(f * n)`` for each fraction (train/val/test)."""
    perm = np.random.default_rng(seed).permutation(n)
    a, b = (int(np.ceil(f * n)) for f in fractions)
    return perm[:a], perm[a:b], perm[b:]


def _accuracy(model: nn.Module, x: torch.Tensor, y: torch.Tensor, binary: bool) -> float:
    with torch.no_grad():
        out = model(x)
        pred = (torch.sigmoid(out.squeeze(1)) >= 0.5).long() if binary else out.argmax(1)
        return float((pred == y).float().mean()) if len(y) else 0.0


def train_probe(
    x: np.ndarray,
    y: np.ndarray,
    train_idx: np.ndarray,
    val_idx: np.ndarray,
    test_idx: np.ndarray,
    seed: int = 0,
    lr: float = 1e-4,
    batch_size: int = 200,
    hidden: int = 256,
    patience: int = 5,
    min_epochs: int = 3,
    max_epochs: int = 100,
) -> ProbeResult:
    """Train an MLP probe and return its test accuracy.

    Parameters
    ----------
    x : ndarray of shape (n, d)
        Features (frozen embeddings).
    y : ndarray of int, shape (n,)
        Labels; two classes train a sigmoid output with binary cross-entropy
        (threshold 0.5), more train a softmax output with cross-entropy.
    train_idx, val_idx, test_idx : ndarray of int
        Row indices of the three splits.
    seed : int, default=0
        Seeds the weight initialisation and the batch order.
    lr, batch_size, hidden, patience, min_epochs, max_epochs
        Optimiser and early-stopping settings.

    Returns
    -------
    ProbeResult
    """
    n_classes = int(np.max(y)) + 1
    binary = n_classes <= 2
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    xt = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))
    yt = torch.from_numpy(np.asarray(y, dtype=np.int64))
    model = nn.Sequential(
        nn.Linear(x.shape[1], hidden), nn.ReLU(), nn.Linear(hidden, 1 if binary else n_classes)
    )
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.BCEWithLogitsLoss() if binary else nn.CrossEntropyLoss()
    tr = torch.from_numpy(np.asarray(train_idx, dtype=np.int64))
    xv, yv = xt[val_idx], yt[val_idx]
    best, wait, epoch = -1.0, 0, 0
    for epoch in range(1, max_epochs + 1):
        model.train()
        order = tr[torch.randperm(len(tr), generator=gen)]
        for s in range(0, len(order), batch_size):
            b = order[s : s + batch_size]
            out = model(xt[b])
            loss = loss_fn(out.squeeze(1), yt[b].float()) if binary else loss_fn(out, yt[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        val = _accuracy(model, xv, yv, binary)
        if val > best:
            best, wait = val, 0
        else:
            wait += 1
        if epoch >= min_epochs and wait >= patience:
            break
    test = _accuracy(model, xt[test_idx], yt[test_idx], binary)
    return ProbeResult(test_accuracy=test, best_val_accuracy=best, epochs=epoch)
