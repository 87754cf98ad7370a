"""The end of a training run: averaging with the original weights, the device, the saved
model folder and its training log, with the development scores along the way (shared by
the PEARL, pearl-static and fine-tuning trainers)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import torch

from pearl._io import atomic_dir, atomic_path
from pearl.training.config import ConfigPaths

logger = logging.getLogger(__name__)

__all__ = [
    "average_weights",
    "resolve_device",
    "save_model",
    "write_training_log",
    "write_stage_record",
    "write_dev_log",
    "dev_record",
    "plot_losses",
]


def average_weights(
    model, initial: dict[str, torch.Tensor], weight: float, *, scope: str = "all"
) -> None:
    """``weight * initial + (1 - weight) * current`` for every tensor present in both
    (the type head, trained from scratch, is left as trained).

    Parameters
    ----------
    model : torch.nn.Module
        Changed in place.
    initial : dict of str to Tensor
        The weights to mix in, by state-dict key (others are left as they are).
    weight : float
        The share of ``initial`` (PEARL's averaging: 0.5).
    scope : {"all", "transformer"}, default="all"
        ``"transformer"``: only the tensors of the model's first module (a
        ``SentenceTransformer``'s transformer); the modules after it, such as the
        character channel, keep their trained weights.

    Raises
    ------
    ValueError
        For another ``scope``, or ``"transformer"`` on a model without modules.
    """
    if scope not in ("all", "transformer"):
        raise ValueError(f"scope must be 'all' or 'transformer', got {scope!r}")
    prefix = ""
    if scope == "transformer":
        first = next(iter(model.named_children()), None)
        if first is None:
            raise ValueError("scope='transformer' needs a model of modules (its first averaged)")
        prefix = f"{first[0]}."
    state = model.state_dict()
    with torch.no_grad():
        for key, value in state.items():
            if "type_head" in key or key not in initial or not value.is_floating_point():
                continue
            if not key.startswith(prefix):
                continue
            start = initial[key].to(device=value.device, dtype=value.dtype)
            value.copy_(weight * start + (1 - weight) * value)


def resolve_device(device: str = "") -> torch.device:
    """``device`` as a torch device; empty means CUDA when there is one, else the CPU.

    Raises
    ------
    ValueError
        For a CUDA device on a machine without one.
    """
    if not device:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dev = torch.device(device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={device!r}, but torch sees no CUDA device here")
    return dev


def save_model(model, output: Path, dtype: str = "float32", normalize: bool = False) -> None:
    """Save in the sentence-transformers folder format (written beside, then renamed).

    Parameters
    ----------
    model : sentence_transformers.SentenceTransformer
    output : Path
        The model folder; an existing model folder is replaced once the new one is
        complete, and any other non-empty folder is refused (``FileExistsError``).
    dtype : {"float32", "float16"}, default="float32"
        Storage type of the weights (float16 folders still compute in float32).
    normalize : bool, default=False
        Append a ``Normalize`` module (unless the model ends with one), as the
        sentence-transformers backbones do, so that encodings are unit vectors. Training
        itself runs without it: the type head reads the unnormalised fused vector.
    """
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize

    output = Path(output)
    if dtype == "float16":
        import copy

        model = copy.deepcopy(model).half()  # the caller's model keeps float32 weights
    if normalize and not isinstance(model[-1], Normalize):
        model = SentenceTransformer(modules=[*model, Normalize()], device="cpu")
    with atomic_dir(output, replaceable="modules.json") as tmp:
        model.save(str(tmp))
        if dtype == "float16" and (tmp / "sentence_bert_config.json").is_file():
            # stored in float16 to halve the folder, computed in float32: sentence-transformers
            # passes these model_kwargs to from_pretrained whoever loads the folder
            cfg_path = tmp / "sentence_bert_config.json"
            st_cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
            st_cfg.setdefault("model_kwargs", {})["dtype"] = "float32"
            cfg_path.write_text(json.dumps(st_cfg, indent=2), encoding="utf-8")


def write_training_log(
    output: Path,
    cfg: ConfigPaths,
    history: list[dict],
    data_size: int,
    total_steps: int,
    seconds: float | None = None,
) -> None:
    """``training/``: the configuration, the per-step losses and the loss-curve plot; then
    the folder's card (``README.md``, :func:`pearl.evaluation.model_card.write_card`)."""
    log = Path(output) / "training"
    with atomic_path(log / "config.json") as tmp:
        tmp.write_text(
            json.dumps(
                {
                    **cfg.to_dict(),
                    "training_pairs": data_size,
                    "total_steps": total_steps,
                    "train_seconds": round(seconds, 1) if seconds is not None else None,
                },
                indent=2,
            )
        )
    keys = ["step", "loss", "contrastive", "type", "lr", "phrases_per_s"]
    keys += [k for k in _logged_terms(history) if k not in keys]
    with atomic_path(log / "loss.tsv") as tmp, open(tmp, "w", encoding="utf-8") as f:
        f.write("\t".join(keys) + "\n")
        for r in history:
            f.write("\t".join(f"{r.get(k, float('nan')):.6g}" for k in keys) + "\n")
    plot_losses(history, log / "loss.png")
    if any("dev" in r for r in history):
        write_dev_log(log / "dev.tsv", history)
    from pearl.evaluation.model_card import write_card

    write_card(output)  # the folder's README.md, from the record just written


def write_stage_record(output: Path, start: str | Path | None, name: str, params: dict) -> None:
    """``<output>/training/``: the training record of the ``start`` folder (if it has one),
    copied, and ``name`` holding ``params``: the record of a stage that made ``output``
    from ``start`` (``pearl finetune``, ``pearl add-split``), so that the folder's card
    still tells how its weights were made.

    Parameters
    ----------
    output : Path
        The model folder written by the stage.
    start : path-like or None
        The folder the stage started from (None or "": a stage from no folder, nothing copied).
    name : str
        The stage's record file, e.g. ``"surface_split.json"``.
    params : dict
        What the stage records (its command, its start).
    """
    import shutil

    from pearl._io import write_text_atomic

    log = Path(output) / "training"
    log.mkdir(exist_ok=True)
    source = Path(start) / "training" if start else None
    if source is not None and source.is_dir():
        for f in sorted(source.iterdir()):
            if f.is_file() and not f.is_symlink() and f.name != name:
                shutil.copyfile(f, log / f.name)
    write_text_atomic(log / name, json.dumps(params, indent=2) + "\n")


def dev_record(model, tasks: dict | None = None) -> dict[str, float]:
    """The development proxy's scores (:func:`pearl.evaluation.dev_proxy.dev_scores`) of a
    model in training, as ``dev``, ``dev_official``, ``dev_typo``: computed in eval mode
    without gradients or random draws (the run's weights and batches are unchanged), the
    model left in train mode."""
    from pearl.evaluation.dev_proxy import dev_scores

    model.eval()
    try:
        with torch.no_grad():
            scores = dev_scores(model, tasks)
    finally:
        model.train()
    logger.info("development scores: %s", scores)
    return {k if k == "dev" else f"dev_{k}": v for k, v in scores.items()}


def write_dev_log(path: Path, history: list[dict]) -> None:
    """The development scores of the steps that have them (``dev_every``), as a table:
    step, dev, and each task's score."""
    rows = [r for r in history if "dev" in r]
    keys = ["step", "dev"] + sorted({k for r in rows for k in r if k.startswith("dev_")})
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as f:
        f.write("\t".join(keys) + "\n")
        for r in rows:
            f.write("\t".join(f"{r.get(k, float('nan')):g}" for k in keys) + "\n")


def _logged_terms(history: list[dict]) -> list[str]:
    """The loss terms (and ``char_scale``) that any step of ``history`` logged, in the
    order they first appear: a batch may lack one (no context, no word negatives), and a
    run logs whatever terms its objective has."""
    skip = {"step", "loss", "lr", "phrases_per_s", "dev"}
    seen: dict[str, None] = {}
    for r in history:
        seen.update((k, None) for k in r if k not in skip and not k.startswith("dev_"))
    return list(seen)


def plot_losses(history: list[dict], path: Path, window: int = 20) -> None:
    """The loss curves (moving average over ``window`` steps)."""
    from pearl._extras import pyplot

    plt = pyplot("plotting the loss curves")

    fig, ax = plt.subplots(figsize=(7, 4))
    steps = np.array([r["step"] for r in history])
    for key in ["loss"] + [k for k in _logged_terms(history) if k != "char_scale"]:
        vals = np.array([r.get(key, np.nan) for r in history], dtype=float)
        if len(vals) == 0 or np.all(np.isnan(vals)):
            continue
        w = max(1, min(window, len(vals)))
        smooth = np.convolve(np.nan_to_num(vals), np.ones(w) / w, mode="valid")
        ax.plot(steps[w - 1 :], smooth, label=key)
    ax.set_xlabel("step")
    ax.set_ylabel(f"loss (moving average, {window} steps)")
    ax.set_title("PEARL training")
    ax.legend()
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=120, format=Path(path).suffix.lstrip(".") or "png")
    plt.close(fig)
