"""Task-specific fine-tuning from a user's labelled matches (SentPWNet's recipe).

A team with a few thousand labelled matches ("these two company names are the same, these
are not") specialises a model for its data: the labels become groups of equivalent strings
(the connected components of the matching pairs; a string seen only in non-matching pairs
is a group of its own), batches hold several members of several groups, and the model is
trained with the multi-similarity loss with locality weighting and epsilon mining
(:func:`pearl.losses.multi_similarity_loss`; ``loss="infonce"`` or ``"triplet"`` for the
other objectives). Groups named in a non-matching pair are put in the same batch, so those
pairs act as hard negatives. A share of the groups is held out; training stops when their
top-1 retrieval accuracy stops improving, and the best weights are saved as an ordinary
model folder that every pearl tool loads.
"""

from __future__ import annotations

import logging
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from pearl._io import check_io, check_replaceable_dir
from pearl.encoders import DEFAULT_MODEL
from pearl.training.checkpoint import STATE, check_fresh_run
from pearl.training.finetune_loop import FinetuneLoop, FinetuneOptions
from pearl.training.labelled import LabelledGroups, read_labelled
from pearl.training.objective import group_objective

__all__ = [
    "LabelledGroups",
    "read_labelled",
    "finetune",
    "run_finetune",
    "FinetuneOptions",
    "FinetuneResult",
]

logger = logging.getLogger(__name__)


@dataclass
class FinetuneResult:
    """Where the model was saved (None when the run was interrupted: the checkpoint in
    ``checkpoints`` continues it), and how validation went."""

    output: Path | None
    epochs: int
    best_epoch: int
    validation_top1: list[float]
    seconds: float
    interrupted: bool = False
    checkpoints: Path | None = None


def finetune(
    data: LabelledGroups,
    output: str | Path,
    *,
    model: Any = DEFAULT_MODEL,
    loss: str = "ms",
    encoder: str = "transformer",
    epochs: int = 10,
    batch_size: int = 64,
    per_group: int = 4,
    lr: float | None = None,
    validation: float = 0.1,
    patience: int = 2,
    alpha: float = 2.0,
    beta: float = 50.0,
    base: float = 0.5,
    epsilon: float = 0.1,
    temperature: float = 0.05,
    margin: float = 1.0,
    max_steps: int = 0,
    average_weight: float = 0.0,
    save_dtype: str = "float32",
    seed: int = 0,
    checkpoint_every: int = 200,
    checkpoint_dir: str | Path | None = None,
    resume: bool = False,
    record: dict | None = None,
    show_progress_bar: bool = True,
) -> FinetuneResult:
    """Fine-tune ``model`` on labelled groups and save the best weights to ``output``.

    Parameters
    ----------
    data : LabelledGroups
        From :func:`read_labelled` or :meth:`LabelledGroups.from_pairs`.
    output : path-like
        Model folder to write (an existing model folder is replaced; any other non-empty
        folder is refused).
    model : str, default=DEFAULT_MODEL
        A model name or folder (any sentence-transformers model, pearl's included).
    encoder : {"transformer", "bilstm", "cnn"}, default="transformer"
        Fine-tune ``model``, or train SentPWNet's lightweight encoder from GloVe 6B 50-d
        vectors instead (:class:`~pearl.models.glove_sequence.GloveSequenceEncoder`: its
        50,000 most frequent words plus those of ``data``; ``model`` is then unused).
    loss : {"ms", "infonce", "triplet"}, default="ms"
        SentPWNet's multi-similarity loss, InfoNCE over in-group pairs, or a batch-hard
        triplet loss.
    epochs, batch_size, per_group, lr
        At most ``epochs`` passes over the groups; batches of ``batch_size`` strings,
        ``per_group`` members of each group; AdamW at ``lr`` (default 2e-5 for a
        transformer; 1e-3 for a model of static token vectors, such as pearl-static or a
        model2vec model, and for a GloVe encoder).
    validation : float, default=0.1
        Share of the groups held out; their top-1 retrieval accuracy chooses the epoch.
    patience : int, default=2
        Stop after this many epochs without a better validation score.
    alpha, beta, base, epsilon : float
        The multi-similarity loss's parameters.
    temperature, margin : float
        Of the InfoNCE and triplet objectives.
    max_steps : int, default=0
        When > 0, stop after this many batches in all (the epoch under way is then
        validated and counts as the last); 0: no cap.
    average_weight : float, default=0.0
        When > 0, the saved weights are ``average_weight * original + (1 -
        average_weight) * fine-tuned`` (PEARL's averaging of original and fine-tuned
        weights, which keeps what the original knew beyond the labelled groups).
    save_dtype : {"float32", "float16"}, default="float32"
        Storage type of the saved weights (a float16 folder still computes in float32;
        pearl-static is shipped in float16).
    seed : int, default=0
    checkpoint_every : int, default=200
        Write a checkpoint every this many batches (also at the end of every epoch, and on
        SIGINT or SIGTERM, which stop the run after the current batch): an interrupted run
        loses at most this many batches.
    checkpoint_dir : path-like, optional
        Where checkpoints go (default ``<output>.checkpoints``); removed once the model
        folder is saved.
    resume : bool, default=False
        Continue from the checkpoint in ``checkpoint_dir`` (same data and options; a
        resumed run ends on the same weights as an uninterrupted one). Without a
        checkpoint there, the run starts from scratch with a warning.
    record : dict, optional
        Extra entries for the folder's training record (the CLI adds its command line).

    Notes
    -----
    The folder gets ``training/finetune.json``: the starting model, every parameter, the
    number of groups and the validation history. When ``model`` is a folder with a
    ``training/`` record of its own (``pearl train``, ``pearl train-static``), its files are
    copied beside it, and the start's own fine-tuning records go under
    ``"earlier_stages"``, so the record of a model trained, then fine-tuned (once or more),
    tells every stage. The folder's ``README.md`` is its own card, never the starting
    model's (:func:`pearl.evaluation.model_card.write_card`).
    """
    options = FinetuneOptions(
        loss=loss,
        encoder=encoder,
        epochs=epochs,
        batch_size=batch_size,
        per_group=per_group,
        lr=lr,
        validation=validation,
        patience=patience,
        max_steps=max_steps,
        average_weight=average_weight,
        save_dtype=save_dtype,
        seed=seed,
        alpha=alpha,
        beta=beta,
        base=base,
        epsilon=epsilon,
        temperature=temperature,
        margin=margin,
        checkpoint_every=checkpoint_every,
    )
    return run_finetune(
        data,
        Path(output),
        options,
        model=model,
        checkpoints=checkpoint_dir,
        resume=resume,
        record=record,
        show_progress_bar=show_progress_bar,
    )


