"""Hard negatives: phrases close in surface form but far in meaning, and names that share
words but name other things."""

from pearl._lazy import lazy_exports

__all__ = ["edit_candidates", "mine_hard_negatives", "shared_word_negatives"]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "edit_candidates": "pearl.mining.hard_negatives",
        "mine_hard_negatives": "pearl.mining.hard_negatives",
        "shared_word_negatives": "pearl.mining.shared_words",
    },
)
