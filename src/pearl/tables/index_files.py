"""The files of a saved :class:`~pearl.tables.index.EntityIndex`: their checksums and
the checks a loaded index passes (metadata, vectors, model fingerprint)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from pearl._io import read_json_object

__all__ = [
    "FORMAT",
    "file_sha256",
    "check_vectors",
    "read_meta",
    "model_mismatch",
    "read_index_files",
    "write_index_files",
]

FORMAT = 2  # 2: meta.json records the checksums of the index files
_META_TYPES = {
    "format": int,
    "model": str,
    "fingerprint": str,
    "index": str,
    "size": int,
    "dim": int,
    "hnsw_m": int,
    "ef_search": int,
    "nprobe": int,
    "sha256": dict,
}


def file_sha256(path: Path) -> str:
    from pearl._hashing import file_sha256

    return file_sha256(path, persist=False)


def check_vectors(raw, folder: Path) -> None:
    """Stored vectors finite and IVF ids within the index (beyond the checksums: an index
    written by another tool, or damaged before it was saved)."""
    from pearl.tables.search import ivf_ids_out_of_range

    bad = ivf_ids_out_of_range(raw)
    if bad is not None:
        raise OSError(
            f"corrupt index folder {folder}: inverted list {bad} holds "
            f"ids outside 0..{raw.ntotal - 1}"
        )
    step = 65536
    for start in range(0, raw.ntotal, step):
        block = raw.reconstruct_n(start, min(step, raw.ntotal - start))
        if not np.isfinite(block).all() or (np.abs(block) > 1.01).any():
            raise OSError(
                f"corrupt index folder {folder}: stored vectors are not finite unit vectors"
            )


def read_meta(path: Path) -> dict:
    """``meta.json`` of an index folder, every field checked for type and range."""
    meta = read_json_object(path, "index metadata")
    if meta.get("format") != FORMAT:
        raise OSError(
            f"{path}: index format {meta.get('format')!r:.20}, this pearl reads "
            f"{FORMAT} (which records checksums); rebuild the index with "
            "pearl index build"
        )
    for key, kind in _META_TYPES.items():
        value = meta.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise OSError(
                f"corrupt index metadata {path}: {key!r} must be a "
                f"{kind.__name__}, got {value!r:.60}"
            )
    if (
        not all(
            isinstance(k, str)
            and k in {"index.faiss", "names.jsonl"}
            and isinstance(v, str)
            and len(v) == 64
            for k, v in meta["sha256"].items()
        )
        or len(meta["sha256"]) != 2
    ):
        raise OSError(
            f"corrupt index metadata {path}: 'sha256' must give the checksums of "
            "index.faiss and names.jsonl"
        )
    if meta.get("values") not in {None, "code", "numeric", "date"}:
        raise OSError(
            f"corrupt index metadata {path}: unknown kind of values {meta['values']!r:.40}"
        )
    if meta["index"] not in {"flat", "hnsw", "ivf"}:
        raise OSError(f"{path}: unknown index type {meta['index']!r}")
    if (
        min(
            meta["size"],
            meta["dim"] - 1,
            meta["hnsw_m"] - 1,
            meta["ef_search"] - 1,
            meta["nprobe"] - 1,
        )
        < 0
    ):
        raise OSError(f"corrupt index metadata {path}: negative or zero sizes")
    return meta


def model_mismatch(folder: Path, meta: dict, fingerprint: str) -> str:
    return (
        f"index {folder} was built with model {meta['model']!r} (fingerprint "
        f"{meta['fingerprint']}); the given model has fingerprint {fingerprint}. "
        "Rebuild the index with this model."
    )


def write_index_files(folder: Path, faiss_index, names: list[str], meta: dict) -> None:
    """``index.faiss``, ``names.jsonl`` and ``meta.json`` (with their checksums) written
    beside ``folder`` and renamed into place when complete."""
    from pearl._io import atomic_dir
    from pearl.tables.search import write_faiss

    try:
        with atomic_dir(folder, replaceable="meta.json") as tmp:
            write_faiss(faiss_index, tmp / "index.faiss")
            with open(tmp / "names.jsonl", "w", encoding="utf-8") as f:
                for n in names:
                    f.write(json.dumps(n, ensure_ascii=False) + "\n")
            meta["sha256"] = {
                name: file_sha256(tmp / name) for name in ("index.faiss", "names.jsonl")
            }
            (tmp / "meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
    except RuntimeError as exc:  # faiss reports a failed write (a full disk) this way
        raise OSError(f"could not write the index to {folder}: {exc}") from exc


def read_index_files(folder: Path, meta: dict) -> tuple[list[str], object]:
    """The names and the faiss index of a folder whose ``meta.json`` was validated: each
    file checked against its recorded checksum before it is read, then the two checked
    against each other and ``meta`` (``OSError`` for anything corrupt or partial)."""
    from pearl.tables.search import read_faiss

    for name, digest in meta["sha256"].items():
        if not (folder / name).is_file() or file_sha256(folder / name) != digest:
            raise OSError(
                f"corrupt index folder {folder}: {name} does not match the "
                "checksum recorded in meta.json"
            )
    try:
        names = [
            json.loads(line)
            for line in (folder / "names.jsonl").read_text(encoding="utf-8").splitlines()
        ]
        raw = read_faiss(folder / "index.faiss")
    except (OSError, ValueError, RuntimeError) as exc:  # RecursionError is one too
        raise OSError(f"corrupt or partial index folder {folder}: {exc}") from exc
    if not all(isinstance(n, str) for n in names):
        raise OSError(f"corrupt index folder {folder}: names.jsonl holds non-strings")
    if raw.ntotal != len(names) or meta["size"] != len(names) or raw.d != meta["dim"]:
        raise OSError(
            f"corrupt index folder {folder}: {raw.ntotal} vectors of "
            f"{raw.d} dimensions, {len(names)} names, meta says "
            f"{meta['size']} of {meta['dim']}"
        )
    return names, raw
