"""Training objectives: PEARL's InfoNCE with hard negatives and phrase-type loss,
Phrase-BERT's triplet loss."""

from pearl.losses.contrastive import info_nce
from pearl.losses.triplet import batch_hard_triplet_loss, triplet_loss
from pearl.losses.types import IGNORE_LABEL, type_loss

__all__ = ["info_nce", "triplet_loss", "batch_hard_triplet_loss", "type_loss", "IGNORE_LABEL"]
