"""sentence-transformers' ``Transformer`` with its saved configuration filtered: the one
transformer module class pearl loads a folder with (see :mod:`pearl.models.loading`, the
folder checks and the module registry, which uses it)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from sentence_transformers.sentence_transformer.modules import Transformer

__all__ = ["StrictTransformer", "strict_transformer_config"]

logger = logging.getLogger(__name__)

#: ``sentence_bert_config.json`` keys passed on to ``Transformer`` (everything else dropped)
_TRANSFORMER_KEYS = {
    "max_seq_length": (int, type(None)),
    "do_lower_case": (bool,),
    "transformer_task": (str,),
    "modality_config": (dict,),
    "module_output_name": (str, type(None)),
    "unpad_inputs": (bool, type(None)),
    "query_length": (int, type(None)),
    "document_length": (int, type(None)),
}
_SAFE_DTYPES = {"float32", "float16", "bfloat16", "auto"}


class StrictTransformer(Transformer):
    """sentence-transformers' ``Transformer`` whose saved configuration is filtered to the
    keys pearl knows (see the module docstring). Saved exactly like its parent."""

    @classmethod
    def load_config(cls, model_name_or_path: str, subfolder: str = "", *args, **kwargs):
        config = super().load_config(model_name_or_path, subfolder, *args, **kwargs)
        return strict_transformer_config(config, Path(model_name_or_path) / subfolder)


# Saved under its parent's type, so that a folder pearl writes is a plain
# sentence-transformers folder that any tool loads (ST names a module by its class's
# __module__ and __name__).
StrictTransformer.__module__ = Transformer.__module__
StrictTransformer.__name__ = StrictTransformer.__qualname__ = Transformer.__name__


def strict_transformer_config(raw: dict, where: str | os.PathLike = "") -> dict:
    """The keys of a parsed ``sentence_bert_config.json`` that pearl passes on to
    ``Transformer``; the others are dropped with a warning naming them."""
    config = {
        k: v
        for k, v in raw.items()
        if k in _TRANSFORMER_KEYS
        and isinstance(v, _TRANSFORMER_KEYS[k])
        and not (isinstance(v, bool) and bool not in _TRANSFORMER_KEYS[k])
    }
    model_kwargs = raw.get("model_kwargs", raw.get("model_args")) or {}
    if not isinstance(model_kwargs, dict):
        model_kwargs = {"<not a mapping>": model_kwargs}
    dtype = model_kwargs.get("dtype", model_kwargs.get("torch_dtype"))
    if isinstance(dtype, str) and dtype in _SAFE_DTYPES:
        config["model_kwargs"] = {"dtype": dtype}
    dropped = [
        k
        for k in sorted(set(raw) - set(config) - {"model_kwargs", "model_args"})
        if raw[k] not in ({}, None)
    ]
    dropped += [f"model_kwargs.{k}" for k in sorted(set(model_kwargs) - {"dtype", "torch_dtype"})]
    if dropped:
        logger.warning(
            "%s: ignoring configuration keys pearl does not pass on: %s", where, ", ".join(dropped)
        )
    if "modality_config" not in config:
        config["modality_config"], config["module_output_name"] = (
            Transformer._get_default_modality_config(config)
        )
    return config
