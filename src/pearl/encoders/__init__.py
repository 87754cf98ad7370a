"""Phrase encoders: the transformer PhraseEncoder and the GloVe baseline."""

from typing import Any

from pearl._lazy import lazy_exports
from pearl._validation import InputTypeError

__all__ = [
    "DEFAULT_MODEL",
    "KNOWN_MODELS",
    "EmbeddingCache",
    "Encoder",
    "GloveEncoder",
    "PhraseEncoder",
    "cosine_matrix",
    "load_encoder",
    "resolve_model_path",
]
#: Phrases per forward pass when the table tools embed a column's values (their default
#: ``batch_size``): short cell values pad little, and a transformer on a CPU encodes
#: them 1.2x faster at 256 than at sentence-transformers' usual 32-64 (FEBRL4's name and
#: address values, pearl-minilm: 825 against 678 phrases/s). A static model encodes at
#: least its own STATIC_BATCH per pass whatever this says.
TABLE_BATCH_SIZE = 256
#: Names (lower case) that :func:`load_encoder` maps to the GloVe baseline.
GLOVE_NAMES = frozenset({"glove", "glove-6b-50d"})
#: Names of the benchmark's String Distance baseline: it has no embeddings, so it is no
#: encoder (:func:`pearl.evaluation.string_distance.load_model` takes it).
STRING_DISTANCE_NAMES = frozenset({"string-distance", "string_distance", "jaccard"})


def load_encoder(name: str, device: str | None = None, trust_remote_code: bool = False) -> Any:
    """Build an encoder from a name as used on the command line.

    ``"glove"`` gives :class:`GloveEncoder`; anything else is a :class:`PhraseEncoder`
    model (``trust_remote_code`` is passed to it). ``"string-distance"`` names the
    benchmark's String Distance baseline, which has no embeddings: it is refused here
    (``pearl.evaluate`` and ``pearl similarity`` take it).

    Parameters
    ----------
    name : str or path-like
        ``"glove"``, a model name (shipped, packaged or from the hub) or a model folder.
    device : str, optional
        Where a :class:`PhraseEncoder` computes (default: the CPU).
    trust_remote_code : bool, default=False
        Passed to :class:`PhraseEncoder`; never for a folder you received.

    Returns
    -------
    Encoder
    """
    import os

    from pearl.encoders.glove import GloveEncoder
    from pearl.encoders.phrase import PhraseEncoder

    if not isinstance(name, str | os.PathLike):
        raise InputTypeError(f"model must be a name or a folder path, got {type(name).__name__}")
    name = os.fspath(name)
    key = name.lower()
    if key in GLOVE_NAMES:
        return GloveEncoder()
    if key in STRING_DISTANCE_NAMES:
        raise ValueError(
            f"{name!r} is the benchmark's String Distance baseline, which has no "
            "embeddings: only pearl.evaluate and pearl similarity take it"
        )
    return PhraseEncoder(name, device=device, trust_remote_code=trust_remote_code)


__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Encoder": "pearl.encoders.base",
        "cosine_matrix": "pearl.encoders.base",
        "EmbeddingCache": "pearl.encoders.cache",
        "GloveEncoder": "pearl.encoders.glove",
        "DEFAULT_MODEL": "pearl.encoders.resolve",
        "PhraseEncoder": "pearl.encoders.phrase",
        "KNOWN_MODELS": "pearl.encoders.resolve",
        "resolve_model_path": "pearl.encoders.resolve",
    },
)
