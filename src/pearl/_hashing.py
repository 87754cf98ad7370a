"""Content hashes of files, remembered by (path, inode, device, size, mtime, ctime) in this
process and across processes (``<cache_dir>/file-hashes.json``): a model's fingerprint, an
index's checksums and a corpus's identity hash a file once while it is unchanged."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

from pearl._io import read_json, write_text_atomic

__all__ = ["file_sha256"]


_HASH_LOCK = threading.Lock()
_HASHES: dict[str, dict] = {}
_HASH_FILE = "file-hashes.json"
_STAT_KEYS = ("size", "mtime_ns", "ctime_ns", "ino", "dev")


def _hash_store() -> Path:
    from pearl.paths import cache_dir

    return cache_dir() / _HASH_FILE


def _stat_key(st: os.stat_result) -> dict:
    return {
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "ctime_ns": st.st_ctime_ns,
        "ino": st.st_ino,
        "dev": st.st_dev,
    }


def _load_hash_store(path: Path) -> dict[str, dict]:
    try:
        raw = read_json(path, "file-hash cache")
    except OSError:
        return {}
    if not isinstance(raw, dict):
        return {}
    return {
        k: v
        for k, v in raw.items()
        if isinstance(v, dict)
        and all(
            isinstance(v.get(key), int) and not isinstance(v.get(key), bool) for key in _STAT_KEYS
        )
        and isinstance(v.get("sha256"), str)
        and len(v["sha256"]) == 64
    }


def file_sha256(path: str | os.PathLike, persist: bool = True) -> str:
    """SHA-256 of a file's full content, remembered by the file's identity.

    A remembered hash is reused only while the file's path, inode, device, size,
    modification time *and* status-change time are all unchanged. The status-change time
    (ctime) is set by the kernel on every write, rename or unpacking and cannot be set back
    by a user, so a file replaced by one of the same size and a forged modification time
    is hashed again.

    Parameters
    ----------
    path : path-like
    persist : bool, default=True
        Also remember it across processes, in ``<cache_dir>/file-hashes.json``.

    Returns
    -------
    str
        The hex digest.
    """
    path = Path(path).resolve()
    st = path.stat()
    key, ident = str(path), _stat_key(st)
    with _HASH_LOCK:
        hit = _HASHES.get(key)
        store = _hash_store() if persist else None
        if hit is None and store is not None:
            hit = _load_hash_store(store).get(key)
        if hit and all(hit[k] == ident[k] for k in _STAT_KEYS):
            _HASHES[key] = hit
            return hit["sha256"]
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    entry = {**ident, "sha256": h.hexdigest()}
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
