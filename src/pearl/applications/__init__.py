"""``pearl.applications`` was renamed :mod:`pearl.tables` (and its ``tables`` module
:mod:`pearl.tables.frames`). The old names still import, with a ``FutureWarning``, until
the next release: ``pearl.applications`` and each ``pearl.applications.X`` forward every
name to ``pearl.tables.X``."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
import warnings

_OLD, _NEW = "pearl.applications", "pearl.tables"
_RENAMED = {"tables": "frames"}


def _target(name: str) -> str:
    """The new name of an old module name."""
    rest = name[len(_OLD) :].lstrip(".")
    if not rest:
        return _NEW
    head, _, tail = rest.partition(".")
    return ".".join(p for p in (_NEW, _RENAMED.get(head, head), tail) if p)


class _Forward(types.ModuleType):
    """A module that answers every name it lacks from the module it was renamed to."""

    def __getattr__(self, attr: str):
        return getattr(importlib.import_module(_target(self.__name__)), attr)

    def __dir__(self):
        return dir(importlib.import_module(_target(self.__name__)))


class _Renamed(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports ``pearl.applications.X`` as a forwarding module to ``pearl.tables.X``."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_OLD + "."):
            return None
        if importlib.util.find_spec(_target(fullname)) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        return _Forward(spec.name)

    def exec_module(self, module) -> None:
        importlib.import_module(_target(module.__name__))  # a missing module fails here


if not any(isinstance(f, _Renamed) for f in sys.meta_path):
    sys.meta_path.append(_Renamed())
warnings.warn(
    "pearl.applications was renamed pearl.tables (pearl.applications.tables is "
    "pearl.tables.frames); the old names will be removed in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__].__class__ = _Forward
