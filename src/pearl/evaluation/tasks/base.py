"""What every benchmark task receives and returns."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pearl.encoders.base import normalize_rows

__all__ = ["NotApplicable", "TaskContext", "TaskResult", "normalize_rows"]


class NotApplicable(Exception):
    """The model cannot take part in this task (e.g. String Distance has no embeddings)."""


@dataclass
class TaskContext:
    """Inputs shared by all tasks.

    Attributes
    ----------
    model : object
        An :class:`~pearl.encoders.Encoder` or a pairwise scorer such as
        :class:`~pearl.evaluation.StringDistance`.
    embed : callable or None
        ``embed(texts) -> ndarray``, the cached raw embeddings; None for
        models without embeddings.
    data : Path
        Root of the PEARL benchmark (``.../benchmark``).
    short_text : Path
        Root of the short-text sets (``.../short_text``).
    quick : bool
        Subsample every task for a smoke run.
    seed : int
        Seed of splits, probes and subsampling.
    retrieval_index : str
        ``"flat"`` (exact) or ``"ivfpq"`` (the paper's approximate index).
    probe_runs : int
        Probe runs of the paraphrase tasks (seeds ``seed .. seed + probe_runs - 1``, mean
        reported); 1, a single probe, is the paper's protocol.
    show_progress_bar : bool
        Progress bars inside a task (the paraphrase tasks' probe runs).
    """

    model: Any
    embed: Callable[[list[str]], np.ndarray] | None
    data: Path
    short_text: Path
    quick: bool = False
    seed: int = 0
    retrieval_index: str = "flat"
    probe_runs: int = 1
    show_progress_bar: bool = False

    def __post_init__(self) -> None:
        if int(self.probe_runs) < 1:
            raise ValueError(f"probe_runs must be >= 1, got {self.probe_runs}")

    def require_embeddings(self) -> Callable[[list[str]], np.ndarray]:
        if self.embed is None:
            raise NotApplicable(f"{getattr(self.model, 'name', self.model)} has no embeddings")
        return self.embed


@dataclass
class TaskResult:
    """A task's score (in percent, as in the paper's tables) and what it was computed on."""

    score: float
    n: int
    std: float | None = None
    details: dict[str, Any] = field(default_factory=dict)
