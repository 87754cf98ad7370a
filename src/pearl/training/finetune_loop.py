"""The epochs of :func:`pearl.training.finetune.finetune`, with checkpoints and exact resume.

Each epoch trains on batches drawn from the labelled groups, then scores the held-out groups
(top-1 retrieval); the best epoch's weights are kept and training stops when the score stops
improving. Every ``checkpoint_every`` batches, at the end of every epoch and on SIGINT or
SIGTERM, the folder of checkpoints gets:

- ``state.safetensors``: the weights, the optimiser's state, torch's random state, the
  run's configuration and the loop's position (epoch, batch, the batch sampler's random
  state at the epoch's start, validation history, best score);
- ``best.safetensors``: the best epoch's weights so far.

Both hold tensors and JSON only (:mod:`pearl.training.checkpoint`), so a received
checkpoint cannot run code. Resuming regenerates the epoch's batches from the saved
sampler state and skips those already done, so an interrupted and resumed run ends on the
same weights as an uninterrupted one.
"""

from __future__ import annotations

import copy
import inspect
import logging
import math
import random
import time
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import load_file, save_file

from pearl._io import atomic_path
from pearl._validation import check_choice, check_float, check_int
from pearl.training.checkpoint import (
    STATE,
    capture_run,
    check_same_config,
    load_checkpoint,
    restore_run,
    save_checkpoint,
    stop_on_signals,
)
from pearl.training.labelled import LabelledGroups, epoch_batches
from pearl.training.loop import StepLoop
from pearl.training.objective import GROUP_LOSSES, StepEmbeddings

__all__ = ["FinetuneLoop", "FinetuneOptions", "FINETUNE_SECTIONS", "top1", "BEST"]

logger = logging.getLogger(__name__)

#: the best epoch's weights so far, beside ``state.safetensors``
BEST = "best.safetensors"


@dataclass(frozen=True)
class FinetuneOptions:
    """The options of a fine-tuning run, checked once (see
    :func:`pearl.training.finetune.finetune` for each one). ``lr=None`` is resolved by the
    run from the model (:meth:`with_lr`)."""

    loss: str = "ms"
    encoder: str = "transformer"
    epochs: int = 10
    batch_size: int = 64
    per_group: int = 4
    lr: float | None = None
    validation: float = 0.1
    patience: int = 2
    max_steps: int = 0
    average_weight: float = 0.0
    save_dtype: str = "float32"
    seed: int = 0
    alpha: float = 2.0
    beta: float = 50.0
    base: float = 0.5
    epsilon: float = 0.1
    temperature: float = 0.05
    margin: float = 1.0
    checkpoint_every: int = 200

    def __post_init__(self) -> None:
        checked = {
            "loss": check_choice(self.loss, "loss", tuple(GROUP_LOSSES)),
            "encoder": check_choice(self.encoder, "encoder", ("transformer", "bilstm", "cnn")),
            "epochs": check_int(self.epochs, "epochs", 1),
            "batch_size": check_int(self.batch_size, "batch_size", 2),
            "per_group": check_int(self.per_group, "per_group", 2),
            "patience": check_int(self.patience, "patience", 1),
            "validation": check_float(self.validation, "validation", 0.0, 0.9),
            "max_steps": check_int(self.max_steps, "max_steps", 0),
            "average_weight": check_float(self.average_weight, "average_weight", 0.0, 1.0),
        }
        if self.lr is not None:
            check_float(self.lr, "lr", 0.0)
        checked["save_dtype"] = check_choice(self.save_dtype, "save_dtype", ("float32", "float16"))
        checked["checkpoint_every"] = check_int(self.checkpoint_every, "checkpoint_every", 1)
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @classmethod
    def from_file(
        cls, path: str | Path | None = None, overrides: dict[str, Any] | None = None
    ) -> FinetuneOptions:
        """The options of a configuration file in the sections of every pearl trainer
        (:data:`FINETUNE_SECTIONS`; the objective as one ``[[objective]]`` spec, ``loss =
        "ms" | "infonce" | "triplet"`` with that loss's parameters), then ``overrides``
        (options by name, e.g. those given on the command line). An unknown option, or a
        parameter of another loss than the spec's, is an error.

        Parameters
        ----------
        path : path-like, optional
            The TOML file (none: the defaults and ``overrides``).
        overrides : dict, optional

        Returns
        -------
        FinetuneOptions
        """
        from pearl.training.config import read_sections

        known = {f.name for f in fields(cls)}
        values = (
            read_sections(path, known, FINETUNE_SECTIONS, _objective_options)
            if path is not None
            else {}
        )
        values.update(overrides or {})
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown fine-tuning option(s): {', '.join(unknown)}")
        return cls(**values)

    def with_lr(self, lr: float) -> FinetuneOptions:
        """These options with the learning rate set."""
        return replace(self, lr=lr)

    def losses(self) -> dict[str, float]:
        """The loss parameters (each loss takes those it uses)."""
        return {k: getattr(self, k) for k in _LOSS_OPTIONS}

    def record(self) -> dict[str, Any]:
        """The options as the run's record and checkpoint identity name them (all but
        ``checkpoint_every``, which may change between an interruption and its resume)."""
        return {
            "encoder": self.encoder,
            "loss": self.loss,
            **{k: getattr(self, k) for k in _RUN_OPTIONS},
            **self.losses(),
        }


