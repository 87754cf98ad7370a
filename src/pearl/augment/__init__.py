"""Augmentation at three granularities (character, token, phrase), a weighted sampler and
precomputation to a file."""

from pearl.augment.char import drop_char, insert_char, keyboard_typo, swap_chars
from pearl.augment.phrase import (
    AcronymParaphraser,
    MinedParaphraser,
    Paraphraser,
    Seq2SeqParaphraser,
    WordNetParaphraser,
)
from pearl.augment.sampler import AugmentationSampler, default_augmenters, precompute
from pearl.augment.token import GloveSynonyms, WordNetSynonyms, swap_tokens

__all__ = ["AcronymParaphraser", "AugmentationSampler", "GloveSynonyms", "MinedParaphraser",
           "Paraphraser", "Seq2SeqParaphraser", "WordNetParaphraser", "WordNetSynonyms",
           "default_augmenters", "drop_char", "insert_char", "keyboard_typo", "precompute",
           "swap_chars", "swap_tokens"]
