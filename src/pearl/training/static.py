"""pearl-static: distil a static phrase model, then train it with PEARL's objective.

1. :func:`distill_static`: model2vec distils the backbone transformer into one vector per
   token (a forward pass per vocabulary token, PCA, SIF weighting). model2vec is the
   well-kept library for this, and sentence-transformers' ``StaticEmbedding.from_distillation``
   calls it too; calling it directly keeps its options in reach.
2. A zero-initialised table of hashed character 3-5-gram vectors is added
   (:class:`~pearl.models.static.StaticPhraseEmbedding`), so the untrained model equals the
   distilled one.
3. :class:`StaticTrainer` trains both tables on the same training-data files as
   ``pearl train`` (augmented positives, mined hard negatives, phrase types) with InfoNCE
   (in-batch + hard negatives) and the type cross-entropy, with far larger batches and more
   pairs than a transformer affords on a CPU. With ``teacher`` (a ``pearl teacher`` folder
   of the corpus phrases, e.g. encoded by pearl-minilm), plus ``distill_weight`` x the KL
   divergence between the teacher's and the student's in-batch similarity distributions
   over the anchors (:func:`~pearl.losses.similarity_distillation`): the token and n-gram
   tables learn the similarity structure that pooling static vectors cannot get from the
   distillation of step 1 alone (a word split into subwords the transformer contextualises).
   Checkpoints (safetensors + JSON, as ``pearl
   train``) every ``checkpoint_every`` steps; ``resume=True`` continues. At the end the
   token table is averaged with the distilled one (``average_weight``), the n-gram table is
   kept as trained, and the model is saved as a sentence-transformers folder
   (``StaticPhraseEmbedding`` + ``Normalize``).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import numpy as np
import torch

from pearl._io import check_io, check_replaceable_dir
from pearl._validation import check_choice
from pearl.data.labels import LABELS
from pearl.models.static import StaticPhraseEmbedding
from pearl.training.checkpoint import (
    STATE,
    capture_run,
    check_fresh_run,
    check_same_config,
    load_checkpoint,
    restore_run,
    save_checkpoint,
    stop_on_signals,
)
from pearl.training.config import ConfigPaths, check_fields
from pearl.training.dataset import TrainingData
from pearl.training.loop import StepLoop
from pearl.training.objective import StepEmbeddings, build_objective
from pearl.training.saving import average_weights, save_model, write_training_log
from pearl.training.teacher import TeacherEmbeddings

if TYPE_CHECKING:
    from pearl.training.trainer import TrainResult

__all__ = ["StaticConfig", "StaticTrainer", "distill_static"]

logger = logging.getLogger(__name__)

_RANGES = {
    "batch_size": (2, None),
    "checkpoint_every": (1, None),
    "pca_dims": (2, None),
    "n_buckets": (1, None),
    "average_weight": (0.0, 1.0),
    "distill_temperature": (1e-6, None),
}  # other floats: >= 0 (check_fields)


@dataclass
class StaticConfig(ConfigPaths):
    """Everything a pearl-static run depends on (files as in :class:`TrainConfig`)."""

    # its objective's terms, in the order they are summed (as pearl-static was trained)
    LOSS_ORDER: ClassVar[tuple[str, ...]] = ("contrastive", "type", "distill")

    backbone: str = "all-MiniLM-L6-v2"
    corpus: str = "data_out/corpus/corpus.tsv"
    augmented: str = "data_out/augmented-static.tsv"
    negatives: str = "data_out/hard_negatives-static.tsv"
    output: str = "models/pearl-static"
    checkpoint_dir: str = ""  # default: <output>.checkpoints
    pca_dims: int = 256
    n_buckets: int = 16384
    batch_size: int = 2048
    epochs: float = 4.0
    max_steps: int = 0
    lr: float = 2e-3
    temperature: float = 0.07
    hard_negatives: int = 256
    type_loss: bool = True
    type_weight: float = 1.0
    teacher: str = ""  # folder of `pearl teacher` embeddings: adds the distillation loss
    distill_weight: float = 1.0
    distill_temperature: float = 0.05
    average_weight: float = 0.5
    save_dtype: str = "float16"
    checkpoint_every: int = 100
    seed: int = 0
    threads: int = 0
    # keep-probabilities of noisy augmenters, as in pearl-minilm's recipe
    augmenter_weights: dict[str, float] = dataclasses.field(
        default_factory=lambda: {"mined_paraphrase": 0.25, "acronym": 0.35}
    )

    def __post_init__(self) -> None:
        check_fields(self, _RANGES)
        if self.lr <= 0 or self.temperature <= 0 or self.epochs <= 0:
            raise ValueError("lr, temperature and epochs must be > 0")
        check_choice(self.save_dtype, "save_dtype", ("float32", "float16"))


def distill_static(
    backbone: str, pca_dims: int = 256, n_buckets: int = 16384
) -> StaticPhraseEmbedding:
    """model2vec's distillation of ``backbone`` (a name or folder), as a fresh
    :class:`StaticPhraseEmbedding` (n-gram table at zero)."""
    from pearl._extras import require

    distill = require("model2vec.distill", "distilling a static model").distill
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding

    from pearl.encoders.resolve import resolve_model_path

    m2v = distill(model_name=resolve_model_path(backbone), pca_dims=pca_dims, quantize_to="float32")
    weights = StaticEmbedding._fold_model2vec_weights(
        np.asarray(m2v.embedding, dtype=np.float32),
        getattr(m2v, "token_mapping", None),
        getattr(m2v, "weights", None),
    )
    return StaticPhraseEmbedding(
        m2v.tokenizer, embedding_weights=weights.float(), n_buckets=n_buckets
    )


class _Weights(torch.nn.Module):
    """What a run trains and keeps, as one module whose state is the checkpoint's weights:
    the static module (``module.*``), the type head (``head.*``) and the distilled token
    table the end averages with (``initial``)."""

    def __init__(self, module: StaticPhraseEmbedding, head: torch.nn.Module | None) -> None:
        super().__init__()
        self.module, self.head = module, head
        self.register_buffer("initial", module.embedding.weight.detach().clone())


@dataclass
class _Run:
    """The state of a run: what a checkpoint holds."""

    weights: _Weights
    opt: torch.optim.Optimizer
    step: int = 0
    history: list[dict] = dataclasses.field(default_factory=list)
    seconds_before: float = 0.0


class StaticTrainer:
    """Train pearl-static from a :class:`StaticConfig` (see the module docstring).

    Parameters
    ----------
    config : StaticConfig
    show_progress_bar : bool, default=True
    module : StaticPhraseEmbedding, optional
        A distilled module to train (default: distilled from ``config.backbone``).
    on_step : callable(trainer, step, record), optional
        Called after every optimisation step, as :class:`~pearl.training.trainer.Trainer`'s.

    SIGINT and SIGTERM stop the run after the current step with a checkpoint
    (``interrupted`` in the result; ``train(resume=True)`` continues).
    """

    def __init__(
        self,
        config: StaticConfig,
        show_progress_bar: bool = True,
        module: StaticPhraseEmbedding | None = None,
        on_step: Callable | None = None,
    ) -> None:
        self.config = config
        self.show_progress_bar = show_progress_bar
        self._module = module  # a distilled module (tests pass a tiny one)
        self.on_step = on_step

    def train(self, resume: bool = False) -> TrainResult:
        """Train (or, with ``resume=True``, continue from the last checkpoint) and save the
        model folder; returns a :class:`~pearl.training.trainer.TrainResult`."""
        cfg = self.config
        check_io(cfg.outputs(), cfg.inputs())
        if cfg.threads:
            torch.set_num_threads(cfg.threads)
        check_replaceable_dir(cfg.output, "modules.json")
        check_fresh_run(cfg.checkpoints, resume)
        data, teacher, total = self._prepare()
        module = self._module or distill_static(cfg.backbone, cfg.pca_dims, cfg.n_buckets)
        torch.manual_seed(cfg.seed)  # the type head's start is the seed's, whatever ran before
        head = torch.nn.Linear(module.embedding_dim, len(LABELS)) if cfg.type_loss else None
        objective = build_objective(cfg, teacher=teacher, head=head)
        weights = _Weights(module, head)  # parameters: the module's, then the head's
        torch.manual_seed(cfg.seed)
        opt = torch.optim.Adam(weights.parameters(), lr=cfg.lr)
        run = _Run(weights, opt)
        if resume and (cfg.checkpoints / STATE).is_file():
            self._restore(run)
        cfg.checkpoints.mkdir(parents=True, exist_ok=True)
        t_start = time.time()

        def one_step(i: int) -> dict:
            t0 = time.time()
            batch = data.batch(i, cfg.batch_size, cfg.hard_negatives)
            b = len(batch.anchors)
            encode = self._encoder(module)
            emb = encode(batch.anchors + batch.positives + batch.negatives)
            loss, record = objective(
                StepEmbeddings(
                    batch,
                    anchors=emb[:b],
                    positives=emb[b : 2 * b],
                    negatives=emb[2 * b :],
                    own_negatives=emb[:0],
                    encode=encode,
                )
            )
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            run.step = i + 1
            record.update(step=run.step, pairs_per_s=b / max(time.time() - t0, 1e-9))
            run.history.append(record)
            return record

        loop = StepLoop(
            one_step,
            lambda done: self._checkpoint(run, run.seconds_before + time.time() - t_start),
            checkpoint_every=cfg.checkpoint_every,
            desc="train pearl-static",
            show_progress_bar=self.show_progress_bar,
            speed="pairs_per_s",
            on_step=None if self.on_step is None else partial(self.on_step, self),
        )
        with stop_on_signals() as signalled:
            _, interrupted = loop.run(run.step, total, lambda: signalled.requested)
        from pearl.training.trainer import TrainResult

        if interrupted:
            logger.warning(
                "interrupted at step %d/%d; checkpoint in %s (resume=True continues)",
                run.step,
                total,
                cfg.checkpoints,
            )
            return TrainResult(None, run.step, total, True, time.time() - t_start, run.history)
        # the token table averaged with the distilled one; the n-gram table kept as trained
        average_weights(module, {"embedding.weight": run.weights.initial}, cfg.average_weight)
        out = self._save(module, run.history, len(data), total)
        return TrainResult(out, run.step, total, False, time.time() - t_start, run.history)

    @staticmethod
    def _encoder(module: StaticPhraseEmbedding):
        return lambda texts: module(module.preprocess(texts))["sentence_embedding"]

    def _prepare(self) -> tuple[TrainingData, TeacherEmbeddings | None, int]:
        """The training data, the teacher (checked to cover the anchors) and the steps."""
        cfg = self.config
        data = TrainingData.from_files(
            cfg.corpus,
            cfg.augmented,
            cfg.negatives if cfg.hard_negatives else None,
            augmenter_weights=cfg.augmenter_weights,
            seed=cfg.seed,
        )
        teacher = None
        if cfg.teacher:
            teacher = TeacherEmbeddings(cfg.teacher)
            teacher.require(data.anchors)  # fail now, not mid-run
        total = max(1, math.ceil(cfg.epochs * data.steps_per_epoch(cfg.batch_size)))
        if cfg.max_steps:
            total = min(total, cfg.max_steps)
        return data, teacher, total

    def _restore(self, run: _Run) -> None:
        """Continue ``run`` from the checkpoint (same configuration but its length)."""
        cfg = self.config
        ckpt = cfg.checkpoints / STATE
        state = load_checkpoint(ckpt)
        check_same_config(
            state.config,
            cfg.to_dict(),
            cfg.checkpoints,
            free={"max_steps", "epochs"},
            defaults=StaticConfig().to_dict(),
        )
        restore_run(state, ckpt, run.weights, run.opt)
        run.step, run.history, run.seconds_before = state.step, state.history, state.seconds

    def _checkpoint(self, run: _Run, seconds: float) -> None:
        save_checkpoint(
            self.config.checkpoints / STATE,
            capture_run(
                run.weights,
                run.opt,
                config=self.config.to_dict(),
                step=run.step,
                history=run.history,
                seconds=seconds,
            ),
        )

    def _save(
        self, module: StaticPhraseEmbedding, history: list[dict], pairs: int, total: int
    ) -> Path:
        from sentence_transformers import SentenceTransformer
        from sentence_transformers.sentence_transformer.modules import Normalize

        cfg = self.config
        model = SentenceTransformer(modules=[module, Normalize()], device="cpu")
        out = Path(cfg.output)
        save_model(model, out, cfg.save_dtype)
        write_training_log(out, cfg, history, data_size=pairs, total_steps=total)
        return out
