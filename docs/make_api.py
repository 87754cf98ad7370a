"""Write docs/api.md, the API reference, from the docstrings of the public names.

The public names are the ``__all__`` of ``pearl`` and of its documented packages;
each gets its signature and the first paragraph of its docstring, each class its public
methods. ``--check`` compares the page with the code instead of writing it (the test
suite runs it, so the page never drifts from the docstrings).

    python docs/make_api.py [--check]
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
from pathlib import Path

PAGE = Path(__file__).with_name("api.md")
NAMESPACES = (
    "pearl",
    "pearl.tables",
    "pearl.dask",
    "pearl.encoders",
    "pearl.models",
    "pearl.training",
    "pearl.losses",
    "pearl.evaluation",
)


def _summary(obj: object) -> str:
    """The first paragraph of a docstring, on one line."""
    doc = inspect.getdoc(obj) or ""
    return " ".join(doc.split("\n\n")[0].split())


def _signature(obj: object) -> str:
    """The signature, its annotations unquoted (the package's postponed annotations)."""
    try:
        text = str(inspect.signature(obj))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return ""
    text = re.sub(r"(?<=: )'([^']*)'(?=,| =|\))", r"\1", text)
    text = re.sub(r" -> '([^']*)'$", r" -> \1", text)
    return text.removesuffix(" -> None") if inspect.isclass(obj) else text


def _entry(namespace: str, name: str, obj: object) -> list[str]:
    if inspect.isclass(obj):
        lines = [f"### `{namespace}.{name}{_signature(obj)}`", "", _summary(obj), ""]
        for attr, member in sorted(vars(obj).items()):
            if attr.startswith("_") or not callable(member):
                continue
            member = getattr(obj, attr)
            lines += [f"- `{attr}{_signature(member)}`: {_summary(member)}"]
        return [*lines, ""]
    if callable(obj):
        return [f"### `{namespace}.{name}{_signature(obj)}`", "", _summary(obj), ""]
    shown = repr(obj)
    if not isinstance(obj, str | int | float | tuple | frozenset) or len(shown) > 120:
        shown = f"a {type(obj).__name__}"  # a table of tasks, say: see its guide
    return [f"### `{namespace}.{name}`", "", f"A constant: `{shown}`.", ""]


def page() -> str:
    """The API reference page, from the code."""
    lines = [
        "# API reference",
        "",
        "Generated from the docstrings by `python docs/make_api.py` (a test checks it is",
        "up to date). The public surface is these names; every other module and name is",
        "internal and may change between releases. The guides: [tables](tables.md),",
        "[matching](matching.md), [distributed](distributed.md), [training](training.md).",
        "",
    ]
    seen: dict[int, str] = {}
    for namespace in NAMESPACES:
        module = importlib.import_module(namespace)
        lines += [f"## `{namespace}`", "", _summary(module), ""]
        for name in sorted(module.__all__, key=str.lower):
            obj = getattr(module, name)
            if name.startswith("__"):
                continue
            if id(obj) in seen and not isinstance(obj, str | int | float):
                lines += [f"### `{namespace}.{name}`", "", f"The same as `{seen[id(obj)]}`.", ""]
                continue
            seen[id(obj)] = f"{namespace}.{name}"
            lines += _entry(namespace, name, obj)
    text = "\n".join(lines).rstrip() + "\n"
    return re.sub(r" at 0x[0-9a-f]+", "", text)  # no address of this process


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare, do not write")
    args = ap.parse_args()
    text = page()
    if args.check:
        if not PAGE.is_file() or PAGE.read_text(encoding="utf-8") != text:
            print(f"{PAGE} is out of date: run python docs/make_api.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