_RUN_OPTIONS = (
    "epochs",
    "batch_size",
    "per_group",
    "lr",
    "validation",
    "patience",
    "max_steps",
    "average_weight",
    "save_dtype",
    "seed",
)
_LOSS_OPTIONS = ("alpha", "beta", "base", "epsilon", "temperature", "margin")
#: the sections of a ``pearl finetune`` configuration file, as those of ``pearl train``
#: (:data:`pearl.training.config.SECTIONS`); the objective is one ``[[objective]]`` spec
FINETUNE_SECTIONS: dict[str, tuple[str, ...]] = {
    "data": ("validation", "per_group"),
    "model": ("encoder",),
    "objective": ("loss", *_LOSS_OPTIONS),
    "optimisation": ("epochs", "batch_size", "lr", "max_steps", "patience", "seed"),
    "output": ("average_weight", "save_dtype", "checkpoint_every"),
}


def _objective_options(specs: list, known: set[str]) -> dict[str, Any]:
    """The options of a fine-tuning ``[[objective]]`` list: one spec, its ``loss`` and
    that loss's parameters."""
    if len(specs) != 1 or not isinstance(specs[0], dict):
        raise ValueError(
            f"pearl finetune's [[objective]] is one loss spec, got {len(specs)} "
            "(its losses are not summed)"
        )
    spec = dict(specs[0])
    loss = spec.pop("loss", None)
    if loss not in GROUP_LOSSES:
        raise ValueError(f"[[objective]] loss must be one of {sorted(GROUP_LOSSES)}, got {loss!r}")
    takes = tuple(inspect.signature(GROUP_LOSSES[loss]).parameters)  # the loss's own options
    foreign = sorted(set(spec) - set(takes))
    if foreign:
        raise ValueError(
            f"[[objective]] loss = {loss!r} takes {', '.join(takes)}; not {', '.join(foreign)}"
        )
    return {"loss": loss, **spec}


