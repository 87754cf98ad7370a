"""Build, save and load the fused PEARL model (a SentenceTransformer).

A PEARL model folder is an ordinary sentence-transformers folder: ``Transformer`` (the
backbone, with its tokenizer), ``Pooling`` (mean) and :class:`~pearl.models.CharFusion`.
The last one is a custom module, so plain sentence-transformers (6.x) loads the folder with
``SentenceTransformer(path, trust_remote_code=True)`` while pearl is installed;
:func:`load_pearl_model` and :class:`pearl.PhraseEncoder` do this for you.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pearl.models.fusion import CharFusion

__all__ = ["build_pearl_model", "load_pearl_model", "open_model_folder", "is_pearl_folder",
           "fusion_module"]


def build_pearl_model(backbone: str, char_config: dict | None = None,
                      output_dim: int | None = None, labels: list[str] | None = None,
                      use_chars: bool = True, max_seq_length: int = 32,
                      device: str = "cpu", char_gain: bool = False):
    """A fused PEARL model from a backbone folder.

    Parameters
    ----------
    backbone : str
        A sentence-transformers or Hugging Face model folder (the phrase encoder).
    char_config : dict, optional
        Arguments of :class:`~pearl.models.CharEncoder`; ``subword_vocab`` defaults to the
        backbone tokenizer's vocabulary size.
    output_dim : int, optional
        Size of the output (a linear map of the concatenation); the concatenation by default.
    labels : list of str, optional
        Phrase-type labels of the type head.
    use_chars : bool, default=True
    max_seq_length : int, default=32
        Phrases are short; longer inputs are truncated.
    device : str, default="cpu"
    char_gain : bool, default=False
        A learned scalar weight on the character vector (see :class:`CharFusion`).

    Returns
    -------
    sentence_transformers.SentenceTransformer
    """
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer

    transformer = Transformer(backbone, max_seq_length=max_seq_length)
    dim = transformer.get_embedding_dimension()
    pooling = Pooling(dim, pooling_mode="mean")
    char_config = dict(char_config or {})
    char_config.setdefault("subword_vocab", len(transformer.tokenizer))
    fusion = CharFusion(dim, char_config, output_dim=output_dim, labels=labels,
                        use_chars=use_chars, char_gain=char_gain)
    fusion.set_tokenizer(transformer.tokenizer)
    return SentenceTransformer(modules=[transformer, pooling, fusion], device=device)


def is_pearl_folder(path: str | os.PathLike) -> bool:
    """Whether a folder's ``modules.json`` lists a pearl module."""
    modules = Path(path) / "modules.json"
    if not modules.is_file():
        return False
    try:
        entries = json.loads(modules.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return any(str(e.get("type", "")).startswith("pearl.") for e in entries)


def fusion_module(model) -> CharFusion | None:
    """The :class:`CharFusion` module of a SentenceTransformer, or None."""
    for module in model:
        if isinstance(module, CharFusion):
            return module
    return None


def open_model_folder(path: str | os.PathLike, device: str | None = "cpu"):
    """``SentenceTransformer`` of a local folder, any failure re-raised as ``OSError``.

    pearl's own modules (the fused PEARL model) are imported from the installed package;
    sentence-transformers 6 asks for ``trust_remote_code`` for any module outside its
    namespace, so it is set for folders whose ``modules.json`` lists a pearl module.
    """
    from sentence_transformers import SentenceTransformer

    try:
        return SentenceTransformer(str(path), device=device, local_files_only=True,
                                   trust_remote_code=is_pearl_folder(path))
    except Exception as exc:  # noqa: BLE001 - re-raised with context
        raise OSError(f"could not load the model folder {path}: {exc}") from exc


def load_pearl_model(path: str | os.PathLike, device: str = "cpu"):
    """Load a PEARL (or any sentence-transformers) folder, with a clear error when broken."""
    path = Path(path)
    if not (path / "modules.json").is_file():
        raise OSError(f"{path} is not a sentence-transformers folder (no modules.json)")
    return open_model_folder(path, device)
