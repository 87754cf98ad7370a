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

import copy
import logging
import math
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
from tqdm.auto import tqdm

from pearl._io import check_io, check_replaceable_dir
from pearl._validation import check_choice, check_float, check_int
from pearl.encoders import DEFAULT_MODEL
from pearl.losses import batch_hard_triplet_loss, info_nce, multi_similarity_loss

__all__ = ["LabelledGroups", "read_labelled", "finetune", "FinetuneResult"]

logger = logging.getLogger(__name__)


@dataclass
class LabelledGroups:
    """Strings with a group id each (same id: same thing), and pairs of groups known to be
    different things."""

    texts: list[str]
    groups: np.ndarray
    different: set[tuple[int, int]] = field(default_factory=set)

    def __len__(self) -> int:
        return len(self.texts)

    @classmethod
    def from_pairs(cls, left, right, labels) -> LabelledGroups:
        """Groups from labelled pairs (1: the same thing, 0: different things)."""
        parent: dict[str, str] = {}

        def find(x: str) -> str:
            parent.setdefault(x, x)
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        rows = list(zip(left, right, labels, strict=True))
        for a, b, y in rows:
            find(a), find(b)
            if int(y) == 1:
                parent[find(a)] = find(b)
        roots: dict[str, int] = {}
        texts = list(parent)
        groups = np.array([roots.setdefault(find(t), len(roots)) for t in texts])
        gid = dict(zip(texts, groups.tolist(), strict=True))
        different = {
            tuple(sorted((gid[a], gid[b]))) for a, b, y in rows if int(y) == 0 and gid[a] != gid[b]
        }
        return cls(texts, groups, different)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> LabelledGroups:
        """From a table of pairs (``left, right, label``) or of groups (``text, group``)."""
        cols = set(frame.columns)
        if {"left", "right", "label"} <= cols:
            bad = ~frame["label"].isin([0, 1, "0", "1"])
            if bad.any():
                raise ValueError(
                    f"label must be 0 or 1; row {int(np.flatnonzero(bad)[0])} "
                    f"has {frame['label'][bad].iloc[0]!r}"
                )
            return cls.from_pairs(
                frame["left"].astype(str), frame["right"].astype(str), frame["label"].astype(int)
            )
        if {"text", "group"} <= cols:
            group = frame["group"]
            missing = group.isna() | group.astype(str).str.strip().str.lower().isin(_MISSING_IDS)
            if missing.all():
                raise ValueError("every row's group id is missing (blank, NA, null...)")
            if missing.any():  # a blank id would make one entity of unrelated strings
                logger.warning(
                    "dropping %d rows without a group id (blank, NA, null...), e.g. row %d",
                    int(missing.sum()),
                    int(np.flatnonzero(missing.to_numpy())[0]),
                )
                frame = frame[~missing.to_numpy()]
            texts = frame["text"].astype(str).tolist()
            codes, _ = pd.factorize(frame["group"])
            return cls(texts, np.asarray(codes))
        raise ValueError(
            "labelled data needs columns left, right, label (pairs) or text, "
            f"group (groups); got {sorted(cols)}"
        )

    def split(self, fraction: float, seed: int) -> tuple[LabelledGroups, LabelledGroups]:
        """Hold out ``fraction`` of the groups of two or more strings (for validation)."""
        ids, counts = np.unique(self.groups, return_counts=True)
        multi = ids[counts >= 2]
        rng = np.random.default_rng(seed)
        held = (
            set(rng.choice(multi, size=int(round(fraction * len(multi))), replace=False).tolist())
            if len(multi)
            else set()
        )
        keep = np.array([g not in held for g in self.groups.tolist()], dtype=bool)

        def part(mask: np.ndarray) -> LabelledGroups:
            present = set(self.groups[mask].tolist())
            return LabelledGroups(
                [t for t, m in zip(self.texts, mask, strict=True) if m],
                self.groups[mask],
                {p for p in self.different if set(p) <= present},
            )

        return part(keep), part(~keep)


#: group ids that mean "no group" (compared stripped and lower-cased)
_MISSING_IDS = frozenset({"", "na", "n/a", "nan", "null", "none", "<na>", "nat"})


