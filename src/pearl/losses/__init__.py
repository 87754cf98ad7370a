"""Training objectives: PEARL's InfoNCE with hard negatives and phrase-type loss,
Phrase-BERT's triplet loss, SentPWNet's multi-similarity loss, and distillation from a
teacher's similarities, and a supervised contrastive loss over entity types."""

from pearl.losses.contrastive import info_nce
from pearl.losses.distill import similarity_distillation
from pearl.losses.multi_similarity import mine_pairs, multi_similarity_loss
from pearl.losses.supcon import supervised_contrastive_loss
from pearl.losses.triplet import batch_hard_triplet_loss, triplet_loss
from pearl.losses.types import IGNORE_LABEL, type_loss

__all__ = ["info_nce", "triplet_loss", "batch_hard_triplet_loss", "type_loss", "IGNORE_LABEL",
           "similarity_distillation", "multi_similarity_loss", "mine_pairs",
           "supervised_contrastive_loss"]
