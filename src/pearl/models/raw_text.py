"""The backbone module of PEARL v2 models: a sentence-transformers ``Transformer`` that also
hands the character encoder the text the user typed.

sentence-transformers preprocesses a batch with its first module only, so a later module
never sees the input strings. :class:`RawTextTransformer` adds their UTF-8 bytes to the
features (``pearl_char_ids``, built with array operations: no tokenizer decode), which
:class:`~pearl.models.CharFusion` reads when its ``raw_text`` option is on: case,
punctuation, accents and suffixes such as ".com" then reach the character encoder, where a
model reading the phrase back from uncased WordPiece ids would see "nytimes com".
"""

from __future__ import annotations

from typing import Any

from pearl._validation import clean_text
from pearl.models.char_encoder import encode_chars
from pearl.models.strict_transformer import StrictTransformer

__all__ = ["RawTextTransformer", "CHAR_IDS", "MAX_CHARS", "TEXTS"]

#: The feature that carries the raw text's byte ids from this module to CharFusion.
CHAR_IDS = "pearl_char_ids"
#: The feature that carries the input strings themselves (a list of str), for
#: :class:`~pearl.models.surface.StaticConcat`.
TEXTS = "pearl_texts"
#: Bytes read per phrase (as CharFusion's default ``max_chars``).
MAX_CHARS = 64


class RawTextTransformer(StrictTransformer):
    """``Transformer`` whose features also hold the input strings' byte ids (see the
    module docstring). Saved and loaded like its parent; the HF model never sees the
    extra feature."""

    def preprocess(self, inputs, prompt: str | None = None, **kwargs) -> dict[str, Any]:
        features = super().preprocess(inputs, prompt=prompt, **kwargs)
        if features and inputs and all(isinstance(t, str) for t in inputs):
            texts = [prompt + t for t in inputs] if prompt else list(inputs)
            # as pearl.PhraseEncoder does: whitespace-only is ""
            texts = [clean_text(t) for t in texts]
            features[CHAR_IDS] = encode_chars(texts, MAX_CHARS)
            features[TEXTS] = texts
        return features

    def forward(self, features: dict[str, Any], **kwargs) -> dict[str, Any]:
        extra = {k: features.pop(k) for k in (CHAR_IDS, TEXTS) if k in features}
        try:
            out = super().forward(features, **kwargs)
        finally:
            features.update(extra)
        out.update(extra)
        return out