def top1(model, data: LabelledGroups, batch_size: int = 256) -> float:
    """Share of strings (with another member in ``data``) whose nearest other string is
    in their group."""
    if len(data) < 2:
        return float("nan")
    with torch.no_grad():
        emb = model.encode(
            data.texts,
            batch_size=batch_size,
            convert_to_tensor=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
    sims = emb @ emb.T
    sims.fill_diagonal_(-2.0)
    nearest = sims.argmax(1).cpu().numpy()
    _, group_of, sizes = np.unique(data.groups, return_inverse=True, return_counts=True)
    has_mate = sizes[group_of] >= 2
    if not has_mate.any():
        return float("nan")
    return float((data.groups[nearest] == data.groups)[has_mate].mean())


@dataclass
class _Progress:
    """Where the loop stands: the epoch under way (1-based), batches of it done, batches
    done in all, the batch sampler's random state at the epoch's start, the validation
    scores of finished epochs, and early stopping's state."""

    epoch: int = 1
    position: int = 0
    steps: int = 0
    epoch_rng: list = field(default_factory=list)
    history: list[float] = field(default_factory=list)
    best: float = -math.inf
    best_epoch: int = 0
    since: int = 0
    finished: bool = False

    @classmethod
    def from_saved(cls, saved: dict[str, Any]) -> _Progress:
        """From a checkpoint's ``extra``; every field checked (a crafted file gives an
        error naming the field)."""

        def need(ok: bool, what: str) -> None:
            if not ok:
                raise OSError(f"invalid fine-tuning checkpoint field {what!r}")

        def count(v: Any) -> bool:
            return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**40

        need(set(saved) == set(cls.__dataclass_fields__), "fields")
        for name in ("epoch", "position", "steps", "best_epoch", "since"):
            need(count(saved[name]), name)
        need(isinstance(saved["finished"], bool), "finished")
        need(isinstance(saved["best"], float | int), "best")
        need(
            isinstance(saved["history"], list)
            and all(isinstance(x, float | int) for x in saved["history"]),
            "history",
        )
        rng = saved["epoch_rng"]
        need(
            isinstance(rng, list)
            and len(rng) == 3
            and isinstance(rng[1], list)
            and all(count(x) for x in rng[1]),
            "epoch_rng",
        )
        return cls(**saved)


class FinetuneLoop:
    """Train ``st`` with ``opt`` and ``objective`` (an
    :class:`~pearl.training.objective.Objective` of group losses) on ``train_data`` epoch by
    epoch (see the module docstring), as ``options`` say.

    ``config`` identifies the run: a resume with another configuration is refused.
    """

    def __init__(
        self,
        st,
        opt,
        objective,
        data: tuple[LabelledGroups, LabelledGroups | None],
        options: FinetuneOptions,
        checkpoints: Path,
        config: dict[str, Any],
        show_progress_bar: bool = True,
    ) -> None:
        self.st, self.opt, self.objective = st, opt, objective
        self.train_data, self.val_data = data
        self.options = options
        self.checkpoints = Path(checkpoints)
        self.config = config
        self.show_progress_bar = show_progress_bar
        self.best_state: dict[str, torch.Tensor] | None = None
        self.seconds_before = 0.0
        self._t0 = time.time()

    def resume(self, rng: random.Random) -> _Progress | None:
        """The saved progress, with the weights, optimiser and random states restored;
        None (with a warning) when the folder holds no checkpoint."""
        path = self.checkpoints / STATE
        if not path.is_file():
            logger.warning("no checkpoint in %s; starting from scratch", self.checkpoints)
            return None
        saved = load_checkpoint(path)
        check_same_config(saved.config, self.config, self.checkpoints)
        progress = _Progress.from_saved(saved.extra)
        restore_run(saved, path, self.st, self.opt, device=self.st.device)
        try:
            rng.setstate((progress.epoch_rng[0], tuple(progress.epoch_rng[1]), None))
            if progress.best_epoch:
                self.best_state = load_file(str(self.checkpoints / BEST))
        except Exception as exc:
            raise OSError(f"the checkpoint in {self.checkpoints} does not fit: {exc}") from exc
        self.seconds_before = saved.seconds
        logger.info("resumed at epoch %d, batch %d", progress.epoch, progress.position)
        return progress

    def run(self, rng: random.Random, progress: _Progress | None = None) -> tuple[_Progress, bool]:
        """Train to the end (or to a signal); returns the progress and whether the run was
        interrupted (its checkpoint written). At the end, the best weights are in ``st``."""
        epochs, patience, max_steps = (
            self.options.epochs,
            self.options.patience,
            self.options.max_steps,
        )
        p = progress or _Progress(epoch_rng=_rng_state(rng))
        with stop_on_signals() as signalled:
            while not p.finished:
                if not self._epoch(p, rng, signalled):
                    return p, True
                score = self._validate()
                p.history.append(score)
                if math.isnan(score) or score > p.best:
                    p.best, p.since, p.best_epoch = (
                        (p.best if math.isnan(score) else score),
                        0,
                        p.epoch,
                    )
                    self.best_state = copy.deepcopy(self.st.state_dict())
                    with atomic_path(self.checkpoints / BEST) as tmp:
                        save_file({k: v.contiguous() for k, v in self.best_state.items()}, str(tmp))
                else:
                    p.since += 1
                p.finished = (
                    p.since >= patience
                    or p.epoch >= epochs
                    or bool(max_steps and p.steps >= max_steps)
                )
                p.epoch, p.position, p.epoch_rng = p.epoch + 1, 0, _rng_state(rng)
                self._save(p)
                if signalled.requested and not p.finished:
                    return p, True
        if self.best_state is not None:
            self.st.load_state_dict(self.best_state)
        return p, False

    def _epoch(self, p: _Progress, rng: random.Random, signalled) -> bool:
        """The batches of epoch ``p.epoch`` from ``p.position`` on; False when stopped by
        a signal (after a checkpoint)."""
        batch_size, per_group = self.options.batch_size, self.options.per_group
        max_steps = self.options.max_steps
        # ``rng`` stands at ``p.epoch_rng`` here: saved after the last epoch's draw, or
        # restored by :meth:`resume`
        batches = list(epoch_batches(self.train_data, batch_size, per_group, rng))
        if max_steps:
            batches = batches[: max_steps - (p.steps - p.position)]
        self.st.train()

        def one_step(i: int) -> dict:
            record = self._step(batches[i])
            p.position, p.steps = p.position + 1, p.steps + 1
            return record

        loop = StepLoop(
            one_step,
            lambda done: self._save(p),
            checkpoint_every=self.options.checkpoint_every,
            desc=f"finetune epoch {p.epoch}",
            unit="batch",
            show_progress_bar=self.show_progress_bar,
        )
        _, stopped = loop.run(
            p.position,
            len(batches),
            lambda: signalled.requested,
            offset=p.steps - p.position,
            checkpoint_last=False,
        )
        return not stopped

    def _step(self, idx: list[int]) -> dict:
        """One optimiser step on the rows ``idx`` of the training data; the objective's
        record of it."""
        data = self.train_data
        texts = [data.texts[i] for i in idx]
        groups = torch.as_tensor(data.groups[idx])
        emb = self.st(self.st.preprocess(texts))["sentence_embedding"]
        value, record = self.objective(StepEmbeddings.of_groups(emb, groups))
        self.opt.zero_grad(set_to_none=True)
        value.backward()
        self.opt.step()
        return record

    def _validate(self) -> float:
        """The validation top-1, logged; NaN where it cannot be measured, said once (with
        the reason) instead of a "nan" every epoch."""
        self.st.eval()
        val = self.val_data
        score = top1(self.st, val) if val is not None and len(val) else math.nan
        if not math.isnan(score):
            logger.info("validation top-1 %.4f", score)
        elif not getattr(self, "_said_unmeasured", False):
            self._said_unmeasured = True
            why = (
                "no validation split (validation=0, or too few groups to set one aside)"
                if val is None or not len(val)
                else "no group of the validation split has two strings"
            )
            logger.info(
                "validation top-1 is not measured: %s; no early stopping, the last epoch's "
                "weights are kept",
                why,
            )
        return score

    def _save(self, p: _Progress) -> None:
        save_checkpoint(
            self.checkpoints / STATE,
            capture_run(
                self.st,
                self.opt,
                config=self.config,
                step=p.steps,
                history=[{"epoch": i + 1, "validation_top1": s} for i, s in enumerate(p.history)],
                seconds=self.seconds(),
                device=self.st.device,
                extra=asdict(p),
            ),
        )

    def seconds(self) -> float:
        """Training seconds so far, those before a resume included."""
        return self.seconds_before + time.time() - self._t0

    def remove_checkpoints(self) -> None:
        """Delete the checkpoint files (after the model folder is saved), and the folder
        when nothing else is in it."""
        for name in (STATE, BEST):
            (self.checkpoints / name).unlink(missing_ok=True)
        try:
            self.checkpoints.rmdir()
        except OSError:
            pass


def _rng_state(rng: random.Random) -> list:
    version, internal, _ = rng.getstate()
    return [version, list(internal), None]
