"""The identity of a model folder: a hash of the full content of every file in it."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from pearl._hashing import file_sha256

__all__ = ["folder_fingerprint"]


def folder_fingerprint(path: str | os.PathLike) -> str:
    """A short hash of every file of a model folder (names and full contents).

    Hidden files and markdown (the model card) are left out: they do not change what the
    model computes. Each file's SHA-256 is remembered by (path, size, modification time)
    (see :func:`pearl._hashing.file_sha256`), so fingerprinting an unchanged folder again is
    cheap, while any change to any byte of the weights gives another fingerprint.

    Parameters
    ----------
    path : path-like
        A model folder.

    Returns
    -------
    str
        16 hex digits.
    """
    path = Path(path)
    h = hashlib.sha256()
    for f in sorted(p for p in path.rglob("*") if p.is_file()):
        rel = f.relative_to(path)
        if any(part.startswith(".") for part in rel.parts) or f.suffix == ".md":
            continue
        h.update(f"{rel.as_posix()}:{file_sha256(f)}\n".encode())
    return h.hexdigest()[:16]
