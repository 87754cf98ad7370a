"""Input checks shared by every public function: texts, and typed, ranged parameters.

Wrong types raise ``TypeError`` and out-of-range values ``ValueError`` (the scikit-learn
convention); both name the parameter, and both are raised before any work starts.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable
from typing import Any

__all__ = [
    "check_texts",
    "check_int",
    "check_float",
    "check_bool",
    "check_choice",
    "clean_text",
    "nfc",
    "InputError",
    "InputTypeError",
    "MissingKeyError",
]

_SURROGATES = re.compile("[\ud800-\udfff]")


def check_texts(texts: str | Iterable[str], name: str = "texts") -> list[str]:
    """Validate a batch of phrases and return it as a list of strings.

    Whitespace-only strings are mapped to ``""`` so that ``""``, ``" "`` and
    ``"\\t\\n"`` all receive the same vector (the encoder's vector of an empty
    input). Lone surrogates (half a UTF-16 pair, as Python makes of invalid UTF-8 on a
    command line) cannot be encoded as UTF-8 and are replaced by U+FFFD, the replacement
    character. Text is put in Unicode's composed form (NFC: "é" one code point, not "e" and
    a combining accent), so that one text stored in either form gets one vector; every
    other string is passed through unchanged.

    Parameters
    ----------
    texts : str or iterable of str
        One phrase or a sequence of phrases (a list, a pandas Series, a pyarrow Array or
        ChunkedArray). A single string is wrapped in a list.
    name : str, default="texts"
        Name used in error messages.

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        If ``texts`` is not iterable, or an element is None, NaN or not a string. The
        message names the first offending index.
    """
    if isinstance(texts, str):
        return [clean_text(texts)]
    if type(texts).__module__.startswith("pyarrow") and hasattr(texts, "to_pylist"):
        texts = texts.to_pylist()  # an Array or ChunkedArray: its cells, nulls as None
    if (
        texts is None
        or isinstance(texts, bytes | bytearray | dict)
        or not isinstance(texts, Iterable)
    ):
        raise ValueError(
            f"{name} must be a string or a sequence of strings, got {type(texts).__name__}"
        )
    out: list[str] = []
    for i, t in enumerate(texts):
        if isinstance(t, str):
            out.append(clean_text(t))
            continue
        if t is None or (isinstance(t, float) and math.isnan(t)):
            what = "None" if t is None else "NaN"
            raise ValueError(f"{name}[{i}] is {what}; drop or fill missing values before encoding")
        raise ValueError(
            f"{name}[{i}] is {type(t).__name__} ({t!r:.50}), expected str; "
            "convert non-string cells explicitly (e.g. str(x)) before encoding"
        )
    return out


class InputError(Exception):
    """Marks an error pearl raises on purpose about its input (a wrong type, a missing
    column, a missing teacher vector): the CLI prints it as ``pearl: error: ...``, while
    any other exception surfaces as a bug with its traceback."""


class InputTypeError(InputError, TypeError):
    """A parameter of the wrong type (a ``TypeError``)."""


class MissingKeyError(InputError, KeyError):
    """A column, phrase or entry that is not there (a ``KeyError``)."""

    def __str__(self) -> str:  # KeyError quotes its message; this one reads as a sentence
        return str(self.args[0]) if self.args else ""


def clean_text(text: str) -> str:
    """``""`` for a whitespace-only string, lone surrogates replaced by U+FFFD, and
    Unicode's composed form (:func:`nfc`)."""
    if not text.strip():
        return ""
    if text.isascii():
        return text
    return nfc(_SURROGATES.sub("\ufffd", text))


def nfc(text: str) -> str:
    """``text`` in Unicode's normal form C: a letter and its accent as one code point,
    as most systems store them ("é" typed on macOS or read from its file names is "e" and
    a combining accent, which compared as another string and other n-grams)."""
    if text.isascii():
        return text
    import unicodedata

    return unicodedata.normalize("NFC", text)


def check_int(
    value: Any, name: str, min_value: int | None = None, max_value: int | None = None
) -> int:
    """An integer parameter (bool, float and str are refused), within bounds."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputTypeError(
            f"{name} must be an integer, got {type(value).__name__} ({value!r:.40})"
        )
    value = int(value)
    if (min_value is not None and value < min_value) or (
        max_value is not None and value > max_value
    ):
        raise ValueError(f"{name} must be {_bounds(min_value, max_value)}, got {value}")
    return value


def check_float(
    value: Any, name: str, min_value: float | None = None, max_value: float | None = None
) -> float:
    """A real parameter (ints accepted; bool, str and NaN refused), within bounds."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputTypeError(f"{name} must be a number, got {type(value).__name__} ({value!r:.40})")
    value = float(value)
    if (
        math.isnan(value)
        or (min_value is not None and value < min_value)
        or (max_value is not None and value > max_value)
    ):
        raise ValueError(f"{name} must be {_bounds(min_value, max_value)}, got {value}")
    return value


def check_bool(value: Any, name: str) -> bool:
    """A boolean parameter (numpy booleans accepted; 0/1 and strings refused)."""
    if not isinstance(value, bool) and type(value).__name__ != "bool_":
        raise InputTypeError(
            f"{name} must be True or False, got {type(value).__name__} ({value!r:.40})"
        )
    return bool(value)


def check_choice(value: Any, name: str, choices: Iterable[str]) -> str:
    """One of a fixed set of strings."""
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        raise ValueError(
            f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r:.40}"
        )
    return value


def _bounds(lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is not None:
        return f"between {lo} and {hi}"
    return f">= {lo}" if lo is not None else f"<= {hi}"