def read_labelled(path: str | Path) -> LabelledGroups:
    """Read labelled matches from a CSV file (see :meth:`LabelledGroups.from_frame`)."""
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    if "label" in frame.columns:
        frame["label"] = frame["label"].str.strip()
    return LabelledGroups.from_frame(frame)


def _batches(data: LabelledGroups, batch_size: int, per_group: int, rng: random.Random):
    """One epoch of batches: groups of two or more strings, ``per_group`` members each,
    with the groups they are known to differ from pulled into the same batch."""
    members: dict[int, list[int]] = {}
    for i, g in enumerate(data.groups.tolist()):
        members.setdefault(g, []).append(i)
    partners: dict[int, list[int]] = {}
    for a, b in data.different:
        partners.setdefault(a, []).append(b)
        partners.setdefault(b, []).append(a)
    order = [g for g, m in members.items() if len(m) >= 2]
    rng.shuffle(order)
    batch: list[int] = []
    seen: set[int] = set()
    for g in order:
        for h in [g, *partners.get(g, [])]:
            if h in seen or len(batch) >= batch_size:
                continue
            seen.add(h)
            m = members[h][:]
            rng.shuffle(m)
            batch += m[:per_group]
        if len(batch) >= batch_size:
            yield batch[:batch_size]
            batch, seen = [], set()
    if len(set(data.groups[batch].tolist())) >= 2:
        yield batch


