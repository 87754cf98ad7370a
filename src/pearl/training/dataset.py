"""Training examples: (phrase, positive view, type label) plus mined hard negatives.

Everything comes from the files of the training-data pipeline: the typed corpus
(``pearl build-corpus``), the precomputed positive views (``pearl augment``) and the hard
negatives (``pearl mine``). Batches are a pure function of ``(seed, step)``, which is what
lets an interrupted run resume to the same weights.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from pearl.augment.sampler import LEVELS, read_augmented
from pearl.data.corpus import read_corpus
from pearl.data.labels import LABEL_TO_ID
from pearl.mining.hard_negatives import read_hard_negatives

__all__ = ["TrainingData", "Batch"]


@dataclass
class Batch:
    """One step's texts: anchors, their positives, shared hard negatives, type ids."""

    anchors: list[str]
    positives: list[str]
    negatives: list[str]
    labels: np.ndarray
    anchor_negatives: list[str] | None = None  # one per anchor (Phrase-BERT triplets)


def _require(path, what: str) -> Path:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{what} file not found: {path}")
    return path


class TrainingData:
    """Pairs for contrastive training, filtered by augmentation level and weight.

    Parameters
    ----------
    pairs : list of (phrase, positive, augmenter) or (phrase, positive, augmenter, negative)
        With a fourth element, each pair keeps its own negative (Phrase-BERT triplets).
    labels : dict of phrase -> label name
    negatives : dict of phrase -> list of hard negatives
    levels : set of {"char", "token", "phrase"}
        Augmentation levels kept; pairs made by a switched-off level are dropped. With no
        level at all, every phrase becomes its own positive (dropout noise only).
    augmenter_weights : dict of name -> float in [0, 1]
        Probability of keeping a pair made by that augmenter (to weight noisy augmenters
        down); 1 for the others.
    max_examples : int, default=0
        When > 0, a random subset of that many pairs.
    seed : int, default=0
    """

    def __init__(self, pairs, labels, negatives, levels=("char", "token", "phrase"),
                 augmenter_weights=None, max_examples: int = 0, seed: int = 0) -> None:
        levels = set(levels)
        weights = augmenter_weights or {}
        rng = random.Random(seed)
        kept = []
        for phrase, positive, name, *neg in pairs:
            if not phrase:
                continue
            if not levels:
                kept.append((phrase, phrase, *neg))
                continue
            level = LEVELS.get(name)
            if level is None or level not in levels or positive == phrase:
                continue
            if rng.random() < float(weights.get(name, 1.0)):
                kept.append((phrase, positive, *neg))
        if max_examples and len(kept) > max_examples:
            idx = sorted(random.Random(seed + 1).sample(range(len(kept)), max_examples))
            kept = [kept[i] for i in idx]
        if not kept:
            raise ValueError("no training pairs left after filtering")
        self.anchors = [k[0] for k in kept]
        self.positives = [k[1] for k in kept]
        self.anchor_negatives = [k[2] for k in kept] if all(len(k) == 3 for k in kept) \
            else None
        self.labels = np.array([LABEL_TO_ID.get(labels.get(a, ""), -100) for a in self.anchors],
                               dtype=np.int64)
        self.negatives = {a: negatives[a] for a in self.anchors if negatives.get(a)}
        self.seed = seed

    @classmethod
    def from_files(cls, corpus, augmented, negatives=None, **kwargs) -> TrainingData:
        """Read the three files of the training-data pipeline."""
        labels = {r.phrase: r.label for r in read_corpus(_require(corpus, "corpus"))}
        pairs = read_augmented(_require(augmented, "augmented"))
        negs = read_hard_negatives(_require(negatives, "hard negatives")) if negatives else {}
        return cls(pairs, labels, negs, **kwargs)

    @classmethod
    def from_triplets(cls, corpus, triplets, **kwargs) -> TrainingData:
        """Phrase-BERT triplets (``pearl triplets``): each pair with its own negative."""
        from pearl.augment.phrase_bert import read_triplets

        labels = {r.phrase: r.label for r in read_corpus(_require(corpus, "corpus"))}
        rows = [(p, pos, name, neg) for p, pos, neg, name in
                read_triplets(_require(triplets, "triplets"))]
        return cls(rows, labels, {}, **kwargs)

    def __len__(self) -> int:
        return len(self.anchors)

    def type_class_weights(self, n_labels: int, power: float, cap: float = 10.0
                           ) -> torch.Tensor:
        """Cross-entropy class weights ``min(cap, (n_max / n_c) ** power)``.

        ``n_c`` counts the training phrases of label ``c``; labels never seen get the cap
        (they never occur as a target, so it does not matter).
        """
        if power < 0:
            raise ValueError("power must be >= 0")
        counts = np.bincount(self.labels[self.labels >= 0], minlength=n_labels).astype(float)
        if not counts.any():
            return torch.ones(n_labels)
        ratio = counts.max() / np.maximum(counts, 1.0)
        return torch.as_tensor(np.minimum(cap, ratio ** power), dtype=torch.float32)

    def steps_per_epoch(self, batch_size: int) -> int:
        return max(1, len(self) // batch_size)

    def batch(self, step: int, batch_size: int, hard_negatives: int = 0) -> Batch:
        """The batch of a global step (epochs are seeded permutations; the tail is dropped)."""
        per_epoch = self.steps_per_epoch(batch_size)
        epoch, pos = divmod(step, per_epoch)
        order = np.random.default_rng([self.seed, epoch]).permutation(len(self))
        idx = order[pos * batch_size:(pos + 1) * batch_size]
        anchors = [self.anchors[i] for i in idx]
        negatives: list[str] = []
        if hard_negatives:
            rng = random.Random(f"{self.seed}:neg:{step}")
            with_neg = [a for a in anchors if a in self.negatives]
            for a in rng.sample(with_neg, min(hard_negatives, len(with_neg))):
                negatives.append(rng.choice(self.negatives[a]))
        own = ([self.anchor_negatives[i] for i in idx] if self.anchor_negatives is not None
               else None)
        return Batch(anchors, [self.positives[i] for i in idx], negatives, self.labels[idx], own)
