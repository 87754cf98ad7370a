"""Pick one augmentation per phrase by configurable weights, and precompute them to a file.

The positive view of each phrase is drawn by a ``random.Random`` seeded with
``"<seed>:<index>"``, so a precomputed file is the same on every run with the same seed,
and training reads it instead of paying for slow augmenters every epoch.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from pathlib import Path

from tqdm.auto import tqdm

from pearl._io import atomic_tsv
from pearl.augment.char import drop_char, insert_char, keyboard_typo, swap_chars
from pearl.augment.token import swap_tokens

__all__ = ["AugmentationSampler", "LEVELS", "default_augmenters", "precompute", "read_augmented"]

#: Granularity of each default augmenter (used to switch levels off).
LEVELS = {
    "char_swap": "char",
    "char_drop": "char",
    "char_insert": "char",
    "keyboard_typo": "char",
    "token_swap": "token",
    "wordnet_synonym": "token",
    "glove_synonym": "token",
    "wordnet_paraphrase": "phrase",
    "acronym": "phrase",
    "mined_paraphrase": "phrase",
}

Augmenter = Callable[[str, random.Random], "str | None"]


def default_augmenters(
    levels: Iterable[str] = ("char", "token", "phrase"),
    wordnet_dir: str | None = None,
    glove_threshold: float = 0.8,
    mined=None,
    glove_keep_names: bool = False,
) -> dict[str, Augmenter]:
    """The offline augmenters of the chosen levels (``mined`` is a fitted
    :class:`~pearl.augment.phrase.MinedParaphraser`, or None to leave it out;
    ``glove_keep_names`` is :class:`~pearl.augment.token.GloveSynonyms`' ``keep_names``)."""
    levels = set(levels)
    out: dict[str, Augmenter] = {}
    if "char" in levels:
        out.update(
            char_swap=swap_chars,
            char_drop=drop_char,
            char_insert=insert_char,
            keyboard_typo=keyboard_typo,
        )
    if "token" in levels:
        from pearl.augment.token import GloveSynonyms, WordNetSynonyms

        out.update(
            token_swap=swap_tokens,
            wordnet_synonym=WordNetSynonyms(wordnet_dir),
            glove_synonym=GloveSynonyms(threshold=glove_threshold, keep_names=glove_keep_names),
        )
    if "phrase" in levels:
        from pearl.augment.phrase import AcronymParaphraser, WordNetParaphraser

        out.update(wordnet_paraphrase=WordNetParaphraser(wordnet_dir), acronym=AcronymParaphraser())
        if mined is not None:
            out["mined_paraphrase"] = mined
    return out


class AugmentationSampler:
    """Choose one augmenter per phrase, by weight, among those that change it.

    Parameters
    ----------
    augmenters : dict of name -> callable(phrase, rng) -> str or None
    weights : dict of name -> float, optional
        Relative weights (default 1 each); 0 switches an augmenter off.
    seed : int, default=0
    """

    def __init__(
        self,
        augmenters: dict[str, Augmenter],
        weights: dict[str, float] | None = None,
        seed: int = 0,
    ) -> None:
        weights = weights or {}
        unknown = set(weights) - set(augmenters)
        if unknown:
            raise ValueError(f"weights for unknown augmenters: {sorted(unknown)}")
        self.augmenters = augmenters
        self.weights = {k: float(weights.get(k, 1.0)) for k in augmenters}
        if any(w < 0 for w in self.weights.values()):
            raise ValueError("weights must be >= 0")
        self.seed = seed

    def augment(self, phrase: str, index: int = 0) -> tuple[str, str]:
        """``(positive, augmenter name)``; ``(phrase, "identity")`` when none applies."""
        rng = random.Random(f"{self.seed}:{index}")
        names = [k for k, w in self.weights.items() if w > 0]
        while names:
            name = rng.choices(names, weights=[self.weights[k] for k in names])[0]
            out = self.augmenters[name](phrase, rng)
            if out and out != phrase:
                return out, name
            names.remove(name)
        return phrase, "identity"


def precompute(
    phrases: Iterable[str],
    sampler: AugmentationSampler,
    path: str | Path,
    views: int = 1,
    show_progress_bar: bool = True,
) -> Path:
    """Write ``phrase<TAB>positive<TAB>augmenter`` rows (``views`` per phrase), atomically."""
    path = Path(path)
    phrases = list(phrases)
    with atomic_tsv(path, ["phrase", "positive", "augmenter"]) as w:
        for i, p in enumerate(
            tqdm(phrases, desc="augment", unit="phrase", disable=not show_progress_bar)
        ):
            for v in range(views):
                pos, name = sampler.augment(p, i * views + v)
                w.writerow([p, pos, name])
    return path


def read_augmented(path: str | Path) -> list[tuple[str, str, str]]:
    """Rows of a precomputed augmentation file (a row without its three fields is a
    ``ValueError`` naming the file and line)."""
    from pearl._io import read_tsv

    return read_tsv(path, ["phrase", "positive", "augmenter"], "augmented file", False)
