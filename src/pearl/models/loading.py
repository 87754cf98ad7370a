"""The one way pearl opens a model folder: a strict loader that treats the folder as data.

A model folder a user received may come from anyone (``docs/security.md``). Opening it must
never run code, whatever its files say. :func:`open_model_folder` therefore

* refuses weights in a pickle-based format (``.bin``, ``.pt``, ``.pth``, ``.pkl``,
  ``.pickle``, ``.ckpt``, ``.joblib``): only safetensors weights are read;
* refuses a symbolic link that leads out of the folder, a sharded checkpoint's index
  (``*.safetensors.index.json``) naming a weight file outside it, and anything but
  regular files (a FIFO named like a config file would block the first read);
* reads every JSON file of the folder itself, bounded in size and depth (a deeply nested
  file is an ``OSError`` naming it, not a ``RecursionError``), and refuses an ``auto_map``
  (code named by the folder) in any of them;
* takes every module class from an explicit registry of the installed packages
  (:func:`module_registry`: sentence-transformers' plain modules and pearl's own), never
  importing a class named by the folder;
* loads the transformer through :class:`StrictTransformer`, which passes on only the keys of
  ``sentence_bert_config.json`` it knows: no ``model_kwargs``, ``config_kwargs``,
  ``processor_kwargs`` or tokenizer path from the folder reaches transformers (a ``dtype``
  among float32/float16/bfloat16 is the one model keyword kept), and pearl itself forces
  ``use_safetensors=True`` and ``weights_only=True``.

``trust_remote_code=True`` lifts the registry and ``auto_map`` rules for a folder the caller
made or trusts; the pickle-weight, link and JSON rules always hold.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from pathlib import Path

from pearl._io import read_json
from pearl.models.folder_checks import (
    PICKLE_SUFFIXES,
    SAFE_MODEL_KWARGS,
    check_model_folder,
    module_registry,
    read_modules,
    untrusted_modules,
)
from pearl.models.strict_transformer import StrictTransformer, strict_transformer_config

__all__ = [
    "module_registry",
    "StrictTransformer",
    "check_model_folder",
    "open_model_folder",
    "read_modules",
    "untrusted_modules",
    "PICKLE_SUFFIXES",
    "SAFE_MODEL_KWARGS",
    "strict_transformer_config",
    "check_loaded_transformer",
    "saved_weight_names",
    "TOKENIZER_FILES",
]

logger = logging.getLogger(__name__)


def open_model_folder(
    path: str | os.PathLike,
    device: str | None = "cpu",
    trust_remote_code: bool = False,
    root: str | os.PathLike | None = None,
):
    """``SentenceTransformer`` of a local folder, opened as data (see the module docstring).

    Parameters
    ----------
    path : path-like
    device : str, optional
    trust_remote_code : bool, default=False
    root : path-like, optional
        See :func:`check_model_folder`.

    Raises
    ------
    OSError
        A rule is broken, or any failure while loading (naming the folder).
    """
    from sentence_transformers import SentenceTransformer

    entries = check_model_folder(path, trust_remote_code, root)
    classes = {
        e["type"]: module_registry()[e["type"]] for e in entries if e["type"] in module_registry()
    }
    loader = getattr(SentenceTransformer, "_load_with_module_classes", None)
    if loader is None:  # a private method: pinned by tests/models/test_loading.py
        raise OSError(
            "this sentence-transformers version has no _load_with_module_classes, which "
            "pearl's strict loader builds a model folder with; install "
            "sentence-transformers 6.x (pip install 'sentence-transformers>=6,<7')"
        )
    try:
        with _quiet_weights():
            model = loader(
                str(path),
                classes,
                device=device,
                local_files_only=True,
                trust_remote_code=trust_remote_code,
                model_kwargs=dict(SAFE_MODEL_KWARGS),
            )
    except MemoryError:
        raise OSError(out_of_memory(path)) from None
    except SystemError as exc:  # a C extension whose allocation failed, without saying so
        raise OSError(f"{out_of_memory(path)} ({exc})") from None
    except Exception as exc:
        reason = str(exc) or type(exc).__name__
        raise OSError(f"could not load the model folder {path}: {reason}") from exc
    for entry, module in zip(entries, model, strict=False):
        if getattr(module, "auto_model", None) is not None:
            check_loaded_transformer(module, Path(path) / entry.get("path", ""))
    check_finite_weights(model, path)
    return model


def out_of_memory(path: str | os.PathLike) -> str:
    """The message of a model folder that could not be loaded for want of memory (a
    tokenizer or safetensors reader says only "returned NULL without setting an
    exception" then)."""
    return (
        f"could not load the model folder {path}: out of memory (free memory, or use a "
        "smaller model such as pearl-static)"
    )


def check_finite_weights(model, path: str | os.PathLike) -> None:
    """Refuse a model whose weights hold NaN or infinity: every vector it gives would be
    NaN (``similarity`` ranked by NaN, a join matched nothing, an index was unreadable).

    Raises
    ------
    OSError
        Naming the folder and the first such tensor.
    """
    import torch

    for name, tensor in model.state_dict().items():
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise OSError(
                f"the model folder {path} holds NaN or infinite weights ({name}); the file "
                "is corrupt or was saved from a diverged training run"
            )


@contextlib.contextmanager
def _quiet_weights() -> Iterator[None]:
    """transformers' "Loading weights" bar off while a local folder loads (a bar a load,
    under a second, on every command and notebook cell that opens a model); restored
    after."""
    from transformers.utils import logging as hf_logging

    shown = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if shown:
            hf_logging.enable_progress_bar()


#: files that carry a tokenizer's vocabulary (without one, transformers builds a tokenizer
#: that maps every word to [UNK])
TOKENIZER_FILES = (
    "tokenizer.json",
    "vocab.txt",
    "vocab.json",
    "spiece.model",
    "sentencepiece.bpe.model",
    "tokenizer.model",
)
#: architectures whose position ids start after the padding index
_POSITION_OFFSET_TYPES = {"roberta", "xlm-roberta", "camembert", "mpnet", "longformer"}


def saved_weight_names(folder: str | os.PathLike) -> set[str]:
    """The tensor names of a folder's safetensors weights (headers only, nothing loaded):
    ``model.safetensors`` or the shards a ``model.safetensors.index.json`` names."""
    from safetensors import safe_open

    folder = Path(folder)
    index = folder / "model.safetensors.index.json"
    if index.is_file():
        weight_map = read_json(index, "weight index")
        return set(weight_map.get("weight_map", {})) if isinstance(weight_map, dict) else set()
    names: set[str] = set()
    for file in sorted(folder.glob("*.safetensors")):
        with safe_open(str(file), framework="pt") as f:
            names.update(f.keys())
    return names


def check_loaded_transformer(module, folder: Path) -> None:
    """Refuse a transformer that transformers loaded "successfully" from a broken folder.

    transformers initialises missing weights at random and builds an all-[UNK] tokenizer
    when the vocabulary files are missing, without failing; every encoding is then garbage
    (different at each run for random weights). A ``max_seq_length`` above the model's
    position table is lowered to it with a warning (it made long inputs fail).

    Raises
    ------
    OSError
        No tokenizer vocabulary file; weights of the architecture missing from the
        safetensors files (another ``model_type``, or tensors removed); a vocabulary larger
        than the embedding table.
    """
    model = module.auto_model
    if not any((folder / name).is_file() for name in TOKENIZER_FILES):
        raise OSError(
            f"{folder} has no tokenizer vocabulary ({', '.join(TOKENIZER_FILES)}): every "
            "word would be encoded as [UNK]; copy the tokenizer files into the folder"
        )
    saved = saved_weight_names(folder)
    prefix = getattr(model, "base_model_prefix", "")
    missing = [
        name
        for name, _ in model.named_parameters()
        if name not in saved and f"{prefix}.{name}" not in saved
    ]
    if missing:
        kind = getattr(model.config, "model_type", "?")
        raise OSError(
            f"{folder}: {len(missing)} weight(s) of its {kind!r} architecture are not in "
            f"its safetensors files (e.g. {', '.join(missing[:3])}); transformers would "
            "initialise them at random. The weights are missing or config.json names "
            "another model_type."
        )
    rows = model.get_input_embeddings().num_embeddings
    # the largest id, not the count of entries: a vocabulary may skip ids
    ids = max(len(module.tokenizer), max(module.tokenizer.get_vocab().values(), default=-1) + 1)
    if ids > rows:
        raise OSError(
            f"{folder}: the tokenizer has ids up to {ids - 1:,} but the embedding table "
            f"{rows:,} rows; ids past the table cannot be embedded"
        )
    limit = getattr(model.config, "max_position_embeddings", None)
    if isinstance(limit, int) and getattr(model.config, "model_type", "") in (
        _POSITION_OFFSET_TYPES
    ):
        limit -= (getattr(model.config, "pad_token_id", None) or 0) + 1
    if isinstance(limit, int) and (module.max_seq_length or 0) > limit:
        logger.warning(
            "%s: max_seq_length %s is above the model's %s positions; using %s",
            folder,
            module.max_seq_length,
            limit,
            limit,
        )
        module.max_seq_length = limit
