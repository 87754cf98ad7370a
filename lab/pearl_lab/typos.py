"""Typo and abbreviation generators, and typo'd deduplication tasks.

``GENERATORS`` maps a kind of error to a function ``(name, rng) -> misspelt name``: pearl's
own character augmenters (keyboard slips, dropped and swapped letters) and
:func:`abbreviate`; :func:`make_task` writes each name several times and misspells it a
few times. :func:`one_edit` is one random edit (deletion, insertion, substitution or
transposition).
"""

from __future__ import annotations

import random

from pearl.augment.char import drop_char, keyboard_typo, swap_chars
from pearl.evaluation.dev_proxy import LETTERS, one_edit

__all__ = ["GENERATORS", "abbreviate", "make_task", "make_values", "one_edit", "LETTERS"]

_ABBREV = {
    "Company": "Co.",
    "Corporation": "Corp.",
    "Incorporated": "Inc.",
    "International": "Intl",
    "Association": "Assn.",
    "Limited": "Ltd.",
    "Department": "Dept.",
    "University": "Univ.",
    "National": "Natl",
    "Industries": "Inds.",
    "Group": "Grp",
    "Bank": "Bk",
}


def abbreviate(name: str, rng: random.Random) -> str:
    """A known word abbreviated, else a word cut to its first letters and a dot."""
    words = name.split()
    known = [i for i, w in enumerate(words) if w in _ABBREV]
    if known:
        i = rng.choice(known)
        words[i] = _ABBREV[words[i]]
    else:
        long = [i for i, w in enumerate(words) if len(w) > 4] or [0]
        i = rng.choice(long)
        words[i] = words[i][: max(2, len(words[i]) // 2)] + "."
    return " ".join(words)


GENERATORS = {
    "keyboard": keyboard_typo,
    "drop": drop_char,
    "swap": swap_chars,
    "abbreviation": abbreviate,
}


def make_task(
    names: list[str], kind: str, count: int, typos: int, seed: int
) -> tuple[list[str], list[int]]:
    """``count`` copies of each name and ``typos`` misspellings of it by the ``kind`` of
    error (``"mixed"``: any), shuffled; and the index of each value's name."""
    rng = random.Random(seed)
    values, truth = [], []
    for g, name in enumerate(names):
        values += [name] * count
        truth += [g] * count
        for _ in range(typos):
            gen = GENERATORS[kind] if kind != "mixed" else rng.choice(list(GENERATORS.values()))
            values.append(gen(name, rng))
            truth.append(g)
    order = rng.sample(range(len(values)), len(values))
    return [values[i] for i in order], [truth[i] for i in order]


def make_values(corpus: str, n: int, seed: int = 0) -> tuple[list[str], list[int]]:
    """``n`` distinct values: corpus phrases and their misspellings, with their phrase id."""
    from pearl.data.corpus import read_corpus

    rng = random.Random(seed)
    phrases = sorted({r.phrase for r in read_corpus(corpus)})
    rng.shuffle(phrases)
    values: dict[str, int] = {}
    for g, phrase in enumerate(phrases):
        for text in [phrase] + [f(phrase, rng) for f in (keyboard_typo, drop_char, swap_chars)]:
            values.setdefault(text, g)
            if len(values) == n:
                return list(values), list(values.values())
    raise ValueError(f"the corpus gives only {len(values)} distinct values, fewer than {n}")
