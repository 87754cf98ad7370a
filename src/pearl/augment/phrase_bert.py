"""Phrase-BERT's negatives: lexically controlled, so that word overlap is no cue.

Phrase-BERT trains on (phrase, positive, negative) triplets whose positive is a paraphrase
of the phrase and whose negative is made by replacing one non-stopword of the phrase with
a random vocabulary word and passing the result through the same augmenter that made the
positive: positive and negative then share about as many words with the phrase, and the
model must look at meaning. :func:`make_triplets` adds such a negative to every row of a
precomputed augmentation file (``pearl triplets``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from pathlib import Path

from tqdm.auto import tqdm

from pearl._io import atomic_tsv
from pearl.augment.token import _STOP

__all__ = ["replace_one_word", "make_triplets", "read_triplets"]


def replace_one_word(phrase: str, vocabulary: list[str], rng: random.Random) -> str | None:
    """``phrase`` with one of its non-stopword words replaced by a different random word
    of ``vocabulary`` (None when it has no such word or the vocabulary is empty)."""
    toks = phrase.split()
    options = [
        i for i, t in enumerate(toks) if t.lower() not in _STOP and any(c.isalpha() for c in t)
    ]
    if not options or not vocabulary:
        return None
    i = rng.choice(options)
    for _ in range(10):
        word = rng.choice(vocabulary)
        if word.lower() != toks[i].lower():
            return " ".join([*toks[:i], word, *toks[i + 1 :]])
    return None


def make_triplets(
    rows: Iterable[tuple[str, str, str]],
    augmenters: dict[str, Callable],
    vocabulary: list[str],
    path: str | Path,
    seed: int = 0,
    show_progress_bar: bool = True,
) -> Path:
    """Write ``phrase, positive, negative, augmenter`` rows, atomically.

    Parameters
    ----------
    rows : iterable of (phrase, positive, augmenter)
        A precomputed augmentation file (:func:`~pearl.augment.sampler.read_augmented`).
    augmenters : dict of name -> augmenter
        The augmenters by the names in ``rows``; the negative goes through the one that
        made the positive (left as the replaced phrase when it does not apply).
    vocabulary : list of str
        Words to replace with (e.g. the corpus's words).
    """
    path = Path(path)
    rows = list(rows)
    with atomic_tsv(path, ["phrase", "positive", "negative", "augmenter"]) as w:
        for i, (phrase, positive, name) in enumerate(
            tqdm(rows, desc="triplets", unit="row", disable=not show_progress_bar)
        ):
            rng = random.Random(f"{seed}:{i}")
            replaced = replace_one_word(phrase, vocabulary, rng)
            if replaced is None:
                continue
            aug = augmenters.get(name)
            negative = (aug(replaced, rng) if aug is not None else None) or replaced
            if negative not in (phrase, positive):
                w.writerow([phrase, positive, negative, name])
    return path


def read_triplets(path: str | Path) -> list[tuple[str, str, str, str]]:
    """Rows of a triplet file written by :func:`make_triplets`."""
    from pearl._io import read_tsv

    return read_tsv(path, ["phrase", "positive", "negative", "augmenter"], "triplet file")
