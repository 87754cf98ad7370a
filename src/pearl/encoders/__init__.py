"""Phrase encoders: the transformer PhraseEncoder and the paper's baselines."""

from pearl.encoders.base import Encoder, cosine_matrix
from pearl.encoders.cache import EmbeddingCache
from pearl.encoders.glove import GloveEncoder
from pearl.encoders.phrase import DEFAULT_MODEL, PhraseEncoder
from pearl.encoders.resolve import KNOWN_MODELS, resolve_model_path
from pearl.encoders.string_distance import StringDistance

__all__ = [
    "DEFAULT_MODEL",
    "KNOWN_MODELS",
    "EmbeddingCache",
    "Encoder",
    "GloveEncoder",
    "PhraseEncoder",
    "StringDistance",
    "cosine_matrix",
    "load_encoder",
    "resolve_model_path",
]


def load_encoder(name: str, device: str | None = None):
    """Build an encoder from a name as used on the command line.

    ``"glove"`` gives :class:`GloveEncoder`, ``"string-distance"`` gives
    :class:`StringDistance`; anything else is a :class:`PhraseEncoder` model.
    """
    key = name.lower()
    if key in {"glove", "glove-6b-50d"}:
        return GloveEncoder()
    if key in {"string-distance", "string_distance", "jaccard"}:
        return StringDistance()
    return PhraseEncoder(name, device=device)
