"""Character-level augmentation: typos a person makes.

Each function takes a phrase and a ``random.Random`` and returns a new phrase; a phrase
with too few letters to edit is returned unchanged. Only letters are edited, so digits,
punctuation and spacing survive.
"""

from __future__ import annotations

import random

__all__ = ["swap_chars", "drop_char", "insert_char", "keyboard_typo", "QWERTY_NEIGHBOURS"]

_ROWS = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]


def _neighbours() -> dict[str, str]:
    pos = {c: (r, i) for r, row in enumerate(_ROWS) for i, c in enumerate(row)}
    out = {}
    for c, (r, i) in pos.items():
        near = []
        for dr, di in ((0, -1), (0, 1), (-1, 0), (-1, 1), (1, -1), (1, 0)):
            rr, ii = r + dr, i + di
            if 0 <= rr < len(_ROWS) and 0 <= ii < len(_ROWS[rr]):
                near.append(_ROWS[rr][ii])
        out[c] = "".join(near)
    return out


#: Keys adjacent to each letter on a QWERTY keyboard.
QWERTY_NEIGHBOURS = _neighbours()


def _letters(phrase: str) -> list[int]:
    return [i for i, c in enumerate(phrase) if c.isalpha()]


def swap_chars(phrase: str, rng: random.Random) -> str:
    """Swap two adjacent letters ("times" -> "tiems")."""
    idx = [
        i
        for i in _letters(phrase)
        if i + 1 < len(phrase)
        and phrase[i + 1].isalpha()
        and phrase[i].lower() != phrase[i + 1].lower()
    ]
    if not idx:
        return phrase
    i = rng.choice(idx)
    return phrase[:i] + phrase[i + 1] + phrase[i] + phrase[i + 2 :]


def drop_char(phrase: str, rng: random.Random) -> str:
    """Drop one letter ("times" -> "tims"), never the only letter."""
    idx = _letters(phrase)
    if len(idx) < 2:
        return phrase
    i = rng.choice(idx)
    return phrase[:i] + phrase[i + 1 :]


def insert_char(phrase: str, rng: random.Random) -> str:
    """Insert a letter next to a letter, a keyboard neighbour of it ("times" -> "timers")."""
    idx = _letters(phrase)
    if not idx:
        return phrase
    i = rng.choice(idx)
    near = QWERTY_NEIGHBOURS.get(phrase[i].lower()) or "etaoin"
    c = rng.choice(near)
    c = c.upper() if phrase[i].isupper() else c
    return phrase[: i + 1] + c + phrase[i + 1 :]


def keyboard_typo(phrase: str, rng: random.Random) -> str:
    """Replace a letter by a QWERTY neighbour ("times" -> "tines")."""
    idx = [i for i in _letters(phrase) if phrase[i].lower() in QWERTY_NEIGHBOURS]
    if not idx:
        return phrase
    i = rng.choice(idx)
    c = rng.choice(QWERTY_NEIGHBOURS[phrase[i].lower()])
    return phrase[:i] + (c.upper() if phrase[i].isupper() else c) + phrase[i + 1 :]
