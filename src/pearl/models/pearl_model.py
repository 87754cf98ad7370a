"""Build, save and load the fused PEARL model (a SentenceTransformer).

A PEARL model folder is an ordinary sentence-transformers folder: ``Transformer`` (the
backbone, with its tokenizer), ``Pooling`` (mean) and :class:`~pearl.models.CharFusion`.
The last one is a custom module, so plain sentence-transformers (6.x) loads the folder with
``SentenceTransformer(path, trust_remote_code=True)`` while pearl is installed.
:func:`load_pearl_model` and :class:`pearl.PhraseEncoder` load it without
``trust_remote_code``: pearl's module classes are allow-listed by exact import path and any
other non-sentence-transformers module type is refused (see ``docs/security.md``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pearl.models.fusion import CharFusion
from pearl.models.glove_sequence import GloveSequenceEncoder
from pearl.models.raw_text import RawTextTransformer
from pearl.models.static import StaticPhraseEmbedding

__all__ = ["PEARL_MODULES", "build_pearl_model", "load_pearl_model", "open_model_folder",
           "is_pearl_folder", "fusion_module", "read_modules", "untrusted_modules"]


def build_pearl_model(backbone: str, char_config: dict | None = None,
                      output_dim: int | None = None, labels: list[str] | None = None,
                      use_chars: bool = True, max_seq_length: int = 32,
                      device: str = "cpu", char_gain: bool = False, raw_text: bool = False):
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
    raw_text : bool, default=False
        The character encoder reads the text the user typed (the first module is then a
        :class:`~pearl.models.raw_text.RawTextTransformer`) instead of the phrase decoded
        from the uncased token ids.

    Returns
    -------
    sentence_transformers.SentenceTransformer
    """
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer

    module = RawTextTransformer if raw_text and use_chars else Transformer
    transformer = module(backbone, max_seq_length=max_seq_length)
    dim = transformer.get_embedding_dimension()
    pooling = Pooling(dim, pooling_mode="mean")
    char_config = dict(char_config or {})
    char_config.setdefault("subword_vocab", len(transformer.tokenizer))
    fusion = CharFusion(dim, char_config, output_dim=output_dim, labels=labels,
                        use_chars=use_chars, char_gain=char_gain,
                        raw_text=raw_text and use_chars)
    fusion.set_tokenizer(transformer.tokenizer)
    return SentenceTransformer(modules=[transformer, pooling, fusion], device=device)


#: pearl's own module classes, allowed in a folder's ``modules.json`` by exact import path.
#: They are taken from the installed package, never imported from the folder.
PEARL_MODULES: dict[str, type] = {"pearl.models.fusion.CharFusion": CharFusion,
                                  "pearl.models.raw_text.RawTextTransformer":
                                      RawTextTransformer,
                                  "pearl.models.static.StaticPhraseEmbedding":
                                      StaticPhraseEmbedding,
                                  "pearl.models.glove_sequence.GloveSequenceEncoder":
                                      GloveSequenceEncoder}


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
    try:
        entries = json.loads(modules.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise OSError(f"unreadable {modules}: {exc}") from exc
    if not isinstance(entries, list) or not all(
            isinstance(e, dict) and isinstance(e.get("type"), str)
            and isinstance(e.get("path", ""), str) for e in entries):
        raise OSError(f"{modules} is not a list of module entries with a 'type' and a 'path'")
    return entries


def untrusted_modules(entries: list[dict]) -> list[str]:
    """Module types that would run code from outside sentence-transformers and pearl."""
    return [e["type"] for e in entries
            if not e["type"].startswith("sentence_transformers.")
            and e["type"] not in PEARL_MODULES]


def is_pearl_folder(path: str | os.PathLike) -> bool:
    """Whether a folder's ``modules.json`` lists a pearl module."""
    try:
        return any(e["type"] in PEARL_MODULES for e in read_modules(path))
    except OSError:
        return False


def fusion_module(model) -> CharFusion | None:
    """The :class:`CharFusion` module of a SentenceTransformer, or None."""
    for module in model:
        if isinstance(module, CharFusion):
            return module
    return None


def open_model_folder(path: str | os.PathLike, device: str | None = "cpu",
                      trust_remote_code: bool = False):
    """``SentenceTransformer`` of a local folder, without running code from the folder.

    Every ``modules.json`` entry must be a sentence-transformers module or one of pearl's
    (:data:`PEARL_MODULES`, taken from the installed package). Anything else would import
    code named by the folder and is refused with an ``OSError`` naming the entry, unless
    ``trust_remote_code=True``. The folder's Hugging Face config is loaded without
    ``trust_remote_code`` too, so an ``auto_map`` in it runs nothing.

    Raises
    ------
    OSError
        No ``modules.json``, an untrusted module type, or any failure while loading.
    """
    from sentence_transformers import SentenceTransformer

    entries = read_modules(path)
    foreign = untrusted_modules(entries)
    if foreign and not trust_remote_code:
        raise OSError(
            f"the model folder {path} lists module type(s) {', '.join(map(repr, foreign))} in "
            "modules.json, which are neither sentence-transformers nor pearl modules; loading "
            "them would execute code from the folder. Pass trust_remote_code=True only if you "
            "trust where this folder came from.")
    try:
        # pearl's classes are handed over directly, so sentence-transformers' own
        # trust_remote_code gate stays closed for everything else
        return SentenceTransformer._load_with_module_classes(
            str(path), PEARL_MODULES, device=device, local_files_only=True,
            trust_remote_code=trust_remote_code)
    except Exception as exc:  # noqa: BLE001 - re-raised with context
        raise OSError(f"could not load the model folder {path}: {exc}") from exc


def load_pearl_model(path: str | os.PathLike, device: str = "cpu",
                     trust_remote_code: bool = False):
    """Load a PEARL (or any sentence-transformers) folder, with a clear error when broken
    (see :func:`open_model_folder`)."""
    return open_model_folder(path, device, trust_remote_code=trust_remote_code)
