"""A switch for the table tools' progress bars: ``pearl join -q`` and ``pearl dedup -q``
turn them off for the call, whatever size decides a bar otherwise."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

__all__ = ["no_progress", "silenced"]

_SILENCED = contextvars.ContextVar("pearl_no_progress", default=False)


@contextlib.contextmanager
def no_progress(active: bool = True) -> Iterator[None]:
    """No encoding progress bar inside the block (when ``active``)."""
    token = _SILENCED.set(bool(active) or _SILENCED.get())
    try:
        yield
    finally:
        _SILENCED.reset(token)


def silenced() -> bool:
    """Whether a :func:`no_progress` block is running."""
    return _SILENCED.get()
