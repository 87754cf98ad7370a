"""Training objectives: PEARL's InfoNCE with hard negatives, Phrase-BERT's triplet loss."""

from pearl.losses.contrastive import info_nce
from pearl.losses.triplet import triplet_loss

__all__ = ["info_nce", "triplet_loss"]
