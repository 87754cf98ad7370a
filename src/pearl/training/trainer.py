"""The PEARL training loop: InfoNCE + hard negatives + phrase types, with checkpoints.

The run is a pure function of its configuration: batches come from ``(seed, step)``, and
a checkpoint holds the weights, the optimiser and scheduler states and the torch random
state, so ``resume=True`` after an interruption ends on the same weights as an
uninterrupted run. SIGINT and SIGTERM finish the current step, write a checkpoint and stop.
"""

from __future__ import annotations

import functools
import logging
import math
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save_file
from sentence_transformers.util import batch_to_device

from pearl._io import atomic_path, check_io, check_replaceable_dir
from pearl.data.labels import LABELS
from pearl.models.pearl_model import build_pearl_model, fusion_module
from pearl.training.char_pretrain import pretrain_char_encoder, vocabulary
from pearl.training.checkpoint import (
    LEGACY_STATE,
    STATE,
    capture_run,
    check_fresh_run,
    check_same_config,
    load_checkpoint,
    restore_run,
    save_checkpoint,
    stop_on_signals,
)
from pearl.training.config import RETIRED, TrainConfig
from pearl.training.dataset import TrainingData, whole_groups
from pearl.training.loop import StepLoop
from pearl.training.objective import Objective, StepEmbeddings, build_objective
from pearl.training.objective_inputs import objective_inputs
from pearl.training.saving import (
    average_weights,
    dev_record,
    resolve_device,
    save_model,
    write_dev_log,
    write_training_log,
)

__all__ = ["Trainer", "TrainResult", "train"]

logger = logging.getLogger(__name__)

INITIAL = "initial.safetensors"
# options that may change between an interrupted run and its resumption (bookkeeping, and
# what happens after the last step: resuming a finished run re-does only the end)
_RESUMABLE = {
    "checkpoint_every",
    "threads",
    "checkpoint_dir",
    "output",
    "average",
    "average_weight",
    "average_scope",
    "save_dtype",
    "normalize",
    "device",
    "dev_every",
}
# options that set only where the run stops: a resume may raise them to extend a run (the
# batches and the learning-rate schedule depend on the step alone, so an extended run ends
# on the weights of a run started with the larger length)
_EXTENDABLE = {"epochs", "max_steps"}


@dataclass
class TrainResult:
    """What a call to :func:`train` did.

    Attributes
    ----------
    output : Path or None
        The model folder saved (None when interrupted: the checkpoint continues the run).
    steps, total_steps : int
        Steps done and asked for.
    interrupted : bool
    seconds : float
    history : list of dict
        Each step's record (losses, learning rate, speed).
    """

    output: Path | None
    steps: int
    total_steps: int
    interrupted: bool
    seconds: float
    history: list[dict] = field(default_factory=list)


