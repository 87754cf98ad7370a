"""Lazy public names for pearl's packages (PEP 562), as scikit-learn and scipy do.

``import pearl`` (and ``pearl --help``) must not import torch, transformers,
sentence-transformers, scikit-learn or pandas: a package's ``__init__`` names what it
exports and where it lives, and the module is imported on first use of a name.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, names: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for a package whose public ``names`` (name ->
    module) are imported on first access and then kept in the package's namespace."""

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(names[name]), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(names) | set(vars(sys.modules[package])))

    return __getattr__, __dir__
