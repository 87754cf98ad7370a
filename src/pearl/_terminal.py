"""Text shown on a terminal: a received table's cells drawn as what they hold.

A cell is data from whoever sent the table. Written to a terminal as it is, its control
characters act: an escape sequence conceals text, moves the cursor up and erases a line,
or sets the window title, and a right-to-left override reorders what follows, so that a
sender can hide or fake the pair a reviewer labels. :func:`printable` writes each such
character as an escape (``\\x1b``, ``\\u202e``), the way ``ls`` shows a file name; the
files pearl writes keep every byte.
"""

from __future__ import annotations

import re
import sys
import warnings

__all__ = ["printable", "show_warnings_plainly"]

#: C0 and C1 control characters and DEL, and the bidirectional embeddings, overrides,
#: isolates and marks (U+200E-200F, U+202A-202E, U+2066-2069), the line and paragraph
#: separators (U+2028, U+2029)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object, lines: bool = False) -> str:
    """``text`` (made a ``str``) with every control character written as its escape.

    Parameters
    ----------
    text : object
        What is shown; ``str(text)`` is escaped.
    lines : bool, default=False
        Keep line breaks (``\\n``) as they are: a multi-line message or table whose
        lines pearl made. A cell's own line break is escaped (``lines=False``).

    Returns
    -------
    str
    """
    text = str(text)
    if not lines:
        return _CONTROL.sub(_escape, text)
    return "\n".join(_CONTROL.sub(_escape, part) for part in text.split("\n"))


def show_warnings_plainly() -> None:
    """Warnings on standard error as ``pearl: warning: MESSAGE``, one line a warning
    (the message escaped as :func:`printable` does, line breaks kept), without the Python
    source line that the default format prints beneath it."""

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        stream = sys.stderr if file is None else file
        try:
            stream.write(f"pearl: warning: {printable(message, lines=True)}\n")
        except OSError:  # a closed terminal: a warning is not worth an error
            pass

    warnings.showwarning = show