def _top1(model, data: LabelledGroups, batch_size: int = 256) -> float:
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
class FinetuneResult:
    """Where the model was saved, and how validation went."""

    output: Path
    epochs: int
    best_epoch: int
    validation_top1: list[float]
    seconds: float


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
        transformer, 1e-3 for a GloVe encoder).
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
    record : dict, optional
        Extra entries for the folder's training record (the CLI adds its command line).

    Notes
    -----
    The folder gets ``training/finetune.json``: the starting model, every parameter, the
    number of groups and the validation history. When ``model`` is a folder with a
    ``training/`` record of its own (``pearl train``, ``pearl train-static``), its files are
    copied beside it (its own ``finetune.json`` excepted), so the record of a model trained,
    then fine-tuned, tells both stages.
    """
    from pearl.encoders.resolve import model_folder
    from pearl.training.saving import average_weights, save_model

    loss = check_choice(loss, "loss", ("ms", "infonce", "triplet"))
    encoder = check_choice(encoder, "encoder", ("transformer", "bilstm", "cnn"))
    if lr is None:
        lr = 2e-5 if encoder == "transformer" else 1e-3
    epochs, batch_size = check_int(epochs, "epochs", 1), check_int(batch_size, "batch_size", 2)
    per_group, patience = check_int(per_group, "per_group", 2), check_int(patience, "patience", 1)
    validation = check_float(validation, "validation", 0.0, 0.9)
    max_steps = check_int(max_steps, "max_steps", 0)
    average_weight = check_float(average_weight, "average_weight", 0.0, 1.0)
    check_float(lr, "lr", 0.0)
    save_dtype = check_choice(save_dtype, "save_dtype", ("float32", "float16"))
    output = Path(output)
    check_io({"output": output}, [model_folder(model) if encoder == "transformer" else None])
    check_replaceable_dir(output, "modules.json")
    if len(np.unique(data.groups)) < 2 or not (np.bincount(data.groups) >= 2).any():
        raise ValueError(
            "the labelled data needs at least one group of two matching strings and one other group"
        )
    train_data, val_data = data.split(validation, seed) if validation else (data, None)
    torch.manual_seed(seed)
    rng = random.Random(seed)
    start, st = _start_model(model, encoder, data)
    initial = (
        {k: v.detach().clone() for k, v in st.state_dict().items()} if average_weight else None
    )
    opt = torch.optim.AdamW(st.parameters(), lr=lr)
    t0 = time.time()

    def objective(emb, groups):
        return _objective(loss, emb, groups, alpha, beta, base, epsilon, temperature, margin)

    epoch, best_epoch, history = _fit(
        st,
        opt,
        objective,
        train_data,
        val_data,
        rng,
        (epochs, batch_size, per_group, patience, max_steps),
        show_progress_bar,
    )
    if initial is not None:
        average_weights(st, initial, average_weight)
    save_model(st, output, save_dtype, normalize=True)
    seconds = time.time() - t0
    options = (
        epochs,
        batch_size,
        per_group,
        lr,
        validation,
        patience,
        max_steps,
        average_weight,
        save_dtype,
        seed,
    )
    params = {
        "start": str(model) if start is not None else None,
        "encoder": encoder,
        "loss": loss,
        **dict(zip(_OPTIONS, options, strict=True)),
        "strings": len(data),
        "groups": int(len(np.unique(data.groups))),
        "epochs_run": epoch,
        "best_epoch": best_epoch,
        "validation_top1": [None if math.isnan(x) else x for x in history],
        "seconds": round(seconds, 1),
        **(record or {}),
    }
    _write_record(output, start, params)
    return FinetuneResult(output, epoch, best_epoch, history, seconds)


_OPTIONS = (
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


def _fit(st, opt, objective, train_data, val_data, rng, limits, show_progress_bar):
    """The epochs of :func:`finetune`: train, validate, keep the best weights (loaded into
    ``st`` at the end), stop early; returns (epochs run, best epoch, validation history)."""
    epochs, batch_size, per_group, patience, max_steps = limits
    best, best_state, history, since, best_epoch = -math.inf, None, [], 0, 0
    epoch = steps = 0
    for epoch in range(1, epochs + 1):
        st.train()
        batches = list(_batches(train_data, batch_size, per_group, rng))
        if max_steps:
            batches = batches[: max_steps - steps]
        steps += len(batches)
        bar = tqdm(
            batches, desc=f"finetune epoch {epoch}", unit="batch", disable=not show_progress_bar
        )
        _train_epoch(st, opt, train_data, bar, objective)
        st.eval()
        score = _top1(st, val_data) if val_data is not None and len(val_data) else math.nan
        history.append(score)
        logger.info("epoch %d: validation top-1 %.4f", epoch, score)
        if math.isnan(score) or score > best:
            best, since = (score if not math.isnan(score) else best), 0
            best_state = copy.deepcopy(st.state_dict())
            best_epoch = epoch
        else:
            since += 1
            if since >= patience:
                break
        if max_steps and steps >= max_steps:
            break
    if best_state is not None:
        st.load_state_dict(best_state)
    return epoch, best_epoch, history


def _train_epoch(st, opt, data: LabelledGroups, batches, objective) -> None:
    """One pass over ``batches`` (lists of row ids of ``data``), one optimiser step each."""
    for idx in batches:
        texts = [data.texts[i] for i in idx]
        groups = torch.as_tensor(data.groups[idx])
        value = objective(st(st.preprocess(texts))["sentence_embedding"], groups)
        opt.zero_grad(set_to_none=True)
        value.backward()
        opt.step()


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


def _write_record(output: Path, start: str | None, params: dict) -> None:
    """``<output>/training/``: the start folder's own training record (if any), copied,
    and ``finetune.json``."""
    import json
    import shutil

    from pearl._io import write_text_atomic

    log = output / "training"
    log.mkdir(exist_ok=True)
    source = Path(start) / "training" if start else None
    if source is not None and source.is_dir():
        for f in sorted(source.iterdir()):
            if f.is_file() and not f.is_symlink() and f.name != "finetune.json":
                shutil.copyfile(f, log / f.name)
    write_text_atomic(log / "finetune.json", json.dumps(params, indent=2) + "\n")


def _objective(
    loss: str,
    emb: torch.Tensor,
    groups: torch.Tensor,
    alpha: float,
    beta: float,
    base: float,
    epsilon: float,
    temperature: float,
    margin: float,
) -> torch.Tensor:
    if loss == "ms":
        return multi_similarity_loss(
            emb, groups, alpha=alpha, beta=beta, base=base, epsilon=epsilon
        )
    # one (anchor, positive) pair per group of the batch: its first two members
    first: dict[int, list[int]] = {}
    for i, g in enumerate(groups.tolist()):
        first.setdefault(g, []).append(i)
    pairs = [(m[0], m[1]) for m in first.values() if len(m) >= 2]
    a = emb[[p[0] for p in pairs]]
    p = emb[[p[1] for p in pairs]]
    if loss == "infonce":
        return info_nce(a, p, temperature=temperature)
    return batch_hard_triplet_loss(a, p, margin=margin)