def run_finetune(
    data: LabelledGroups,
    output: Path,
    options: FinetuneOptions,
    *,
    model: Any,
    checkpoints: str | Path | None = None,
    resume: bool = False,
    record: dict | None = None,
    show_progress_bar: bool = True,
) -> FinetuneResult:
    """:func:`finetune` with its options checked (a :class:`FinetuneOptions`, e.g. from a
    configuration file: :meth:`FinetuneOptions.from_file`); ``checkpoints`` defaults to
    ``<output>.checkpoints``."""
    checkpoints = Path(checkpoints) if checkpoints else Path(f"{output}.checkpoints")
    from pearl.encoders.resolve import model_folder
    from pearl.training.saving import average_weights, save_model

    check_io(
        {"output": output, "checkpoint_dir": checkpoints},
        [model_folder(model) if options.encoder == "transformer" else None],
    )
    check_replaceable_dir(output, "modules.json")
    check_replaceable_dir(checkpoints, STATE)
    check_fresh_run(checkpoints, resume)
    _check_data(data)
    seed = options.seed
    train_data, val_data = (
        data.split(options.validation, seed) if options.validation else (data, None)
    )
    torch.manual_seed(seed)
    rng = random.Random(seed)
    start, st = _start_model(model, options.encoder, data)
    if options.lr is None:  # a table of vectors learns at a GloVe encoder's rate
        options = options.with_lr(
            1e-3 if options.encoder != "transformer" or _is_static(st) else 2e-5
        )
    w = options.average_weight
    initial = {k: v.detach().clone() for k, v in st.state_dict().items()} if w else None
    params = {
        "start": str(model) if start is not None else None,
        **options.record(),
        "strings": len(data),
        "groups": int(len(np.unique(data.groups))),
    }
    loop = FinetuneLoop(
        st,
        torch.optim.AdamW(st.parameters(), lr=options.lr),
        group_objective(options.loss, **options.losses()),
        (train_data, val_data),
        options,
        checkpoints,
        {**params, "data": data.fingerprint()},
        show_progress_bar,
    )
    progress, interrupted = loop.run(rng, loop.resume(rng) if resume else None)
    history = progress.history
    if interrupted:
        logger.warning("interrupted; the checkpoint in %s continues it (resume=True)", checkpoints)
        return FinetuneResult(
            None, len(history), progress.best_epoch, history, loop.seconds(), True, checkpoints
        )
    if initial is not None:
        average_weights(st, initial, w)
    save_model(st, output, options.save_dtype, normalize=True)
    seconds = loop.seconds()
    params.update(
        epochs_run=len(history),
        best_epoch=progress.best_epoch,
        validation_top1=[None if math.isnan(x) else x for x in history],
        seconds=round(seconds, 1),
        **(record or {}),
    )
    _write_record(output, start, params)
    from pearl.evaluation.model_card import write_card

    write_card(output)
    loop.remove_checkpoints()
    return FinetuneResult(output, len(history), progress.best_epoch, history, seconds)


def _start_model(model: Any, encoder: str, data: LabelledGroups):
    """The folder fine-tuning starts from (None for a GloVe encoder) and the model."""
    from pearl.encoders.resolve import resolve_model_path
    from pearl.models.pearl_model import load_pearl_model

    if encoder == "transformer":
        start = resolve_model_path(str(model))
        return start, load_pearl_model(start)
    from sentence_transformers import SentenceTransformer

    from pearl.models.glove_sequence import GloveSequenceEncoder

    return None, SentenceTransformer(
        modules=[GloveSequenceEncoder.from_glove(encoder, texts=data.texts)], device="cpu"
    )


def _check_data(data: LabelledGroups) -> None:
    if len(np.unique(data.groups)) < 2 or not (np.bincount(data.groups) >= 2).any():
        raise ValueError(
            "the labelled data needs at least one group of two matching strings and one other group"
        )


def _is_static(st) -> bool:
    """Whether the model is a table of token vectors (pearl-static, model2vec)."""
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding

    return isinstance(st[0], StaticEmbedding)


def _write_record(output: Path, start: str | None, params: dict) -> None:
    """``<output>/training/``: the start folder's own training record (if any), copied,
    and ``finetune.json`` (:func:`~pearl.training.saving.write_stage_record`)."""
    from pearl._io import read_json_object
    from pearl.training.saving import write_stage_record

    earlier = Path(start) / "training" / "finetune.json" if start else None
    if earlier is not None and earlier.is_file():  # a fine-tuned start: its stages come first
        before = read_json_object(earlier, "fine-tuning record")
        params = {"earlier_stages": [*before.pop("earlier_stages", []), before], **params}
    write_stage_record(output, start, "finetune.json", params)
