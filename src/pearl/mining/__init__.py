"""Hard negatives: phrases close in surface form but far in meaning."""

from pearl.mining.hard_negatives import edit_candidates, mine_hard_negatives

__all__ = ["edit_candidates", "mine_hard_negatives"]
