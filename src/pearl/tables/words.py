"""Words in names: two names that differ by one word, swapped for another, name two things.

"North Korea" and "South Korea", "Jane Smith" and "John Smith", "Oxford University" and
"Cambridge University", "Bank of America" and "Bank of England", "New York Post" and "New
York Times" share most of their characters and words, so the string matcher gives such a
pair the probability of a name written twice (0.56-0.70, the range of true variants such
as "Acme Corp" and "Acme Corporation"), and ``deduplicate`` merged them.
A word swapped for a word that is neither its typo nor its abbreviation
names another place, person or thing. Two values are **a word apart** when, case and
punctuation aside (words: runs of letters and digits), they hold as many words, at least
two, in the same order, and differ at exactly one position, where both words are letters
only, at least :data:`MIN_LETTERS` long, not one edit apart (a substitution, an insertion,
a deletion or two adjacent letters swapped: "Jon" and "John") and neither abbreviates the
other (the same first letter and the shorter's letters in order in the longer: "Corp" and
"Corporation", "Intl" and "International"). Words added or dropped ("Bank of America
Corp"), words reordered ("University of Oxford") and numbers (:mod:`pearl.tables.numbers`)
are not this rule's.

With the combined matcher, ``deduplicate`` and ``cluster`` link two values a word apart
with probability at most :data:`WORD_APART`, whatever the typo rule gave them. The joins
and the index search do not use the rule: a left row's partner is often its reference
written with one word swapped (a record's suburb or surname replaced, a title's word
translated), and capped, such partners were lost at the join's default cut (FEBRL4 joined
on one key column: recall 0.57 -> 0.54 at precision 1.0; results/README.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

__all__ = [
    "WORD_APART",
    "MIN_LETTERS",
    "abbreviates",
    "within_one_edit",
    "word_apart",
    "worded_apart",
]

#: The most probability a link between two values a word apart keeps in ``deduplicate``
#: and ``cluster`` (below their default cut, 0.6).
WORD_APART = 0.4

#: The fewest letters of the two words that differ ("St" for "Street" is no other word).
MIN_LETTERS = 3

_WORD = re.compile(r"\w+")


def within_one_edit(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with at most one edit: a substitution, an insertion, a
    deletion or a swap of two adjacent characters (optimal string alignment)."""
    if len(a) > len(b):
        a, b = b, a
    if len(b) - len(a) > 1:
        return False
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1 :] == b[i + 1 :] or (
            i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]
        )
    return a[i:] == b[i + 1 :]


def abbreviates(short: str, long: str) -> bool:
    """Whether ``short`` (2+ characters) abbreviates ``long``: same first letter, shorter,
    and its letters appear in order in ``long`` ("intl", "corp", "lit" of "little")."""
    if len(short) < 2 or len(short) >= len(long) or short[0] != long[0]:
        return False
    rest = iter(long[1:])
    return all(ch in rest for ch in short[1:])


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def _swapped(x: str, y: str) -> bool:
    """Whether word ``y`` stands where ``x`` stood as another word (the rule above)."""
    if not (x.isalpha() and y.isalpha()) or min(len(x), len(y)) < MIN_LETTERS:
        return False
    if within_one_edit(x, y):
        return False
    return not (abbreviates(x, y) or abbreviates(y, x))


def word_apart(a: str, b: str) -> bool:
    """Whether texts ``a`` and ``b`` are a word apart (the module's rule)."""
    return _apart_words(_words(a), _words(b))


def _apart_words(wa: list[str], wb: list[str]) -> bool:
    if len(wa) != len(wb) or len(wa) < 2:
        return False
    differ = [i for i, (x, y) in enumerate(zip(wa, wb, strict=True)) if x != y]
    return len(differ) == 1 and _swapped(wa[differ[0]], wb[differ[0]])


def worded_apart(texts: Sequence[str], rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """For each pair ``(texts[rows[e]], texts[cols[e]])``: whether the two are a word
    apart. Only pairs of as many words (two or more) are compared word by word, each of
    their texts split once (a million values are counted, not all held split)."""
    counts = np.fromiter((len(_WORD.findall(t)) for t in texts), dtype=np.int64, count=len(texts))
    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    out = np.zeros(len(rows), dtype=bool)
    todo = np.flatnonzero((counts[rows] == counts[cols]) & (counts[rows] >= 2))
    words: dict[int, list[str]] = {}

    def of(i: int) -> list[str]:
        if i not in words:
            words[i] = _words(texts[i])
        return words[i]

    out[todo] = [_apart_words(of(int(rows[e])), of(int(cols[e]))) for e in todo]
    return out
