"""Build, save and load the fused PEARL model (a SentenceTransformer).

A PEARL model folder is an ordinary sentence-transformers folder: ``Transformer`` (the
backbone, with its tokenizer), ``Pooling`` (mean) and :class:`~pearl.models.CharFusion`.
The last one is a custom module, so plain sentence-transformers (6.x) loads the folder with
``SentenceTransformer(path, trust_remote_code=True)`` while pearl is installed.
:func:`load_pearl_model` and :class:`pearl.PhraseEncoder` open it with pearl's strict loader
(:mod:`pearl.models.loading`), which never runs code from the folder (see
``docs/security.md``).
"""

from __future__ import annotations

import os

from pearl.models.fusion import CharFusion
from pearl.models.loading import (
    SAFE_MODEL_KWARGS,
    StrictTransformer,
    check_model_folder,
    open_model_folder,
    read_modules,
)
from pearl.models.raw_text import RawTextTransformer

__all__ = [
    "build_pearl_model",
    "load_pearl_model",
    "open_model_folder",
    "is_pearl_folder",
    "fusion_module",
]


def build_pearl_model(
    backbone: str,
    char_config: dict | None = None,
    output_dim: int | None = None,
    labels: list[str] | None = None,
    use_chars: bool = True,
    max_seq_length: int = 32,
    device: str = "cpu",
    char_gain: bool = False,
    raw_text: bool = False,
    char_share: float = 0.0,
):
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
    char_share : float, default=0.0
        The character part's fixed share of the output's squared norm, each part at unit
        length (see :class:`CharFusion`); 0 is the plain concatenation.

    Returns
    -------
    sentence_transformers.SentenceTransformer
    """
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling

    if os.path.isdir(backbone):  # a folder is data: the same rules as any model folder
        check_model_folder(backbone)
    module = RawTextTransformer if raw_text and use_chars else StrictTransformer
    transformer = module(
        backbone, max_seq_length=max_seq_length, model_kwargs=dict(SAFE_MODEL_KWARGS)
    )
    dim = transformer.get_embedding_dimension()
    pooling = Pooling(dim, pooling_mode="mean")
    char_config = dict(char_config or {})
    char_config.setdefault("subword_vocab", len(transformer.tokenizer))
    fusion = CharFusion(
        dim,
        char_config,
        output_dim=output_dim,
        labels=labels,
        use_chars=use_chars,
        char_gain=char_gain,
        raw_text=raw_text and use_chars,
        char_share=char_share,
    )
    fusion.set_tokenizer(transformer.tokenizer)
    return SentenceTransformer(modules=[transformer, pooling, fusion], device=device)


def is_pearl_folder(path: str | os.PathLike) -> bool:
    """Whether a folder's ``modules.json`` lists a pearl module.

    Parameters
    ----------
    path : path-like

    Returns
    -------
    bool
        False too for a folder without a readable ``modules.json``.
    """
    try:
        return any(e["type"].startswith("pearl.") for e in read_modules(path))
    except OSError:
        return False


def fusion_module(model) -> CharFusion | None:
    """The :class:`CharFusion` module of a SentenceTransformer, or None.

    Parameters
    ----------
    model : sentence_transformers.SentenceTransformer

    Returns
    -------
    CharFusion or None
    """
    for module in model:
        if isinstance(module, CharFusion):
            return module
    return None


def load_pearl_model(path: str | os.PathLike, device: str = "cpu", trust_remote_code: bool = False):
    """Load a PEARL (or any sentence-transformers) folder, with a clear error when broken
    (see :func:`open_model_folder`).

    Parameters
    ----------
    path : path-like
        A model folder, or a name the resolver knows.
    device : str, default="cpu"
    trust_remote_code : bool, default=False
        Never for a folder you received: pearl's own modules load without it.

    Returns
    -------
    sentence_transformers.SentenceTransformer

    Raises
    ------
    OSError
        Naming the missing, truncated or mismatched file.
    """
    return open_model_folder(path, device, trust_remote_code=trust_remote_code)
