"""Warnings that point at the user's line: the first frame outside pearl, however deep in
pearl the fact was found (Python 3.12's ``skip_file_prefixes``, by module name)."""

from __future__ import annotations

import sys
import types
import warnings

__all__ = ["PearlWarning", "warn_user"]


class PearlWarning(UserWarning):
    """A warning of pearl's own about your data or a decision made on it (a key column
    that tells no record from another, a join that links nothing, a precision that cannot
    be reached): filter pearl's warnings by this class.

    Attributes
    ----------
    args : tuple of str
        The message, as every warning holds it.

    Examples
    --------
    >>> import warnings, pearl
    >>> warnings.simplefilter("error", pearl.PearlWarning)  # each one an error
    """


def warn_user(message: str, category: type[Warning] = PearlWarning) -> None:
    """``warnings.warn(message, category)`` attributed to the caller's first frame that is
    not pearl's own code."""
    level = 1
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None and _ours(frame.f_globals.get("__name__", "")):
        level += 1
        frame = frame.f_back
    warnings.warn(message, category, stacklevel=level + 1)


def _ours(module: str) -> bool:
    return module == "pearl" or (module.startswith("pearl.") and not module.startswith("pearl_"))
