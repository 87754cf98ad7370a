"""The training-free control of issue 49: two models' unit vectors, concatenated.

``ConcatEncoder(["pearl-minilm", "pearl-static"])`` encodes with each model, scales each
unit vector by the square root of its weight and concatenates them, so the cosine of two
outputs is the weighted mean of the models' cosines. The weights are fixed (equal by
default, written in experiments/results/char_channel_plan.md before any score), never tuned.
Scripts here take ``"a+b"`` as a model name through :func:`load`.
"""

from __future__ import annotations

import numpy as np

from pearl.encoders import Encoder, PhraseEncoder
from pearl.encoders.base import normalize_rows


class ConcatEncoder(Encoder):
    """Weighted concatenation of unit vectors (cosine = weighted mean of cosines)."""

    def __init__(self, models: list[str], weights: list[float] | None = None) -> None:
        self.encoders = [PhraseEncoder(m) for m in models]
        weights = weights or [1.0] * len(models)
        total = float(sum(weights))
        self.weights = [w / total for w in weights]
        self.name = "+".join(models)

    @property
    def embedding_dim(self) -> int:
        return sum(e.embedding_dim for e in self.encoders)

    @property
    def fingerprint(self) -> str:
        parts = [f"{e.fingerprint}*{w}" for e, w in zip(self.encoders, self.weights, strict=True)]
        return "concat(" + ",".join(parts) + ")"

    def encode(self, texts, batch_size=64, normalize=False, show_progress_bar=None):
        single = isinstance(texts, str)
        parts = [
            np.sqrt(w) * normalize_rows(np.atleast_2d(e.encode(texts, batch_size=batch_size)))
            for e, w in zip(self.encoders, self.weights, strict=True)
        ]
        out = np.concatenate(parts, axis=1).astype(np.float32)
        out = normalize_rows(out) if normalize else out
        return out[0] if single else out


def load(name: str) -> Encoder:
    """A ``PhraseEncoder``, or a :class:`ConcatEncoder` for ``"a+b"``."""
    return ConcatEncoder(name.split("+")) if "+" in name else PhraseEncoder(name)
