"""The training objective as loss modules that the trainer composes from its configuration.

As in sentence-transformers, each objective is an ``nn.Module``; here each one reads what
it needs from one :class:`StepEmbeddings` (the batch and its embeddings, computed once per
step) and returns a scalar, or None when the batch holds nothing for it (no typed phrase,
fewer than two contexts). :func:`build_objective` picks the terms from a
:class:`~pearl.training.config.TrainConfig`; :class:`Objective` sums them with their
weights and reports each one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from pearl.losses import (
    batch_hard_triplet_loss,
    info_nce,
    multi_similarity_loss,
    own_negatives_nce,
    similarity_distillation,
    supervised_contrastive_loss,
    triplet_loss,
    type_loss,
)
from pearl.training.loss_specs import loss_specs

__all__ = [
    "StepEmbeddings",
    "LossTerm",
    "ContrastiveLoss",
    "ContextLoss",
    "DistillationLoss",
    "TypeLoss",
    "TypeContrastiveLoss",
    "WordNegativeLoss",
    "Objective",
    "LOSS_TERMS",
    "build_objective",
    "GroupLoss",
    "MultiSimilarityLoss",
    "GroupInfoNCELoss",
    "GroupTripletLoss",
    "GROUP_LOSSES",
    "group_objective",
]


@dataclass
class StepEmbeddings:
    """One training step: the batch and the embeddings every loss term reads.

    Attributes
    ----------
    batch : TrainingBatch
        Anchors, positives, negatives, labels and entity types of the step.
    anchors, positives : Tensor of shape (batch, dim)
    negatives : Tensor of shape (k, dim)
        The batch's shared hard negatives (possibly empty).
    own_negatives : Tensor of shape (batch, dim) or (0, dim)
        Each anchor's own negative (Phrase-BERT's triplets).
    encode : callable
        Texts -> embeddings with the model being trained (a forward pass of their own).
    fusion : CharFusion or None
        The fused module (its type head), when the model has one.
    groups : Tensor of shape (batch,) or None
        In fine-tuning, the group of equivalent strings of each row of ``anchors``.
    """

    batch: Any
    anchors: torch.Tensor
    positives: torch.Tensor
    negatives: torch.Tensor
    own_negatives: torch.Tensor
    encode: Callable[[list[str]], torch.Tensor]
    fusion: Any = None
    groups: torch.Tensor | None = None

    @classmethod
    def of_groups(cls, embeddings: torch.Tensor, groups: torch.Tensor) -> StepEmbeddings:
        """A fine-tuning step: a batch of strings and the group of each (no pairs)."""
        none = embeddings[:0]

        def encode(texts: list[str]) -> torch.Tensor:  # pragma: no cover - no term asks
            raise NotImplementedError("a fine-tuning step has no encoder")

        return cls(None, embeddings, none, none, none, encode, groups=groups)


class LossTerm(nn.Module):
    """A weighted term of the objective, reported under ``name``.

    ``forward(step)`` returns a scalar tensor, or None when the step has nothing for the
    term; a term that is ``reported_when_absent`` is then logged as NaN, others not at all.
    """

    name = "loss"
    reported_when_absent = False

    def __init__(self, weight: float = 1.0) -> None:
        super().__init__()
        self.weight = float(weight)

    def forward(self, step: StepEmbeddings) -> torch.Tensor | None:  # pragma: no cover
        raise NotImplementedError


class ContrastiveLoss(LossTerm):
    """The main objective: PEARL's InfoNCE (``"infonce"``), a batch-hard triplet loss
    (``"triplet"``) or Phrase-BERT's triplet loss over each anchor's own negative
    (``"phrase-bert"``)."""

    name = "contrastive"

    def __init__(
        self, objective: str = "infonce", temperature: float = 0.07, margin: float = 1.0
    ) -> None:
        super().__init__(1.0)
        if objective not in ("infonce", "triplet", "phrase-bert"):
            raise ValueError(f"unknown objective {objective!r}")
        self.objective, self.temperature, self.margin = objective, temperature, margin

    def forward(self, step: StepEmbeddings) -> torch.Tensor:
        a, p, n = step.anchors, step.positives, step.negatives
        if self.objective == "phrase-bert":
            return triplet_loss(a, p, step.own_negatives, self.margin)
        if self.objective == "triplet":
            return batch_hard_triplet_loss(a, p, n if len(n) else None, self.margin)
        return info_nce(a, p, n if len(n) else None, self.temperature)


class ContextLoss(LossTerm):
    """Phrase-BERT's context triplets: an anchor near its own context sentence, far from
    another anchor's."""

    name = "context"

    def __init__(
        self, contexts: dict[str, str], weight: float, margin: float = 1.0, max_contexts: int = 0
    ) -> None:
        super().__init__(weight)
        self.contexts, self.margin, self.max_contexts = contexts, margin, max_contexts

    def rows(self, anchors: list[str]) -> tuple[list[int], list[str]]:
        """The anchors that have a context (none unless the batch has two), and those
        contexts in the same order."""
        rows = [i for i, a in enumerate(anchors) if a in self.contexts]
        if self.max_contexts > 0:
            rows = rows[: self.max_contexts]  # the batch is a random draw already
        if len(rows) < 2:
            return [], []
        return rows, [self.contexts[anchors[i]] for i in rows]

    def forward(self, step: StepEmbeddings) -> torch.Tensor | None:
        rows, contexts = self.rows(step.batch.anchors)
        if not rows:
            return None
        # a forward pass of their own: padded with the phrases, the long contexts would
        # make every phrase as long as they are (4x the step time)
        c = step.encode(contexts)
        # each anchor against its own context and the next anchor's (a random other one:
        # the batch is a random draw)
        return triplet_loss(step.anchors[rows], c, c.roll(1, dims=0), self.margin)