class Trainer:
    """Train a fused PEARL model from a :class:`TrainConfig`.

    Parameters
    ----------
    config : TrainConfig
    show_progress_bar : bool, default=True
    on_step : callable(trainer, step, record), optional
        Called after every optimisation step (e.g. to log, or to :meth:`request_stop`).
    """

    def __init__(
        self, config: TrainConfig, show_progress_bar: bool = True, on_step: Callable | None = None
    ) -> None:
        self.config = config
        self.show_progress_bar = show_progress_bar
        self.on_step = on_step
        self._stop = False
        self.objective: Objective | None = None  # built from the config by train()
        self._dev_tasks: dict | None = None  # the development proxy's, with dev_every

    def request_stop(self) -> None:
        """Stop after the current step, with a checkpoint (what SIGINT/SIGTERM do)."""
        self._stop = True

    # -- set-up -------------------------------------------------------------------------
    def _build(self):
        from pearl.encoders.resolve import resolve_model_path

        cfg = self.config
        char_config = {"out_dim": cfg.char_out_dim, "dim": cfg.char_dim}
        if cfg.char_kind != "attention":  # attention models keep the config they always had
            char_config.update(kind=cfg.char_kind, n_buckets=cfg.char_buckets)
        model = build_pearl_model(
            resolve_model_path(cfg.backbone),
            char_config,
            output_dim=cfg.output_dim or None,
            labels=list(LABELS) if cfg.type_loss else None,
            use_chars=cfg.use_chars,
            max_seq_length=cfg.max_seq_length,
            char_gain=cfg.char_gain,
            raw_text=cfg.raw_text,
            char_share=cfg.char_share,
        )
        return model.to(self.device)

    @functools.cached_property
    def device(self) -> torch.device:
        """Where the run computes: ``config.device``, or CUDA when there is one."""
        return resolve_device(self.config.device)

    def _optimizer(self, model):
        cfg = self.config
        fusion = fusion_module(model)
        fusion_ids = {id(p) for p in fusion.parameters()}
        backbone = [p for p in model.parameters() if id(p) not in fusion_ids]
        groups = [{"params": backbone, "lr": cfg.lr}]
        if fusion_ids:
            groups.append({"params": list(fusion.parameters()), "lr": cfg.char_lr})
        opt = torch.optim.Adam(groups)
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: cfg.lr_decay ** (s // cfg.decay_steps)
        )
        return opt, sched

    def _check_resumable(self, saved: dict) -> None:
        used = sorted(k for k, off in RETIRED.items() if saved.get(k, off) != off)
        if used:
            raise ValueError(
                "the checkpoint was written with options since retired "
                f"({', '.join(used)}); it cannot be resumed by this version"
            )
        now = self.config.to_dict()
        # an option added after the checkpoint was written counts at its default value
        check_same_config(
            {k: v for k, v in saved.items() if k in now},
            now,
            self.config.checkpoints,
            free=_RESUMABLE | _EXTENDABLE,
            defaults=TrainConfig().to_dict(),
        )

    @property
    def typed_rows(self) -> int:
        """Rows of each batch drawn as typed groups (``type_batch_share``, whole groups, at
        least one row of the permutation left), as :meth:`TrainingData.batch` takes them."""
        cfg = self.config
        return whole_groups(
            round(cfg.type_batch_share * cfg.batch_size), cfg.batch_size, cfg.type_group_size
        )

    # -- one step -----------------------------------------------------------------------
    def step_loss(self, model: Any, fusion: Any, batch: Any) -> tuple[torch.Tensor, dict]:
        """The objective's loss on one batch, and each term's value for the log."""
        b = len(batch.anchors)
        own = batch.anchor_negatives or []
        texts = batch.anchors + batch.positives + batch.negatives + own
        n_end = len(texts) - len(own)

        def encode(more: list[str]) -> torch.Tensor:
            feats = batch_to_device(model.preprocess(more), self.device)
            return model(feats)["sentence_embedding"]

        emb = encode(texts)
        step = StepEmbeddings(
            batch,
            anchors=emb[:b],
            positives=emb[b : 2 * b],
            negatives=emb[2 * b : n_end],
            own_negatives=emb[n_end:],
            encode=encode,
            fusion=fusion,
        )
        assert self.objective is not None, "train() builds the objective first"
        return self.objective(step)

    # -- the run ------------------------------------------------------------------------
    def train(self, resume: bool = False) -> TrainResult:
        """Train (or, with ``resume=True``, continue from the last checkpoint) and save the
        model folder; returns a :class:`TrainResult` (``interrupted`` when stopped by a
        signal or :meth:`request_stop`, with a checkpoint to resume from)."""
        cfg = self.config
        check_io(cfg.outputs(), cfg.inputs())
        check_fresh_run(cfg.checkpoints, resume)
        t_start = time.time()
        data, total = self._prepare()
        model = self._build()
        fusion = fusion_module(model)
        ckpt = cfg.checkpoints
        state = self._load_state(model, ckpt, total) if resume else None
        if state is None:
            state = self._fresh_state(model, data, ckpt, t_start)
        t0 = time.time()
        step, interrupted = self._run_steps(model, fusion, data, total, state, t_start)
        seconds = time.time() - t0
        if interrupted:
            logger.warning(
                "interrupted at step %d/%d; checkpoint in %s (resume=True continues)",
                step,
                total,
                ckpt,
            )
            return TrainResult(None, step, total, True, seconds, state.history)
        model.eval()
        model.to("cpu")
        if cfg.average:
            average_weights(model, state.initial, cfg.average_weight, scope=cfg.average_scope)
        out = Path(cfg.output)
        save_model(model, out, cfg.save_dtype, normalize=cfg.normalize)
        write_training_log(
            out,
            cfg,
            state.history,
            data_size=len(data),
            total_steps=total,
            seconds=state.elapsed_before + time.time() - t_start,
        )
        return TrainResult(out, step, total, False, seconds, state.history)

    def _prepare(self) -> tuple[TrainingData, int]:
        """Threads and seed, the output check, the training data and the step count."""
        cfg = self.config
        self.device  # noqa: B018 - an unusable device fails now, before the data is read
        if cfg.threads:
            torch.set_num_threads(cfg.threads)
        torch.manual_seed(cfg.seed)
        # refuse a non-model output folder now, not after hours of training
        check_replaceable_dir(cfg.output, "modules.json")
        options = dict(
            levels=cfg.levels,
            augmenter_weights=cfg.augmenter_weights,
            max_examples=cfg.max_examples,
            seed=cfg.seed,
        )
        if cfg.objective == "phrase-bert":
            data = TrainingData.from_triplets(cfg.corpus, cfg.triplets, **options)
        else:
            data = TrainingData.from_files(
                cfg.corpus, cfg.augmented, cfg.negatives if cfg.hard_negatives else None, **options
            )
        if self.typed_rows and not data.eligible_types(cfg.type_group_size):
            raise ValueError(
                f"type_batch_share needs an entity type with at least "
                f"type_group_size = {cfg.type_group_size} training phrases"
            )
        self.objective = build_objective(cfg, **objective_inputs(cfg, data))
        if cfg.dev_every:
            from pearl.evaluation.dev_proxy import dev_tasks

            self._dev_tasks = dev_tasks()  # pycountry missing fails now, not mid-run
        total = max(
            1, math.ceil(cfg.epochs * data.steps_per_epoch(cfg.batch_size, self.typed_rows))
        )
        if cfg.max_steps:
            total = min(total, cfg.max_steps)
        return data, total

    def _load_state(self, model: Any, ckpt: Path, total: int) -> _RunState | None:
        """The run state of the last checkpoint, loaded into ``model``; None (with a
        warning) when there is none."""
        state_path = ckpt / STATE
        if not state_path.is_file() and (ckpt / LEGACY_STATE).is_file():
            raise OSError(
                f"{ckpt / LEGACY_STATE} is a pickle checkpoint of an older pearl; "
                "pearl does not unpickle files (a pickle can run code). Start a "
                "fresh run without --resume."
            )
        if not state_path.is_file():
            logger.warning("no checkpoint in %s; starting from scratch", ckpt)
            return None
        saved = load_checkpoint(state_path)
        self._check_resumable(saved.config)
        opt, sched = self._optimizer(model)
        restore_run(saved, state_path, model, opt, scheduler=sched, device=self.device)
        if saved.step > total:
            raise ValueError(
                f"the checkpoint is at step {saved.step}, past the {total} "
                "steps this configuration asks for; raise epochs/max_steps or "
                "start a fresh run"
            )
        try:
            initial = load_file(str(ckpt / INITIAL))
        except Exception as exc:
            raise OSError(
                f"corrupt or missing {ckpt / INITIAL} ({exc}); remove the checkpoint folder "
                "to start a fresh run"
            ) from exc
        logger.info("resumed at step %d of %d", saved.step, total)
        return _RunState(opt, sched, initial, saved.step, saved.history, saved.seconds)

    def _fresh_state(self, model: Any, data: TrainingData, ckpt: Path, t_start: float) -> _RunState:
        """Pretrain the character encoder, keep the initial weights (for averaging, on disk
        for resume), make the optimizer and checkpoint step 0 (an interruption before the
        first interval does not repeat the pretraining)."""
        cfg = self.config
        created = not ckpt.exists()
        ckpt.mkdir(parents=True, exist_ok=True)
        try:
            if cfg.use_chars and cfg.char_pretrain_steps:
                words = vocabulary(data.anchors, cfg.char_pretrain_words)
                pretrain_char_encoder(
                    model,
                    words,
                    steps=cfg.char_pretrain_steps,
                    batch_size=cfg.char_pretrain_batch,
                    lr=cfg.char_pretrain_lr,
                    seed=cfg.seed,
                    show_progress_bar=self.show_progress_bar,
                    device=self.device,
                )
            initial = {k: v.detach().clone() for k, v in model.state_dict().items()}
            with atomic_path(ckpt / INITIAL) as tmp:
                save_file({k: v.contiguous() for k, v in initial.items()}, str(tmp))
        except BaseException:
            if created:  # a failure before any checkpoint leaves nothing behind
                shutil.rmtree(ckpt, ignore_errors=True)
            raise
        torch.manual_seed(cfg.seed + 1)
        opt, sched = self._optimizer(model)
        state = _RunState(opt, sched, initial, 0, [], 0.0)
        self._save_state(model, state, 0, t_start)
        return state

    def _run_steps(
        self,
        model: Any,
        fusion: Any,
        data: TrainingData,
        total: int,
        state: _RunState,
        t_start: float,
    ) -> tuple[int, bool]:
        """The optimisation loop, with checkpoints every ``checkpoint_every`` steps and on
        SIGINT/SIGTERM; returns the last step and whether it was interrupted."""
        history = state.history

        every = self.config.dev_every

        def one_step(i: int) -> dict:
            record = self._one_step(model, fusion, data, i, state)
            dev = every and (record["step"] % every == 0 or record["step"] == total)
            if dev:
                record.update(dev_record(model, self._dev_tasks))
            history.append(record)
            if dev:  # readable while the run goes on (rewritten whole: resumes repeat none)
                write_dev_log(self.config.checkpoints / "dev.tsv", history)
            return record

        def on_step(done: int, record: dict) -> None:
            if self.on_step is not None:
                self.on_step(self, done, record)

        loop = StepLoop(
            one_step,
            lambda done: self._save_state(model, state, done, t_start),
            checkpoint_every=self.config.checkpoint_every,
            desc="train",
            show_progress_bar=self.show_progress_bar,
            on_step=on_step,
        )
        with stop_on_signals() as signalled:
            model.train()
            return loop.run(state.step, total, lambda: self._stop or signalled.requested)

    def _one_step(
        self, model: Any, fusion: Any, data: TrainingData, step: int, state: _RunState
    ) -> dict:
        """Step ``step`` (0-based): its batch, the loss, one optimiser and scheduler step;
        returns the step's record."""
        cfg = self.config
        t_step = time.time()
        batch = data.batch(
            step, cfg.batch_size, cfg.hard_negatives, self.typed_rows, cfg.type_group_size
        )
        loss, record = self.step_loss(model, fusion, batch)
        state.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        state.optimizer.step()
        state.scheduler.step()
        n_texts = 2 * len(batch.anchors) + len(batch.negatives) + len(batch.anchor_negatives or [])
        record.update(
            step=step + 1,
            lr=state.scheduler.get_last_lr()[0],
            phrases_per_s=n_texts / max(time.time() - t_step, 1e-9),
        )
        if fusion is not None and fusion.char_log_scale is not None:
            record["char_scale"] = fusion.char_scale
        return record

    def _save_state(self, model: Any, state: _RunState, step: int, t_start: float) -> None:
        """Write the checkpoint of step ``step`` (weights, optimiser, scheduler, random
        states, history, seconds)."""
        save_checkpoint(
            self.config.checkpoints / STATE,
            capture_run(
                model,
                state.optimizer,
                config=self.config.to_dict(),
                step=step,
                history=state.history,
                seconds=state.elapsed_before + time.time() - t_start,
                scheduler=state.scheduler,
                device=self.device,
            ),
        )


@dataclass
class _RunState:
    """What a run carries between its steps: optimizer, scheduler, the initial weights (for
    averaging), the step reached, the per-step records and the seconds already spent."""

    optimizer: Any
    scheduler: Any
    initial: dict[str, torch.Tensor]
    step: int
    history: list[dict]
    elapsed_before: float


def train(config: TrainConfig, resume: bool = False, show_progress_bar: bool = True) -> TrainResult:
    """Train (or resume) a PEARL model; see :class:`Trainer`.

    Parameters
    ----------
    config : TrainConfig
        From :func:`~pearl.training.load_config` or built directly.
    resume : bool, default=False
        Continue from the checkpoint in ``config.checkpoints``.
    show_progress_bar : bool, default=True

    Returns
    -------
    TrainResult
        Where the model folder was saved (None when interrupted), the steps done and the
        per-step records.
    """
    return Trainer(config, show_progress_bar=show_progress_bar).train(resume=resume)
