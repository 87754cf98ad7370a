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

from pearl.augment.sampler import LEVELS, read_augmented
from pearl.data.corpus import read_corpus
from pearl.data.labels import ENTITY_TYPES, LABEL_TO_ID, LABELS, split_label
from pearl.mining.hard_negatives import read_hard_negatives

__all__ = ["TrainingData", "Batch"]


@dataclass
class Batch:
    """One step's texts: anchors, their positives, shared hard negatives, type ids.

    Attributes
    ----------
    anchors, positives : list of str
        Each anchor and its positive view.
    negatives : list of str
        The batch's shared mined negatives.
    labels : ndarray of int
        Each anchor's phrase-type label (-100: none).
    anchor_negatives : list of str, optional
        One negative per anchor (Phrase-BERT's triplets).
    types : ndarray of int, optional
        Each anchor's entity type id (-100: OTHER or untyped).
    """

    anchors: list[str]
    positives: list[str]
    negatives: list[str]
    labels: np.ndarray
    anchor_negatives: list[str] | None = None  # one per anchor (Phrase-BERT triplets)
    types: np.ndarray | None = None  # entity type id of each anchor, -100: OTHER or untyped


#: Entity type id (its index in ENTITY_TYPES) of each label id; -100 for the OTHER labels.
_ENTITY_OF_LABEL = np.array(
    [
        ENTITY_TYPES.index(split_label(lab)[1]) if split_label(lab)[1] in ENTITY_TYPES else -100
        for lab in LABELS
    ],
    dtype=np.int64,
)


def entity_types(labels: np.ndarray) -> np.ndarray:
    """The entity type ids of label ids (the lexical class dropped: NP-ORG and ADJP-ORG are
    both ORG); -100 for an OTHER label or a phrase without a label."""
    labels = np.asarray(labels, dtype=np.int64)
    out = np.full(labels.shape, -100, dtype=np.int64)
    known = labels >= 0
    out[known] = _ENTITY_OF_LABEL[labels[known]]
    return out


def whole_groups(typed: int, batch_size: int, group_size: int) -> int:
    """The typed rows a batch takes when asked for ``typed``: whole groups of
    ``group_size``, leaving at least one row of the epoch's permutation."""
    return max(0, min(typed, batch_size - 1)) // group_size * group_size


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

    def __init__(
        self,
        pairs,
        labels,
        negatives,
        levels=("char", "token", "phrase"),
        augmenter_weights=None,
        max_examples: int = 0,
        seed: int = 0,
    ) -> None:
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
        self.anchor_negatives = [k[2] for k in kept] if all(len(k) == 3 for k in kept) else None
        self.labels = np.array(
            [LABEL_TO_ID.get(labels.get(a, ""), -100) for a in self.anchors], dtype=np.int64
        )
        self.types = entity_types(self.labels)
        self._by_type = {
            int(t): np.flatnonzero(self.types == t) for t in np.unique(self.types[self.types >= 0])
        }
        self.negatives = {a: negatives[a] for a in self.anchors if negatives.get(a)}
        self.seed = seed

    @classmethod
    def from_files(cls, corpus, augmented, negatives=None, **kwargs) -> TrainingData:
        """Read the three files of the training-data pipeline."""
        labels = {r.phrase: r.label for r in read_corpus(_require(corpus, "corpus"))}
        if not labels:
            raise ValueError(
                f"the corpus {corpus} holds no phrases (a header only?); build "
                "it with pearl build-corpus"
            )
        pairs = read_augmented(_require(augmented, "augmented"))
        if not pairs:
            raise ValueError(f"{augmented} holds no training pairs (a header only?)")
        negs = read_hard_negatives(_require(negatives, "hard negatives")) if negatives else {}
        return cls(pairs, labels, negs, **kwargs)

    @classmethod
    def from_triplets(cls, corpus, triplets, **kwargs) -> TrainingData:
        """Phrase-BERT triplets (``pearl triplets``): each pair with its own negative."""
        from pearl.augment.phrase_bert import read_triplets

        labels = {r.phrase: r.label for r in read_corpus(_require(corpus, "corpus"))}
        rows = [
            (p, pos, name, neg)
            for p, pos, neg, name in read_triplets(_require(triplets, "triplets"))
        ]
        return cls(rows, labels, {}, **kwargs)

    def __len__(self) -> int:
        return len(self.anchors)

    def steps_per_epoch(self, batch_size: int, typed: int = 0) -> int:
        """Steps to see every pair once, ``batch_size - typed`` pairs of the permutation per
        step (the ``typed`` rows of a batch are extra draws, see :meth:`batch`)."""
        return max(1, len(self) // max(1, batch_size - typed))

    def batch(
        self,
        step: int,
        batch_size: int,
        hard_negatives: int = 0,
        typed: int = 0,
        group_size: int = 4,
    ) -> Batch:
        """The batch of a global step (epochs are seeded permutations; the tail is dropped).

        With ``typed > 0``, the last ``typed`` rows are typed phrases drawn in groups of
        ``group_size`` of one entity type (types drawn uniformly among those with at least
        ``group_size`` phrases, each group without repeats), so that a supervised
        contrastive loss over types has positives in every batch; the first
        ``batch_size - typed`` rows walk the epoch's permutation. A typed row may repeat a
        pair of the permutation part (each with chance about (batch_size - typed) /
        len(self)), which then also counts as an in-batch negative.
        """
        typed = whole_groups(typed, batch_size, group_size)
        size = batch_size - typed
        per_epoch = self.steps_per_epoch(batch_size, typed)
        epoch, pos = divmod(step, per_epoch)
        order = np.random.default_rng([self.seed, epoch]).permutation(len(self))
        idx = order[pos * size : (pos + 1) * size]
        if typed:
            idx = np.concatenate([idx, self._typed_rows(step, typed // group_size, group_size)])
        anchors = [self.anchors[i] for i in idx]
        negatives: list[str] = []
        if hard_negatives:
            rng = random.Random(f"{self.seed}:neg:{step}")
            with_neg = [a for a in anchors if a in self.negatives]
            for a in rng.sample(with_neg, min(hard_negatives, len(with_neg))):
                negatives.append(rng.choice(self.negatives[a]))
        own = [self.anchor_negatives[i] for i in idx] if self.anchor_negatives is not None else None
        return Batch(
            anchors,
            [self.positives[i] for i in idx],
            negatives,
            self.labels[idx],
            own,
            self.types[idx],
        )

    def eligible_types(self, group_size: int) -> list[int]:
        """The entity type ids with at least ``group_size`` training phrases."""
        return sorted(t for t, rows in self._by_type.items() if len(rows) >= group_size)

    def _typed_rows(self, step: int, n_groups: int, group_size: int) -> np.ndarray:
        """``n_groups`` groups of ``group_size`` row ids sharing an entity type (a pure
        function of the seed and the step); empty when no type has enough phrases."""
        eligible = self.eligible_types(group_size)
        if not eligible:
            return np.zeros(0, dtype=np.int64)
        rng = np.random.default_rng([self.seed, step, 4])
        chosen = rng.choice(eligible, size=n_groups, replace=n_groups > len(eligible))
        return np.concatenate(
            [rng.choice(self._by_type[t], size=group_size, replace=False) for t in chosen]
        ).astype(np.int64)
