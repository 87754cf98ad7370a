"""The checks of a model folder that read nothing but JSON and file metadata.

:func:`check_model_folder` applies the rules of :mod:`pearl.models.loading` (no pickle
weights, no link or shard out of the folder, regular files only, bounded JSON, no
``auto_map``, module types from :func:`module_registry` only). It imports neither torch nor
sentence-transformers unless a folder names a module type outside :data:`TORCH_FREE_TYPES`,
so the torch-free static model (:mod:`pearl.models.static_inference`) is checked by the same
rules at no import cost.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from pearl._io import read_json
from pearl.models.static_inference import NORMALIZE_TYPES, STATIC_TYPE

__all__ = [
    "PICKLE_SUFFIXES",
    "SAFE_MODEL_KWARGS",
    "TORCH_FREE_TYPES",
    "check_model_folder",
    "module_registry",
    "read_modules",
    "untrusted_modules",
]

#: ``modules.json`` types known to be in :func:`module_registry` without building it (so
#: without importing sentence-transformers): pearl-static's module and ``Normalize``
TORCH_FREE_TYPES = NORMALIZE_TYPES | {STATIC_TYPE}

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
    from sentence_transformers.sentence_transformer.modules import Transformer

    from pearl.models.fusion import CharFusion
    from pearl.models.glove_sequence import GloveSequenceEncoder
    from pearl.models.raw_text import RawTextTransformer
    from pearl.models.static import StaticPhraseEmbedding
    from pearl.models.strict_transformer import StrictTransformer
    from pearl.models.surface import StaticConcat
    from pearl.models.surface_split import SurfaceSplitTransformer

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
            "pearl.models.surface.StaticConcat": StaticConcat,
            "pearl.models.surface_split.SurfaceSplitTransformer": SurfaceSplitTransformer,
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
    return [
        e["type"]
        for e in entries
        if e["type"] not in TORCH_FREE_TYPES and e["type"] not in module_registry()
    ]


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
