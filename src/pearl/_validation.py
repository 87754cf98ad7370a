"""Input checks shared by every encoder."""

from __future__ import annotations

import math
from collections.abc import Iterable

__all__ = ["check_texts"]


def check_texts(texts: str | Iterable[str], name: str = "texts") -> list[str]:
    """Validate a batch of phrases and return it as a list of strings.

    Whitespace-only strings are mapped to ``""`` so that ``""``, ``" "`` and
    ``"\\t\\n"`` all receive the same vector (the encoder's vector of an empty
    input). Every other string is passed through unchanged.

    Parameters
    ----------
    texts : str or iterable of str
        One phrase or a sequence of phrases. A single string is wrapped in a list.
    name : str, default="texts"
        Name used in error messages.

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        If an element is None, NaN or not a string. The message names the
        first offending index.
    """
    if isinstance(texts, str):
        return [texts if texts.strip() else ""]
    if texts is None:
        raise ValueError(f"{name} must be a string or a sequence of strings, got None")
    out: list[str] = []
    for i, t in enumerate(texts):
        if isinstance(t, str):
            out.append(t if t.strip() else "")
            continue
        if t is None or (isinstance(t, float) and math.isnan(t)):
            what = "None" if t is None else "NaN"
            raise ValueError(
                f"{name}[{i}] is {what}; drop or fill missing values before encoding"
            )
        raise ValueError(
            f"{name}[{i}] is {type(t).__name__} ({t!r:.50}), expected str; "
            "convert non-string cells explicitly (e.g. str(x)) before encoding"
        )
    return out