class DistillationLoss(LossTerm):
    """KL between the in-batch similarity distributions of the model and of a teacher."""

    name = "distill"

    def __init__(
        self, teacher: Callable[[list[str]], Any], weight: float, temperature: float
    ) -> None:
        super().__init__(weight)
        self.teacher, self.temperature = teacher, temperature

    def forward(self, step: StepEmbeddings) -> torch.Tensor:
        target = torch.from_numpy(self.teacher(step.batch.anchors)).to(step.anchors.device)
        return similarity_distillation(step.anchors, target, self.temperature)


class TypeLoss(LossTerm):
    """PEARL's auxiliary phrase-type classification (95 labels) of anchors and positives."""

    name = "type"
    reported_when_absent = True

    def __init__(
        self,
        weight: float,
        class_weights: torch.Tensor | None = None,
        head: nn.Module | None = None,
    ) -> None:
        super().__init__(weight)
        self.class_weights = class_weights
        self.head = head  # a classifier of its own; default: the fused module's type head

    def forward(self, step: StepEmbeddings) -> torch.Tensor | None:
        y = torch.as_tensor(step.batch.labels, device=step.anchors.device)
        classify = self.head if self.head is not None else step.fusion.type_logits
        logits = classify(torch.cat([step.anchors, step.positives]))
        return type_loss(logits, torch.cat([y, y]), self.class_weights)


class TypeContrastiveLoss(LossTerm):
    """Supervised contrastive loss over the entity types of the batch's typed groups."""

    name = "type_contrastive"
    reported_when_absent = True

    def __init__(self, weight: float, temperature: float) -> None:
        super().__init__(weight)
        self.temperature = temperature

    def forward(self, step: StepEmbeddings) -> torch.Tensor | None:
        if step.batch.types is None:
            return None
        return supervised_contrastive_loss(step.anchors, step.batch.types, self.temperature)


class WordNegativeLoss(LossTerm):
    """Names that share words but name another entity ("New York Post" for "The New
    York Times"; ``pearl mine --shared-words``): each anchor that has such negatives
    against its positive and its own negatives only (:func:`~pearl.losses.own_negatives_nce`),
    so they push away the name they were chosen for without reshaping the whole batch."""

    name = "word_negatives"

    def __init__(
        self,
        negatives: dict[str, list[str]],
        weight: float,
        temperature: float = 0.07,
        per_anchor: int = 2,
    ) -> None:
        super().__init__(weight)
        self.negatives, self.temperature, self.per_anchor = negatives, temperature, per_anchor

    def forward(self, step: StepEmbeddings) -> torch.Tensor | None:
        anchors = step.batch.anchors
        rows = [i for i, a in enumerate(anchors) if self.negatives.get(a)]
        if not rows:
            return None
        lists = [self.negatives[anchors[i]][: self.per_anchor] for i in rows]
        k = max(len(v) for v in lists)
        texts = [v[j] if j < len(v) else v[0] for v in lists for j in range(k)]
        valid = torch.tensor([[j < len(v) for j in range(k)] for v in lists])
        negs = step.encode(texts).view(len(rows), k, -1)
        return own_negatives_nce(
            step.anchors[rows], step.positives[rows], negs, valid.to(negs.device), self.temperature
        )


class Objective(nn.Module):
    """The weighted sum of loss terms, with each term's value for the training log."""

    def __init__(self, terms: list[LossTerm]) -> None:
        super().__init__()
        if not terms:
            raise ValueError("an objective needs at least one loss term")
        self.terms = nn.ModuleList(terms)

    def forward(self, step: StepEmbeddings) -> tuple[torch.Tensor, dict[str, float]]:
        loss, record = None, {}
        for term in self.terms:
            value = term(step)
            if value is None:
                if term.reported_when_absent:
                    record[term.name] = float("nan")
                continue
            weighted = value if term.weight == 1.0 else term.weight * value
            loss = weighted if loss is None else loss + weighted
            record[term.name] = value.item()
        if loss is None:  # pragma: no cover - the contrastive term always has a value
            raise ValueError("no loss term had a value for this batch")
        record["loss"] = loss.item()
        return loss, record


