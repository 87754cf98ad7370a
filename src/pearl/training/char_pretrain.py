"""Pretrain the character encoder to mimic the backbone's embeddings of single words.

As in LOVE, the character encoder learns from surface forms only: for a vocabulary of words
taken from the training corpus, the target is the backbone's own (mean-pooled) embedding of
the word, and the input is the word or a typo'd variant of it. A temporary linear head maps
the character vector to the backbone's size; the loss is InfoNCE over the batch (the other
words are the negatives) plus a cosine distance term.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable

import numpy as np
import torch
import torch.nn.functional as F
from sentence_transformers.util import batch_to_device
from tqdm.auto import tqdm

from pearl.augment.char import drop_char, insert_char, keyboard_typo, swap_chars
from pearl.losses import info_nce
from pearl.models.raw_text import CHAR_IDS

__all__ = ["vocabulary", "pretrain_char_encoder"]

_WORD = re.compile(r"[^\W\d_][\w'-]*", re.UNICODE)
_TYPOS = (swap_chars, drop_char, insert_char, keyboard_typo)


def vocabulary(phrases: Iterable[str], size: int) -> list[str]:
    """The ``size`` most frequent words of the phrases (ties broken alphabetically).

    Parameters
    ----------
    phrases : iterable of str
    size : int

    Returns
    -------
    list of str
    """
    counts = Counter(w for p in phrases for w in _WORD.findall(p))
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [w for w, _ in ranked[:size]]


def pretrain_char_encoder(
    model,
    words: list[str],
    steps: int = 1500,
    batch_size: int = 256,
    lr: float = 2e-3,
    typo_rate: float = 0.5,
    seed: int = 0,
    show_progress_bar: bool = True,
    device: str | torch.device = "cpu",
) -> list[float]:
    """Train ``model``'s :class:`~pearl.models.CharFusion` character encoder in place.

    Parameters
    ----------
    model : SentenceTransformer
        A fused PEARL model (its Transformer + Pooling give the targets).
    words : list of str
    steps, batch_size, lr : training length, batch and Adam learning rate
    typo_rate : float, default=0.5
        Probability that an input word is replaced by a typo'd variant.
    seed : int, default=0
    device : str or torch.device, default="cpu"
        Where the model computes (it must already be there).

    Returns
    -------
    list of float
        The loss of each step.
    """
    from pearl.models.pearl_model import fusion_module

    fusion = fusion_module(model)
    if fusion is None or fusion.char_encoder is None:
        raise ValueError("the model has no character encoder")
    if not words:
        raise ValueError("no words to pretrain on")
    backbone = torch.nn.Sequential(model[0], model[1])
    targets = []
    with torch.no_grad():
        backbone.eval()
        for i in tqdm(
            range(0, len(words), 512), desc="char targets", disable=not show_progress_bar
        ):
            feats = batch_to_device(model.preprocess(words[i : i + 512]), device)
            targets.append(backbone(feats)["sentence_embedding"])
    target = torch.cat(targets)
    encoder = fusion.char_encoder
    head = torch.nn.Linear(encoder.config["out_dim"], target.shape[1]).to(target.device)
    params = list(encoder.parameters()) + list(head.parameters())
    opt = torch.optim.Adam(params, lr=lr)
    rng = random.Random(seed)
    gen = np.random.default_rng(seed)
    losses = []
    encoder.train()
    bar = tqdm(range(steps), desc="char pretrain", disable=not show_progress_bar)
    for _ in bar:
        idx = gen.choice(len(words), size=min(batch_size, len(words)), replace=False)
        batch = []
        for i in idx:
            w = words[i]
            if rng.random() < typo_rate:
                w = rng.choice(_TYPOS)(w, rng) or w
            batch.append(w)
        feats = batch_to_device(model.preprocess(batch), device)
        chars, sub = fusion.char_inputs(
            feats["input_ids"], feats["attention_mask"], feats.get(CHAR_IDS)
        )
        pred = head(encoder(chars, sub))
        tgt = target[torch.as_tensor(idx, device=target.device)]
        loss = info_nce(pred, tgt) + (1 - F.cosine_similarity(pred, tgt)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        bar.set_postfix(loss=f"{losses[-1]:.3f}")
    encoder.eval()
    return losses
