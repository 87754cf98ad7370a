"""A static model's vector of the input text beside a transformer's, as one module.

:class:`StaticConcat` sits at the end of a transformer model (after its ``Normalize``). It
embeds the text the user typed with a pearl-static module
(:class:`~pearl.models.static.StaticPhraseEmbedding`: mean token vectors plus mean hashed
character n-gram vectors), and concatenates the two unit vectors, each scaled by the square
root of its fixed weight, so that the cosine of two outputs is the weighted mean of the two
models' cosines. The static part carries the surface form (a shared "nytimes" n-gram counts
for "NYTimes" and "nytimes.com") that the transformer's vector holds weakly (issue 49,
``experiments/results/concat_candidate_plan.md``).

sentence-transformers hands later modules only what the first module produced, so the first
module must be a :class:`~pearl.models.raw_text.RawTextTransformer`, which passes the input
strings on (``pearl_texts``). The static module is saved in this module's folder with its own
files (tokenizer, safetensors weights, JSON), and the folder loads with the strict loader:
nothing in it runs code.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

import torch
from sentence_transformers.base.modules import Module
from torch.nn import functional as F

from pearl.models.raw_text import TEXTS
from pearl.models.static import StaticPhraseEmbedding

__all__ = ["StaticConcat"]

CONFIG = "static_concat_config.json"


class StaticConcat(Module):
    """Concatenate a unit phrase vector with a static model's unit vector of the same text.

    Parameters
    ----------
    static : StaticPhraseEmbedding
        The static model's module (e.g. pearl-static's first module).
    phrase_dim : int
        Size of the incoming vector (the transformer model's output).
    weights : (float, float), default=(0.5, 0.5)
        Fixed weights of the incoming vector and the static vector (normalised to sum to
        1): the cosine of two outputs is ``w[0] * cos_in + w[1] * cos_static``.
    """

    config_keys = ["phrase_dim", "weights"]

    def __init__(
        self,
        static: StaticPhraseEmbedding,
        phrase_dim: int,
        weights: tuple[float, float] = (0.5, 0.5),
    ) -> None:
        super().__init__()
        w = [float(x) for x in weights]
        if len(w) != 2 or not all(math.isfinite(x) and x >= 0 for x in w) or sum(w) <= 0:
            raise ValueError(f"weights must be two non-negative numbers, not both 0; got {weights}")
        self.weights = [x / sum(w) for x in w]
        self.static = static
        self.phrase_dim = int(phrase_dim)

    @property
    def static_dim(self) -> int:
        return int(self.static.embedding_dim)

    def get_embedding_dimension(self) -> int:
        return self.phrase_dim + self.static_dim

    get_sentence_embedding_dimension = get_embedding_dimension

    def forward(self, features: dict[str, Any], **kwargs) -> dict[str, Any]:
        texts = features.get(TEXTS)
        if texts is None:
            raise ValueError(
                "StaticConcat needs the input strings: the model's first module must be "
                "pearl.models.raw_text.RawTextTransformer"
            )
        phrase = F.normalize(features["sentence_embedding"], dim=-1)
        static = self.static(self.static.preprocess(list(texts)))["sentence_embedding"]
        static = F.normalize(static.to(phrase.device, phrase.dtype), dim=-1)
        if phrase.shape[-1] != self.phrase_dim:
            raise ValueError(
                f"StaticConcat expects {self.phrase_dim}-d vectors, got {phrase.shape[-1]}"
            )
        a, b = (math.sqrt(w) for w in self.weights)
        features["sentence_embedding"] = torch.cat([a * phrase, b * static], dim=-1)
        return features

    def save(self, output_path: str, *args, safe_serialization: bool = True, **kwargs) -> None:
        os.makedirs(output_path, exist_ok=True)
        self.static.save(output_path)
        with open(os.path.join(output_path, CONFIG), "w", encoding="utf-8") as f:
            json.dump({"phrase_dim": self.phrase_dim, "weights": self.weights}, f, indent=2)

    @classmethod
    def load(cls, model_name_or_path: str, subfolder: str = "", **kwargs) -> StaticConcat:
        folder = os.path.join(model_name_or_path, subfolder)
        path = os.path.join(folder, CONFIG)
        if not os.path.isfile(path):
            raise OSError(f"incomplete StaticConcat module: {path} is missing")
        try:
            with open(path, encoding="utf-8") as f:
                config = json.load(f)
            return cls(
                StaticPhraseEmbedding.load(folder),
                phrase_dim=int(config["phrase_dim"]),
                weights=tuple(config["weights"]),
            )
        except OSError:
            raise
        except Exception as exc:
            raise OSError(f"corrupt StaticConcat module in {folder}: {exc}") from exc


def add_static(model, static, weights: tuple[float, float] = (0.5, 0.5)):
    """``model`` with ``static``'s vector of the input text concatenated to its own.

    Parameters
    ----------
    model : sentence_transformers.SentenceTransformer
        A transformer model (its first module a sentence-transformers ``Transformer``);
        left unchanged (the result holds copies of its modules).
    static : sentence_transformers.SentenceTransformer
        A pearl-static model (its first module a
        :class:`~pearl.models.static.StaticPhraseEmbedding`).
    weights : (float, float), default=(0.5, 0.5)
        See :class:`StaticConcat`.

    Returns
    -------
    sentence_transformers.SentenceTransformer
        ``RawTextTransformer``, ``model``'s other modules, then :class:`StaticConcat`;
        saved with ``save`` (or :func:`pearl.training.saving.save_model`) as a folder the
        strict loader opens.

    Raises
    ------
    ValueError
        When ``model`` does not start with a transformer or already ends with a static
        part, or ``static`` is not a pearl-static model.
    """
    import copy

    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Transformer

    from pearl.models.raw_text import RawTextTransformer

    modules = list(model)
    if not modules or not isinstance(modules[0], Transformer):
        raise ValueError("add_static needs a model whose first module is a Transformer")
    if isinstance(modules[-1], StaticConcat):
        raise ValueError("this model already ends with a static part (StaticConcat)")
    if not isinstance(static[0], StaticPhraseEmbedding):
        raise ValueError("static must be a pearl-static model (StaticPhraseEmbedding first)")
    dim = model.get_embedding_dimension()
    modules = copy.deepcopy(modules)
    # RawTextTransformer adds no state to Transformer: it only also passes the strings on
    modules[0].__class__ = RawTextTransformer
    tail = StaticConcat(copy.deepcopy(static[0]), phrase_dim=dim, weights=weights)
    return SentenceTransformer(modules=[*modules, tail], device="cpu")
