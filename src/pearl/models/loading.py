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

import functools
import logging
import os
from pathlib import Path

from sentence_transformers.sentence_transformer.modules import Transformer

from pearl._io import read_json
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

#: weight files in a pickle-based format; a folder holding one is refused
PICKLE_SUFFIXES = frozenset({".bin", ".pt", ".pth", ".pkl", ".pickle", ".ckpt", ".joblib"})
#: the keyword arguments pearl always hands transformers, over anything a folder says
SAFE_MODEL_KWARGS = {"use_safetensors": True, "weights_only": True}


@functools.cache
def module_registry() -> dict[str, type]:
    """``modules.json`` type -> the installed class pearl builds it with: the plain
    sentence-transformers modules (the transformer as :class:`StrictTransformer`) under
    each of their import paths, and pearl's own modules."""
    from sentence_transformers.base.modules.dense import Dense
    from sentence_transformers.base.modules.normalize import Normalize
    from sentence_transformers.sentence_transformer import modules as st

    from pearl.models.fusion import CharFusion
    from pearl.models.glove_sequence import GloveSequenceEncoder
    from pearl.models.raw_text import RawTextTransformer
    from pearl.models.static import StaticPhraseEmbedding

    plain = {
        "Pooling": st.Pooling,
        "Normalize": Normalize,
        "Dense": Dense,
        "StaticEmbedding": st.StaticEmbedding,
        "LayerNorm": st.LayerNorm,
        "Dropout": st.Dropout,
        "WeightedLayerPooling": st.WeightedLayerPooling,
        "WordWeights": st.WordWeights,
        "CNN": st.CNN,
        "LSTM": st.LSTM,
    }
    registry: dict[str, type] = {}
    for name, cls in [*plain.items(), ("Transformer", Transformer)]:
        target = StrictTransformer if cls is Transformer else cls
        for ref in (
            f"{cls.__module__}.{name}",
            f"sentence_transformers.models.{name}",
            f"sentence_transformers.sentence_transformer.modules.{name}",
            f"sentence_transformers.base.modules.{name}",
        ):
            registry[ref] = target
    registry.update(
        {
            "pearl.models.fusion.CharFusion": CharFusion,
            "pearl.models.raw_text.RawTextTransformer": RawTextTransformer,
            "pearl.models.static.StaticPhraseEmbedding": StaticPhraseEmbedding,
            "pearl.models.glove_sequence.GloveSequenceEncoder": GloveSequenceEncoder,
        }
    )
    return registry


def read_modules(path: str | os.PathLike) -> list[dict]:
    """The entries of a folder's ``modules.json``, checked for shape.

    Raises
    ------
    OSError
        The file is missing, is not JSON, or is not a list of ``{"type", "path"}`` entries.
    """
    modules = Path(path) / "modules.json"
    if not modules.is_file():
        raise OSError(f"{path} is not a sentence-transformers folder (no modules.json)")
    entries = read_json(modules, "modules.json")
    if not isinstance(entries, list) or not all(
        isinstance(e, dict)
        and isinstance(e.get("type"), str)
        and isinstance(e.get("path", ""), str)
        for e in entries
    ):
        raise OSError(f"{modules} is not a list of module entries with a 'type' and a 'path'")
    return entries


def untrusted_modules(entries: list[dict]) -> list[str]:
    """Module types outside :func:`module_registry` (loading them would import code)."""
    return [e["type"] for e in entries if e["type"] not in module_registry()]


def check_model_folder(
    path: str | os.PathLike, trust_remote_code: bool = False, root: str | os.PathLike | None = None
) -> list[dict]:
    """Check a model folder against the rules of the module docstring, reading nothing
    but JSON; returns its ``modules.json`` entries.

    Parameters
    ----------
    path : path-like
    trust_remote_code : bool, default=False
        Allow module types outside the registry and an ``auto_map``.
    root : path-like, optional
        Where links may lead (the folder itself by default; the model's Hugging Face cache
        folder, whose snapshots link into its ``blobs/``).

    Raises
    ------
    OSError
        Naming the file that breaks a rule.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise OSError(f"model folder not found: {folder}")
    entries = read_modules(folder)
    base = Path(os.path.realpath(root if root is not None else folder))
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            if p.is_symlink():
                target = Path(os.path.realpath(p))
                if not target.is_relative_to(base):
                    raise OSError(
                        f"{p} is a link to {target}, outside the model folder; "
                        "pearl does not follow it"
                    )
        for name in filenames:
            p = Path(dirpath) / name
            if not p.is_file():  # a FIFO would block the first read forever
                raise OSError(f"{p} is not a regular file; a model folder holds files only")
            if p.suffix.lower() in PICKLE_SUFFIXES:
                raise OSError(
                    f"{p}: weights in a pickle-based format can run code when loaded; pearl "
                    "reads safetensors weights only (convert the model with "
                    "save_pretrained(safe_serialization=True) where you trust it)"
                )
            if p.suffix.lower() == ".json" and name != "tokenizer.json":
                data = read_json(p, "model configuration")
                if isinstance(data, dict) and "weight_map" in data:
                    _check_weight_map(p, data["weight_map"], base)
                if isinstance(data, dict) and "auto_map" in data and not trust_remote_code:
                    raise OSError(
                        f"{p} names code to run (auto_map); pearl does not load code from a "
                        "model folder. Pass trust_remote_code=True only if you trust where "
                        "this folder came from."
                    )
    foreign = untrusted_modules(entries)
    if foreign and not trust_remote_code:
        raise OSError(
            f"the model folder {folder} lists module type(s) {', '.join(map(repr, foreign))} "
            "in modules.json, which are neither sentence-transformers modules pearl knows nor "
            "pearl modules; loading them would execute code from the folder. Pass "
            "trust_remote_code=True only if you trust where this folder came from."
        )
    return entries


def _check_weight_map(index: Path, weight_map: object, base: Path) -> None:
    """Every shard a sharded checkpoint's index names is a file inside the model folder
    (an absolute path or ``..`` would have transformers read weights from anywhere)."""
    if not isinstance(weight_map, dict):
        raise OSError(f"corrupt {index}: 'weight_map' is not a mapping")
    for shard in set(weight_map.values()):
        target = Path(os.path.realpath(index.parent / str(shard)))
        if (
            not isinstance(shard, str)
            or os.path.isabs(shard)
            or ".." in Path(shard).parts
            or not target.is_relative_to(base)
        ):
            raise OSError(
                f"{index} names the weight file {shard!r}, outside the model folder; "
                "pearl reads weights from inside the folder only"
            )


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
        model = loader(
            str(path),
            classes,
            device=device,
            local_files_only=True,
            trust_remote_code=trust_remote_code,
            model_kwargs=dict(SAFE_MODEL_KWARGS),
        )
    except MemoryError:
        raise OSError(
            f"could not load the model folder {path}: out of memory (free memory, or use a "
            "smaller model such as pearl-static)"
        ) from None
    except Exception as exc:  # noqa: BLE001 - re-raised with context
        reason = str(exc) or type(exc).__name__
        raise OSError(f"could not load the model folder {path}: {reason}") from exc
    for entry, module in zip(entries, model, strict=False):
        if getattr(module, "auto_model", None) is not None:
            check_loaded_transformer(module, Path(path) / entry.get("path", ""))
    return model


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
    if len(module.tokenizer) > rows:
        raise OSError(
            f"{folder}: the tokenizer has {len(module.tokenizer):,} tokens but the embedding "
            f"table {rows:,} rows; ids past the table cannot be embedded"
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
