"""Training objectives: PEARL's InfoNCE with hard negatives and phrase-type loss,
Phrase-BERT's triplet loss, SentPWNet's multi-similarity loss, and distillation from a
teacher's similarities, and a supervised contrastive loss over entity types."""

from pearl._lazy import lazy_exports

__all__ = [
    "info_nce",
    "own_negatives_nce",
    "triplet_loss",
    "batch_hard_triplet_loss",
    "type_loss",
    "IGNORE_LABEL",
    "similarity_distillation",
    "multi_similarity_loss",
    "mine_pairs",
    "supervised_contrastive_loss",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "info_nce": "pearl.losses.contrastive",
        "own_negatives_nce": "pearl.losses.contrastive",
        "similarity_distillation": "pearl.losses.distill",
        "mine_pairs": "pearl.losses.multi_similarity",
        "multi_similarity_loss": "pearl.losses.multi_similarity",
        "supervised_contrastive_loss": "pearl.losses.supcon",
        "batch_hard_triplet_loss": "pearl.losses.triplet",
        "triplet_loss": "pearl.losses.triplet",
        "IGNORE_LABEL": "pearl.losses.types",
        "type_loss": "pearl.losses.types",
    },
)
