"""PEARL's fusion of phrase and character embeddings, as a sentence-transformers module.

The module sits after ``Transformer`` and ``Pooling`` (mean) in a SentenceTransformer. It
reads the phrase back from the token ids the first module produced (sentence-transformers
tokenises with its first module only), runs the :class:`~pearl.models.CharEncoder` on its
characters and subword ids, and concatenates the result to the pooled phrase vector. An
optional linear layer maps the concatenation to ``output_dim``. The phrase-type head (a
linear softmax layer over the 95 labels) lives here too, so a saved model can still predict
types; it does not take part in :meth:`forward`.
"""

from __future__ import annotations

import itertools
import json
import os
from typing import Any

import torch
from safetensors.torch import load_file, save_file
from sentence_transformers.base.modules import Module
from torch import nn

from pearl.models.char_encoder import encode_chars
from pearl.models.ngram_bag import build_char_encoder
from pearl.models.raw_text import CHAR_IDS

__all__ = ["CharFusion"]

WEIGHTS = "model.safetensors"
CONFIG = "config.json"


class CharFusion(Module):
    """Concatenate a pooled phrase vector with a LOVE-style character vector.

    Parameters
    ----------
    phrase_dim : int
        Size of the pooled phrase vector (the backbone's hidden size).
    char_config : dict, optional
        The character encoder: ``kind`` (``"attention"``, the default: the LOVE-style
        :class:`~pearl.models.CharEncoder`; ``"ngram_bag"``: a bag of hashed character
        n-grams and subwords, :class:`~pearl.models.ngram_bag.NgramBagEncoder`; ``"both"``:
        their sum) and the keyword arguments of that class.
    output_dim : int, optional
        When given, a linear layer maps the concatenation to this size; by default the
        output is the concatenation itself (``phrase_dim + char out_dim``, as in the paper).
    labels : list of str, optional
        Names of the phrase-type labels of the type head; no head when empty.
    max_chars : int, default=64
        Characters (UTF-8 bytes) read per phrase.
    use_chars : bool, default=True
        False turns the module into an identity (the "without character encoder" ablation).
    char_gain : bool, default=False
        Multiply the character vector by a learned scalar ``exp(char_log_scale)`` (1 at
        the start) before the concatenation, so that training decides how much the
        character part weighs in the cosine; False is the paper's plain concatenation.
    char_share : float, default=0.0
        In (0, 1): each part is scaled to unit length and the character part weighted to
        hold this share of the output's squared norm (``[sqrt(1 - s) unit(phrase),
        sqrt(s) unit(char)]``, so a cosine of two outputs is ``(1 - s) cos_phrase + s
        cos_char``), whatever the scale the encoders' outputs take in training; 0 (the
        default) is the plain concatenation. Not with ``char_gain`` or ``output_dim``.
    raw_text : bool, default=False
        Read the characters of the text the user typed, handed over by a
        :class:`~pearl.models.raw_text.RawTextTransformer` first module, instead of the
        phrase decoded back from the uncased token ids (the PEARL v1 models' input; also
        the fallback when the first module is a plain ``Transformer``).
    """

    config_keys = [
        "phrase_dim",
        "char_config",
        "output_dim",
        "labels",
        "max_chars",
        "use_chars",
        "char_gain",
        "raw_text",
        "char_share",
    ]

    def __init__(
        self,
        phrase_dim: int,
        char_config: dict | None = None,
        output_dim: int | None = None,
        labels: list[str] | None = None,
        max_chars: int = 64,
        use_chars: bool = True,
        char_gain: bool = False,
        raw_text: bool = False,
        char_share: float = 0.0,
    ) -> None:
        super().__init__()
        char_share = float(char_share)
        if not 0.0 <= char_share < 1.0:
            raise ValueError(f"char_share must be in [0, 1), got {char_share}")
        if char_share and (char_gain or output_dim or not use_chars):
            raise ValueError(
                "char_share needs the character encoder, without char_gain or output_dim"
            )
        self.char_share = char_share
        self.phrase_dim = int(phrase_dim)
        self.char_config = dict(char_config or {})
        self.output_dim = output_dim
        self.labels = list(labels or [])
        self.max_chars = max_chars
        self.use_chars = use_chars
        self.char_gain = bool(char_gain) and use_chars
        self.raw_text = bool(raw_text)
        self.char_encoder: Any = build_char_encoder(self.char_config) if use_chars else None
        # a parameter only when asked for, so folders saved without one load strictly
        self.char_log_scale = nn.Parameter(torch.zeros(())) if self.char_gain else None
        concat = self.phrase_dim + (self.char_encoder.config["out_dim"] if self.char_encoder else 0)
        self._embedding_dim = int(output_dim) if output_dim else concat
        self.project = nn.Linear(concat, output_dim) if output_dim else None
        self.type_head = nn.Linear(self.embedding_dim, len(self.labels)) if self.labels else None
        self.tokenizer: Any = None  # set by on_model_ready / set_tokenizer

    @property
    def embedding_dim(self) -> int:
        return self._embedding_dim

    def get_embedding_dimension(self) -> int:
        return self.embedding_dim

    @property
    def char_scale(self) -> float:
        """The factor applied to the character vector (1.0 without ``char_gain``)."""
        if self.char_log_scale is None:
            return 1.0
        return float(self.char_log_scale.detach().exp())

    get_sentence_embedding_dimension = get_embedding_dimension

    def set_tokenizer(self, tokenizer) -> None:
        """The backbone tokenizer, used to read phrases back from token ids."""
        self.tokenizer = tokenizer

    def on_model_ready(self, model) -> None:
        self.set_tokenizer(model.tokenizer)

    def _special_ids(self, device) -> torch.Tensor:
        if self.tokenizer is None:
            raise RuntimeError(
                "CharFusion has no tokenizer: load it inside a "
                "SentenceTransformer or call set_tokenizer()"
            )
        cached = getattr(self, "_special", None)
        if cached is None or cached.device != torch.device(device):
            cached = torch.tensor(sorted(self.tokenizer.all_special_ids), device=device)
            self._special = cached
        return cached

    def char_inputs(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        char_ids: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Character ids and subword ids (special tokens removed, left-aligned) of each row.

        ``char_ids``: the raw text's byte ids from the first module (used when
        ``raw_text`` is on); otherwise the phrase is decoded back from the token ids."""
        keep = attention_mask.bool() & ~torch.isin(input_ids, self._special_ids(input_ids.device))
        if self.raw_text and char_ids is not None:
            chars = char_ids[:, : self.max_chars].to(input_ids.device)
        else:
            # one conversion of the batch, not a tensor index and a list per row (this
            # step: 0.15 -> 0.12 s for 10,000 short titles)
            kept = zip(input_ids.tolist(), keep.tolist(), strict=True)
            rows = [list(itertools.compress(ids, k)) for ids, k in kept]
            texts = self.tokenizer.batch_decode(rows, clean_up_tokenization_spaces=True)
            chars = encode_chars(texts, self.max_chars).to(input_ids.device)
        if not self.char_encoder.config["subword_vocab"]:
            return chars, None
        # left-align the kept ids of each row with one scatter
        width = max(int(keep.sum(1).max()) if keep.numel() else 0, 1)
        pos = keep.long().cumsum(1) - 1
        sub = torch.zeros(input_ids.shape[0], width, dtype=torch.long, device=input_ids.device)
        rows_idx = torch.arange(input_ids.shape[0], device=input_ids.device)[:, None].expand_as(
            input_ids
        )
        sub[rows_idx[keep], pos[keep]] = input_ids[keep]
        return chars, sub

    def forward(self, features: dict[str, Any], **kwargs) -> dict[str, Any]:
        phrase = features["sentence_embedding"]
        if self.use_chars:
            chars, sub = self.char_inputs(
                features["input_ids"], features["attention_mask"], features.get(CHAR_IDS)
            )
            char_vec = self.char_encoder(chars, sub).to(phrase.dtype)
            if self.char_log_scale is not None:
                char_vec = char_vec * self.char_log_scale.exp().to(phrase.dtype)
            features["char_embedding"] = char_vec
            if self.char_share:
                s = self.char_share
                phrase = nn.functional.normalize(phrase, dim=-1) * (1.0 - s) ** 0.5
                char_vec = nn.functional.normalize(char_vec, dim=-1) * s**0.5
            out = torch.cat([phrase, char_vec], dim=-1)
        else:
            out = phrase
        if self.project is not None:
            out = self.project(out)
        features["sentence_embedding"] = out
        return features

    def type_logits(self, embeddings: torch.Tensor) -> torch.Tensor:
        """Phrase-type logits of fused embeddings.

        The head was trained on the unnormalised fused vector (the output of this module),
        not on the unit vectors of a saved model that ends with ``Normalize``.
        """
        if self.type_head is None:
            raise ValueError("this model has no phrase-type head (no labels)")
        return self.type_head(embeddings)

    def save(self, output_path: str, *args, safe_serialization: bool = True, **kwargs) -> None:
        os.makedirs(output_path, exist_ok=True)
        with open(os.path.join(output_path, CONFIG), "w", encoding="utf-8") as f:
            json.dump(self.get_config_dict(), f, indent=2)
        state = {k: v.detach().contiguous() for k, v in self.state_dict().items()}
        save_file(state, os.path.join(output_path, WEIGHTS))

    @classmethod
    def load(cls, model_name_or_path: str, subfolder: str = "", **kwargs) -> CharFusion:
        folder = os.path.join(model_name_or_path, subfolder)
        config_path = os.path.join(folder, CONFIG)
        weights_path = os.path.join(folder, WEIGHTS)
        for p in (config_path, weights_path):
            if not os.path.isfile(p):
                raise OSError(f"incomplete PEARL model: {p} is missing")
        try:
            with open(config_path, encoding="utf-8") as f:
                config = json.load(f)
            module = cls(**config)
            state = load_file(weights_path)
        except Exception as exc:
            raise OSError(f"corrupt PEARL module in {folder}: {exc}") from exc
        # weights may be stored in float16 (the shipped model); compute in float32 like the
        # Transformer module, which sentence-transformers loads in float32 by default
        state = {k: v.float() if v.is_floating_point() else v for k, v in state.items()}
        try:
            module.load_state_dict(state, strict=True)
        except RuntimeError as exc:
            raise OSError(
                f"PEARL module weights in {folder} do not match its config: {exc}"
            ) from exc
        return module
