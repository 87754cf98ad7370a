"""Writing files without losing data, and hashing them.

Every file pearl writes goes through :func:`atomic_path` (one file) or :func:`atomic_dir`
(a folder): the content is written beside the target under a unique temporary name and
renamed into place only when complete, so an interrupted write leaves the previous content
untouched and no partial file behind. :func:`check_output` refuses an output path that is
one of the command's inputs.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import json
import os
import shutil
import threading
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path

__all__ = ["atomic_path", "atomic_tsv", "atomic_dir", "check_output", "file_sha256",
           "write_text_atomic", "read_json_object"]


def _sibling(path: Path, suffix: str) -> Path:
    """A hidden, unique, not yet existing sibling of ``path`` (same file system, so the
    final rename is atomic; created by the caller with the usual permissions)."""
    return path.with_name(f".{path.name}.{os.getpid()}-{uuid.uuid4().hex[:12]}{suffix}")


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path to write to, renamed to ``path`` only when the block ends without
    error; an interrupted write leaves any previous file untouched and no partial one
    behind.

    The temporary file is a fresh, uniquely named sibling of ``path`` (never an existing
    file), so concurrent writers of the same target do not clobber each other's halves.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _sibling(path, ".tmp")
    try:
        yield tmp
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def read_json_object(path: str | os.PathLike, what: str) -> dict:
    """A JSON object read from a file a user may have received; an unreadable file or
    anything but an object is an ``OSError`` naming ``what`` and the path."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise OSError(f"corrupt {what} {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise OSError(f"corrupt {what} {path}: not a JSON object")
    return data


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write a UTF-8 text file atomically (see :func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


@contextlib.contextmanager
def atomic_tsv(path: str | os.PathLike, header: list[str]) -> Iterator[csv.writer]:
    """A TSV writer (UTF-8, ``\\n`` line ends, header written) whose file appears at
    ``path`` only when the block ends without error (see :func:`atomic_path`)."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, delimiter="\t", lineterminator="\n")
        writer.writerow(header)
        yield writer


@contextlib.contextmanager
def atomic_dir(path: str | os.PathLike, replaceable: str | None = None) -> Iterator[Path]:
    """A fresh temporary folder that replaces ``path`` when the block ends without error.

    Parameters
    ----------
    path : path-like
        The folder to write.
    replaceable : str, optional
        A file name that marks a folder this function may replace (e.g. ``"modules.json"``
        for a model, ``"meta.json"`` for an index). An existing non-empty folder without it
        is refused *before* the block runs, so user data is never replaced by a model or an
        index. With None, an existing non-empty folder is always refused.

    Raises
    ------
    FileExistsError
        ``path`` is a file, or a non-empty folder that is not replaceable.
    """
    path = Path(path)
    check_replaceable_dir(path, replaceable)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _sibling(path, ".partial")
    tmp.mkdir()
    old = None
    try:
        yield tmp
        if path.exists():
            old = _sibling(path, ".old")
            old.mkdir()
            os.replace(path, old / "x")
        os.replace(tmp, path)
    except BaseException:
        if old is not None and not path.exists():  # put the previous folder back
            os.replace(old / "x", path)
        raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def check_replaceable_dir(path: str | os.PathLike, replaceable: str | None) -> None:
    """Raise ``FileExistsError`` unless ``path`` is absent, an empty folder, or a folder
    holding the marker file ``replaceable`` (see :func:`atomic_dir`)."""
    path = Path(path)
    if path.is_file() or path.is_symlink():
        raise FileExistsError(f"{path} exists and is not a folder; choose another output")
    if path.is_dir() and any(path.iterdir()):
        if replaceable is None or not (path / replaceable).is_file():
            what = f"has no {replaceable}" if replaceable else "is not empty"
            raise FileExistsError(
                f"{path} already exists and {what}: pearl does not overwrite a folder it did "
                "not write; choose a new output folder or remove it yourself")


def _same(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def check_output(output: str | os.PathLike, inputs: Iterable[str | os.PathLike | None],
                 name: str = "output") -> None:
    """Refuse an output path that is one of the inputs (or lies inside an input folder).

    Raises
    ------
    ValueError
        Naming the parameter and the input it would overwrite.
    """
    out = Path(output).expanduser()
    out_res = out.resolve()
    for item in inputs:
        if item is None or str(item) == "-":
            continue
        src = Path(item).expanduser()
        src_res = src.resolve()
        inside = src.is_dir() and (out_res == src_res or src_res in out_res.parents)
        if out_res == src_res or _same(out, src) or inside:
            raise ValueError(f"{name} {str(output)!r} would overwrite the input {str(item)!r}; "
                             "write the result to another path")


# --- content hashes, cached by (path, size, mtime) -------------------------------------------

_HASH_LOCK = threading.Lock()
_HASHES: dict[str, dict] = {}
_HASH_FILE = "file-hashes.json"


def _hash_store() -> Path:
    from pearl.paths import cache_dir

    return cache_dir() / _HASH_FILE


def _load_hash_store(path: Path) -> dict[str, dict]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    return {k: v for k, v in raw.items() if isinstance(v, dict)
            and isinstance(v.get("size"), int) and isinstance(v.get("mtime_ns"), int)
            and isinstance(v.get("sha256"), str) and len(v["sha256"]) == 64}


def file_sha256(path: str | os.PathLike, persist: bool = True) -> str:
    """SHA-256 of a file's full content, remembered by (absolute path, size, mtime).

    Parameters
    ----------
    path : path-like
    persist : bool, default=True
        Also remember it across processes, in ``<cache_dir>/file-hashes.json`` (a hash is
        only reused when the file's size and modification time are unchanged).

    Returns
    -------
    str
        The hex digest.
    """
    path = Path(path).resolve()
    st = path.stat()
    key = str(path)
    with _HASH_LOCK:
        hit = _HASHES.get(key)
        store = _hash_store() if persist else None
        if hit is None and store is not None:
            hit = _load_hash_store(store).get(key)
        if hit and hit["size"] == st.st_size and hit["mtime_ns"] == st.st_mtime_ns:
            _HASHES[key] = hit
            return hit["sha256"]
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    entry = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": h.hexdigest()}
    with _HASH_LOCK:
        _HASHES[key] = entry
        if store is not None:
            try:
                known = _load_hash_store(store)
                known[key] = entry
                write_text_atomic(store, json.dumps(known))
            except OSError:
                pass  # a read-only cache only costs a re-hash next time
    return entry["sha256"]
