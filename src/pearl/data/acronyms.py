"""Acronym definitions found in running text: "World Health Organization ( WHO )".

Real name variation from the training corpus itself, by the Schwartz & Hearst (2003)
algorithm: a short form in parentheses, and the shortest run of preceding words whose
characters contain the short form's letters in order, the first letter starting a word.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from tqdm.auto import tqdm

__all__ = ["long_form", "find_definitions", "mine_definitions"]

_SHORT = re.compile(r"\(\s*([A-Za-z][A-Za-z0-9&.\-]{1,9})\s*\)")
_BAD = set('()[];:,"<>|')


def long_form(short: str, words: list[str]) -> str | None:
    """The shortest tail of ``words`` that defines ``short`` (Schwartz & Hearst), or None.

    Every letter and digit of ``short`` must appear in order, right to left, and its first
    one must start a word of the long form.
    """
    s = short.lower()
    text = " ".join(words)
    low = text.lower()
    si, li = len(s) - 1, len(low) - 1
    while si >= 0:
        c = s[si]
        if not c.isalnum():
            si -= 1
            continue
        while li >= 0 and (low[li] != c or (si == 0 and li > 0 and low[li - 1].isalnum())):
            li -= 1
        if li < 0:
            return None
        si -= 1
        li -= 1
    start = low.rfind(" ", 0, li + 1) + 1
    return text[start:]


def find_definitions(text: str) -> list[tuple[str, str]]:
    """``(long form, short form)`` pairs defined in ``text``.

    The short form has two to ten characters, at least two letters and a capital; the long
    form has at least two words, no bracket or punctuation inside, and is longer than the
    short form.
    """
    out = []
    for m in _SHORT.finditer(text):
        short = m.group(1).rstrip(".-")
        if sum(c.isalpha() for c in short) < 2 or not any(c.isupper() for c in short):
            continue
        words = text[: m.start()].split()
        k = min(len(short) + 5, 2 * len(short))
        lf = long_form(short, words[-k:])
        if not lf:
            continue
        lf = lf.strip(" ,")
        if (
            len(lf.split()) < 2
            or len(lf) <= len(short)
            or _BAD & set(lf)
            or "<unk>" in lf
            or lf.split()[0].lower() in {"and", "of", "the", "or"}
        ):
            continue
        out.append((lf, short))
    return out


def mine_definitions(texts: Iterable[str] | str | Path, show_progress_bar: bool = True) -> Counter:
    """Count the acronym definitions in ``texts`` (strings, or a corpus folder read with
    :func:`pearl.data.sources.iter_text`)."""
    if isinstance(texts, str | Path):
        from pearl.data.sources import iter_text

        texts = (unit.text for unit in iter_text(texts))
    found: Counter = Counter()
    for text in tqdm(texts, desc="acronym definitions", unit="unit", disable=not show_progress_bar):
        if "(" in text:
            found.update(find_definitions(text))
    return found
