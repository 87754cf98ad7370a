"""Writing result files atomically."""

from __future__ import annotations

import contextlib
import csv
from collections.abc import Iterator
from pathlib import Path

__all__ = ["atomic_path", "atomic_tsv"]


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path to write to, renamed to ``path`` only when the block ends without
    error; an interrupted write leaves any previous file untouched and no partial one
    behind."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:
        yield tmp
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


@contextlib.contextmanager
def atomic_tsv(path: str | Path, header: list[str]) -> Iterator[csv.writer]:
    """A TSV writer (UTF-8, ``\\n`` line ends, header written) whose file appears at
    ``path`` only when the block ends without error (see :func:`atomic_path`)."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, delimiter="\t", lineterminator="\n")
        writer.writerow(header)
        yield writer
