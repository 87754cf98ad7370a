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

__all__ = ["RawTextTransformer", "CHAR_IDS", "MAX_CHARS"]

#: The feature that carries the raw text's byte ids from this module to CharFusion.
CHAR_IDS = "pearl_char_ids"
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
            features[CHAR_IDS] = encode_chars([clean_text(t) for t in texts], MAX_CHARS)
        return features

    def forward(self, features: dict[str, Any], **kwargs) -> dict[str, Any]:
        chars = features.pop(CHAR_IDS, None)
        try:
            out = super().forward(features, **kwargs)
        finally:
            if chars is not None:
                features[CHAR_IDS] = chars
        if chars is not None:
            out[CHAR_IDS] = chars
        return out
