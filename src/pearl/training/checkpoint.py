"""Training checkpoints without pickle: tensors in safetensors, everything else as JSON.

A checkpoint is one ``state.safetensors`` file. Its tensors are the model weights
(``model.*``), the optimiser's per-parameter state (``optimizer.<param>.<name>``) and the
torch random state (``torch_rng``); the configuration, step, loss history, the optimiser's
parameter groups, the scheduler state and any loop position a trainer needs (``extra``) are
JSON in the file's header metadata. Loading it
reads tensors and JSON only, so a checkpoint received from someone else cannot run code.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import save_file

from pearl._io import atomic_path

__all__ = [
    "Checkpoint",
    "capture_run",
    "restore_run",
    "save_checkpoint",
    "load_checkpoint",
    "stop_on_signals",
    "restore_optimizer",
    "restore_scheduler",
    "check_fresh_run",
    "check_same_config",
    "STATE",
    "LEGACY_STATE",
]

logger = logging.getLogger(__name__)

STATE = "state.safetensors"
#: the pickle checkpoints of pearl before 0.2, which are refused, never unpickled
LEGACY_STATE = "state.pt"
_FORMAT = 1


@dataclass
class Checkpoint:
    """The state of a training run after ``step`` steps."""

    config: dict[str, Any]
    step: int
    history: list[dict]
    model: dict[str, torch.Tensor]
    optimizer: dict[str, Any]
    scheduler: dict[str, Any]
    torch_rng: torch.Tensor
    seconds: float = 0.0
    cuda_rng: torch.Tensor | None = None  # the CUDA generator's state, for runs on a GPU
    extra: dict[str, Any] = field(default_factory=dict)  # a trainer's own loop position


def save_checkpoint(path: str | os.PathLike, ckpt: Checkpoint) -> None:
    """Write a checkpoint atomically (see the module docstring for the layout)."""
    tensors = {f"model.{k}": v.detach().cpu().contiguous() for k, v in ckpt.model.items()}
    for pid, state in ckpt.optimizer["state"].items():
        for name, value in state.items():
            if not isinstance(value, torch.Tensor):
                value = torch.tensor(value)
            tensors[f"optimizer.{int(pid)}.{name}"] = value.detach().cpu().contiguous()
    tensors["torch_rng"] = ckpt.torch_rng.contiguous()
    if ckpt.cuda_rng is not None:
        tensors["cuda_rng"] = ckpt.cuda_rng.cpu().contiguous()
    meta = {
        "format": _FORMAT,
        "config": ckpt.config,
        "step": ckpt.step,
        "history": ckpt.history,
        "param_groups": ckpt.optimizer["param_groups"],
        "scheduler": ckpt.scheduler,
        "seconds": ckpt.seconds,
        "extra": ckpt.extra,
    }
    with atomic_path(path) as tmp:
        try:
            save_file(tensors, str(tmp), metadata={"pearl_state": json.dumps(meta)})
        except SafetensorError as exc:  # safetensors reports a full disk as its own error
            raise OSError(
                f"could not write the checkpoint {path} ({exc}); the previous checkpoint, "
                "if any, is unchanged"
            ) from exc


def capture_run(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    *,
    config: dict[str, Any],
    step: int,
    history: list[dict],
    seconds: float,
    scheduler: Any = None,
    device: torch.device | None = None,
    extra: dict[str, Any] | None = None,
) -> Checkpoint:
    """The checkpoint of a run now: ``model``'s weights, the optimiser's and scheduler's
    states and the random states (CUDA's on a CUDA ``device``), with the run's own fields
    (the three trainers' one way to write their state)."""
    return Checkpoint(
        config=config,
        step=step,
        history=history,
        model=model.state_dict(),
        optimizer=optimizer.state_dict(),
        scheduler=scheduler.state_dict() if scheduler is not None else {},
        torch_rng=torch.get_rng_state(),
        seconds=seconds,
        cuda_rng=(
            torch.cuda.get_rng_state(device)
            if device is not None and device.type == "cuda"
            else None
        ),
        extra=extra or {},
    )


def restore_run(
    saved: Checkpoint,
    where: str | os.PathLike,
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    *,
    scheduler: Any = None,
    device: torch.device | None = None,
) -> None:
    """Load what :func:`capture_run` captured into ``model``, ``optimizer`` and
    ``scheduler``, and set the random states (the three trainers' one way to resume).

    Raises
    ------
    OSError
        The checkpoint in ``where`` does not fit this model or optimiser (the message says
        which field).
    """
    try:
        model.load_state_dict(saved.model)
        restore_optimizer(optimizer, saved.optimizer)
        if scheduler is not None:
            restore_scheduler(scheduler, saved.scheduler)
        torch.set_rng_state(saved.torch_rng)
        if saved.cuda_rng is not None and device is not None and device.type == "cuda":
            torch.cuda.set_rng_state(saved.cuda_rng, device)
    except (RuntimeError, KeyError, ValueError) as exc:
        raise OSError(f"the checkpoint {where} does not fit this model: {exc}") from exc


def load_checkpoint(path: str | os.PathLike) -> Checkpoint:
    """Read a checkpoint written by :func:`save_checkpoint`.

    Raises
    ------
    OSError
        The file is truncated, corrupt, or not a pearl checkpoint; the message names it.
    """
    path = Path(path)
    try:
        with safe_open(str(path), framework="pt") as f:
            meta = json.loads((f.metadata() or {})["pearl_state"])  # RecursionError: caught
            tensors = {k: f.get_tensor(k) for k in f.keys()}
        if not isinstance(meta, dict) or meta.get("format") != _FORMAT:
            raise ValueError("unknown checkpoint format")
        model = {k[len("model.") :]: v for k, v in tensors.items() if k.startswith("model.")}
        state: dict[int, dict[str, torch.Tensor]] = {}
        for key, value in tensors.items():
            if key.startswith("optimizer."):
                _, pid, name = key.split(".", 2)
                state.setdefault(int(pid), {})[name] = value
        _check_meta(meta, tensors, state)
        groups = meta["param_groups"]
        for group in groups:  # JSON turned Adam's betas tuple into a list
            if isinstance(group.get("betas"), list):
                group["betas"] = tuple(group["betas"])
        return Checkpoint(
            config=dict(meta["config"]),
            step=int(meta["step"]),
            history=list(meta["history"]),
            model=model,
            optimizer={"state": state, "param_groups": groups},
            scheduler=dict(meta["scheduler"]),
            torch_rng=tensors["torch_rng"],
            seconds=float(meta.get("seconds", 0.0)),
            cuda_rng=tensors.get("cuda_rng"),
            extra=dict(meta.get("extra", {})),
        )
    except Exception as exc:
        raise OSError(
            f"corrupt or truncated training checkpoint {path} ({exc}); delete the "
            "checkpoint folder to start a fresh run"
        ) from exc


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _check_meta(meta: dict, tensors: dict, state: dict) -> None:
    """Every field of a checkpoint's metadata checked for type and range before anything
    uses it (a crafted file is an error naming the field, not a traceback later)."""

    def need(ok: bool, what: str) -> None:
        if not ok:
            raise ValueError(f"invalid checkpoint field {what}")

    need(isinstance(meta.get("config"), dict), "'config' (a JSON object)")
    step = meta.get("step")
    need(
        isinstance(step, int) and not isinstance(step, bool) and 0 <= step < 2**40,
        "'step' (an integer >= 0)",
    )
    history = meta.get("history")
    need(
        isinstance(history, list)
        and all(
            isinstance(h, dict)
            and all(  # a diverged step may log NaN: numbers, not finite
                isinstance(k, str)
                and (v is None or isinstance(v, int | float) and not isinstance(v, bool))
                for k, v in h.items()
            )
            for h in history
        ),
        "'history' (a list of objects of numbers)",
    )
    groups: Any = meta.get("param_groups")
    need(
        isinstance(groups, list)
        and all(
            isinstance(g, dict)
            and isinstance(g.get("params"), list)
            and all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in g["params"])
            and _number(g.get("lr"))
            and g["lr"] >= 0
            for g in groups
        ),
        "'param_groups' (a list of groups with integer 'params' and a number 'lr')",
    )
    ids = {i for g in groups for i in g["params"]}
    need(set(state) <= ids, "optimizer state of a parameter no group holds")
    need(isinstance(meta.get("scheduler"), dict), "'scheduler' (a JSON object)")
    need(isinstance(meta.get("extra", {}), dict), "'extra' (a JSON object)")
    need(
        _number(meta.get("seconds", 0.0)) and meta.get("seconds", 0.0) >= 0,
        "'seconds' (a number >= 0)",
    )
    rng = tensors.get("torch_rng")
    need(
        isinstance(rng, torch.Tensor) and rng.dtype == torch.uint8 and rng.ndim == 1,
        "'torch_rng' (a byte tensor)",
    )


def restore_optimizer(opt: torch.optim.Optimizer, saved: dict[str, Any]) -> None:
    """Load a checkpoint's optimiser state into ``opt`` after checking it against ``opt``'s
    own parameters: the same groups and sizes, every per-parameter tensor of its
    parameter's shape, floating point and finite, a step count a finite number >= 0.
    (``load_state_dict`` takes any tensors; a crafted one failed later, mid-training.)

    Raises
    ------
    ValueError
        Naming the field that does not fit.
    """
    groups, own = saved["param_groups"], opt.param_groups
    if len(groups) != len(own) or any(
        len(g["params"]) != len(o["params"]) for g, o in zip(groups, own, strict=True)
    ):
        raise ValueError("invalid checkpoint field 'param_groups' (not this optimiser's groups)")
    params = {
        i: p
        for g, o in zip(groups, own, strict=True)
        for i, p in zip(g["params"], o["params"], strict=True)
    }
    for pid, state in saved["state"].items():
        for name, value in state.items():
            where = f"optimizer.{pid}.{name}"
            if not value.is_floating_point() or not torch.isfinite(value).all():
                raise ValueError(f"invalid checkpoint field {where} (not finite numbers)")
            if name == "step":
                if value.numel() != 1 or float(value) < 0:
                    raise ValueError(f"invalid checkpoint field {where} (a count >= 0)")
            elif value.shape != params[pid].shape:
                raise ValueError(
                    f"invalid checkpoint field {where} (shape {tuple(value.shape)}, its "
                    f"parameter's is {tuple(params[pid].shape)})"
                )
    opt.load_state_dict(saved)


def restore_scheduler(sched: Any, saved: dict[str, Any]) -> None:
    """Load a checkpoint's learning-rate scheduler state after checking that it has the
    fields of ``sched``'s own state, each of the same kind (finite numbers, lists of the
    same length).

    Raises
    ------
    ValueError
        Naming the field that does not fit.
    """
    own = sched.state_dict()
    if set(saved) != set(own):
        raise ValueError(
            "invalid checkpoint field 'scheduler' (fields "
            f"{sorted(set(saved) ^ set(own))} differ from this scheduler's)"
        )
    for key, value in saved.items():
        if not _same_kind(own[key], value):
            raise ValueError(f"invalid checkpoint field scheduler.{key} ({value!r:.60})")
    sched.load_state_dict(saved)


def _same_kind(ref: Any, value: Any) -> bool:
    if isinstance(ref, bool) or ref is None:
        return type(value) is type(ref)
    if isinstance(ref, int | float):
        return _number(value)
    if isinstance(ref, list | tuple):
        return (
            isinstance(value, list | tuple)
            and len(value) == len(ref)
            and all(_same_kind(r, v) for r, v in zip(ref, value, strict=True))
        )
    return type(value) is type(ref)


def check_fresh_run(folder: str | os.PathLike, resume: bool) -> None:
    """Refuse to start a fresh run over the checkpoint of an earlier one (an interrupted
    run's was overwritten, then deleted at the end, without a word).

    Raises
    ------
    FileExistsError
        ``folder`` holds a checkpoint and ``resume`` is false.
    """
    if not resume and (Path(folder) / STATE).is_file():
        raise FileExistsError(
            f"{folder} holds the checkpoint of an earlier run (interrupted, or finished "
            "and extendable): continue it with --resume (resume=True), or remove the "
            "folder yourself to start afresh"
        )


def check_same_config(
    saved: dict[str, Any],
    now: dict[str, Any],
    where: str | os.PathLike,
    *,
    free: frozenset[str] | set[str] = frozenset(),
    defaults: dict[str, Any] | None = None,
) -> None:
    """Refuse to resume a checkpoint written with other options (the three trainers' rule).

    ``free`` options may differ (bookkeeping, or a run's length); an option missing from
    the checkpoint (added to pearl after it was written) counts at its value in
    ``defaults``.

    Raises
    ------
    ValueError
        Naming every option that differs.
    """
    defaults = defaults or {}
    diff = sorted(
        k
        for k in set(saved) | set(now)
        if k not in free and saved.get(k, defaults.get(k)) != now.get(k, defaults.get(k))
    )
    if diff:
        raise ValueError(
            f"the checkpoint in {where} was written with a different configuration "
            f"({', '.join(diff)}); resume with the same options or data, or start a fresh run"
        )


class StopRequest:
    """Set by SIGINT or SIGTERM inside :func:`stop_on_signals`: the loop should write a
    checkpoint after its current step and stop."""

    requested: bool = False


@contextlib.contextmanager
def stop_on_signals() -> Iterator[StopRequest]:
    """Within the block, SIGINT and SIGTERM set ``requested`` on the yielded object instead
    of stopping the process (so a training loop ends its step and writes a checkpoint); the
    previous handlers come back after it. Outside the main thread, where Python cannot set
    handlers, the signals keep their usual effect."""
    flag = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

    def handler(signum, frame):
        logger.warning("signal %d: stopping after this step with a checkpoint", signum)
        flag.requested = True

    for s in previous:
        signal.signal(s, handler)
    try:
        yield flag
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
