"""Augmentation at three granularities (character, token, phrase), a weighted sampler and
precomputation to a file."""

from pearl._lazy import lazy_exports

__all__ = [
    "AcronymParaphraser",
    "AugmentationSampler",
    "GloveSynonyms",
    "MinedParaphraser",
    "Paraphraser",
    "Seq2SeqParaphraser",
    "WordNetParaphraser",
    "WordNetSynonyms",
    "default_augmenters",
    "drop_char",
    "insert_char",
    "keyboard_typo",
    "precompute",
    "swap_chars",
    "swap_tokens",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "drop_char": "pearl.augment.char",
        "insert_char": "pearl.augment.char",
        "keyboard_typo": "pearl.augment.char",
        "swap_chars": "pearl.augment.char",
        "AcronymParaphraser": "pearl.augment.phrase",
        "MinedParaphraser": "pearl.augment.phrase",
        "Paraphraser": "pearl.augment.phrase",
        "Seq2SeqParaphraser": "pearl.augment.phrase",
        "WordNetParaphraser": "pearl.augment.phrase",
        "AugmentationSampler": "pearl.augment.sampler",
        "default_augmenters": "pearl.augment.sampler",
        "precompute": "pearl.augment.sampler",
        "GloveSynonyms": "pearl.augment.token",
        "WordNetSynonyms": "pearl.augment.token",
        "swap_tokens": "pearl.augment.token",
    },
)