#: the objective's terms by loss name: (spec, runtime inputs) -> the term
LOSS_TERMS: dict[str, Callable[..., LossTerm]] = {
    **{
        name: (lambda spec, **_: ContrastiveLoss(spec["loss"], spec["temperature"], spec["margin"]))
        for name in ("infonce", "triplet", "phrase-bert")
    },
    "context": lambda spec, contexts, **_: ContextLoss(
        contexts, spec["weight"], spec["margin"], spec["max_contexts"]
    ),
    "distill": lambda spec, teacher, **_: DistillationLoss(
        teacher, spec["weight"], spec["temperature"]
    ),
    "type": lambda spec, head=None, **_: TypeLoss(spec["weight"], head=head),
    "type_contrastive": lambda spec, **_: TypeContrastiveLoss(spec["weight"], spec["temperature"]),
    "word_negatives": lambda spec, word_negatives, **_: WordNegativeLoss(
        word_negatives, spec["weight"], spec["temperature"]
    ),
}


def build_objective(
    config,
    *,
    contexts: dict[str, str] | None = None,
    teacher=None,
    head: nn.Module | None = None,
    word_negatives: dict[str, list[str]] | None = None,
) -> Objective:
    """The terms of ``config``'s loss specs (:func:`~pearl.training.loss_specs.loss_specs`),
    made by :data:`LOSS_TERMS` in the order they are summed: contrastive, context,
    distillation, type, type-contrastive, word negatives. The context, distillation and
    word-negatives terms need their inputs (``contexts``: anchor -> context sentence;
    ``teacher``: texts -> embeddings; ``word_negatives``: name -> names sharing its words);
    ``head`` is the type term's own classifier (default: the fused module's head)."""
    inputs = {
        "contexts": contexts,
        "teacher": teacher,
        "head": head,
        "word_negatives": word_negatives,
    }
    terms = []
    for spec in loss_specs(config):
        needs = {
            "context": "contexts",
            "distill": "teacher",
            "word_negatives": "word_negatives",
        }.get(spec["loss"])
        if needs and inputs[needs] is None:
            raise ValueError(f"the {spec['loss']!r} loss needs its {needs}")
        terms.append(LOSS_TERMS[spec["loss"]](spec, **inputs))
    return Objective(terms)


class GroupLoss(LossTerm):
    """A term over groups of equivalent strings (fine-tuning on labelled matches): reads
    the batch's embeddings (``step.anchors``) and their groups (``step.groups``)."""

    @staticmethod
    def first_pairs(step: StepEmbeddings) -> tuple[torch.Tensor, torch.Tensor]:
        """One (anchor, positive) pair per group of the batch: its first two members."""
        first: dict[int, list[int]] = {}
        assert step.groups is not None, "a group loss needs the groups of the batch"
        for i, g in enumerate(step.groups.tolist()):
            first.setdefault(g, []).append(i)
        pairs = [(m[0], m[1]) for m in first.values() if len(m) >= 2]
        emb = step.anchors
        return emb[[p[0] for p in pairs]], emb[[p[1] for p in pairs]]


class MultiSimilarityLoss(GroupLoss):
    """SentPWNet's multi-similarity loss with locality weighting and epsilon mining."""

    name = "ms"

    def __init__(
        self, alpha: float = 2.0, beta: float = 50.0, base: float = 0.5, epsilon: float = 0.1
    ) -> None:
        super().__init__(1.0)
        self.alpha, self.beta, self.base, self.epsilon = alpha, beta, base, epsilon

    def forward(self, step: StepEmbeddings) -> torch.Tensor:
        return multi_similarity_loss(
            step.anchors,
            step.groups,
            alpha=self.alpha,
            beta=self.beta,
            base=self.base,
            epsilon=self.epsilon,
        )


class GroupInfoNCELoss(GroupLoss):
    """InfoNCE over one in-group pair per group, the other groups' pairs as negatives."""

    name = "infonce"

    def __init__(self, temperature: float = 0.05) -> None:
        super().__init__(1.0)
        self.temperature = temperature

    def forward(self, step: StepEmbeddings) -> torch.Tensor:
        a, p = self.first_pairs(step)
        return info_nce(a, p, temperature=self.temperature)


class GroupTripletLoss(GroupLoss):
    """A batch-hard triplet loss over one in-group pair per group."""

    name = "triplet"

    def __init__(self, margin: float = 1.0) -> None:
        super().__init__(1.0)
        self.margin = margin

    def forward(self, step: StepEmbeddings) -> torch.Tensor:
        a, p = self.first_pairs(step)
        return batch_hard_triplet_loss(a, p, margin=self.margin)


#: fine-tuning's objectives by name (``pearl finetune --loss``)
GROUP_LOSSES: dict[str, type[GroupLoss]] = {
    "ms": MultiSimilarityLoss,
    "infonce": GroupInfoNCELoss,
    "triplet": GroupTripletLoss,
}


def group_objective(loss: str, **options: float) -> Objective:
    """The objective of :data:`GROUP_LOSSES` named ``loss``, given the options it takes
    (others, meant for the other losses, are ignored)."""
    import inspect

    if loss not in GROUP_LOSSES:
        raise ValueError(f"unknown loss {loss!r}; choose one of {sorted(GROUP_LOSSES)}")
    cls = GROUP_LOSSES[loss]
    accepted = inspect.signature(cls).parameters
    return Objective([cls(**{k: v for k, v in options.items() if k in accepted})])
