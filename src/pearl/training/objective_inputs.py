"""What the objective's optional terms read besides the batch, loaded and checked before
any step: the context sentences, the teacher's embeddings and the word-sharing negatives."""

from __future__ import annotations

import logging
from typing import Any

from pearl.training.config import TrainConfig
from pearl.training.dataset import TrainingData

__all__ = ["objective_inputs"]

logger = logging.getLogger(__name__)


def objective_inputs(cfg: TrainConfig, data: TrainingData) -> dict[str, Any]:
    """The ``contexts``, ``teacher`` and ``word_negatives`` of
    :func:`~pearl.training.objective.build_objective` for ``cfg``'s terms (each None when
    its term is off); a file that covers none of the training phrases is an error now,
    not hours into the run.

    Parameters
    ----------
    cfg : TrainConfig
    data : TrainingData

    Returns
    -------
    dict
    """
    from pearl.data.contexts import read_contexts
    from pearl.mining.hard_negatives import read_hard_negatives
    from pearl.training.teacher import TeacherEmbeddings

    out: dict[str, Any] = {"contexts": {}, "teacher": None, "word_negatives": None}
    if cfg.contexts:
        out["contexts"] = _covering(read_contexts(cfg.contexts), data, cfg.contexts, "context")
    if cfg.teacher:
        out["teacher"] = TeacherEmbeddings(cfg.teacher)
        out["teacher"].require(data.anchors)  # fail now, not mid-run
    if cfg.word_negative_weight > 0:
        found = read_hard_negatives(cfg.word_negatives)
        out["word_negatives"] = _covering(found, data, cfg.word_negatives, "word negative")
    return out


def _covering(table: dict, data: TrainingData, path: str, what: str) -> dict:
    covered = sum(a in table for a in data.anchors)
    if not covered:
        raise ValueError(f"no training phrase has a {what} in {path}")
    logger.info("%d of %d training phrases have a %s", covered, len(data), what)
    return table
