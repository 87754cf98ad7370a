"""The files of a saved :class:`~pearl.applications.index.EntityIndex`: their checksums and
the checks a loaded index passes (metadata, vectors, model fingerprint)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pearl._io import read_json_object

__all__ = ["FORMAT", "file_sha256", "check_vectors", "read_meta", "model_mismatch"]

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
    from pearl._io import file_sha256

    return file_sha256(path, persist=False)


def check_vectors(raw, folder: Path) -> None:
    """Stored vectors finite and IVF ids within the index (beyond the checksums: an index
    written by another tool, or damaged before it was saved)."""
    import faiss

    ivf = faiss.try_extract_index_ivf(raw)
    if ivf is not None:
        lists = ivf.invlists
        for i in range(lists.nlist):
            n = lists.list_size(i)
            if n:
                ids = faiss.rev_swig_ptr(lists.get_ids(i), n)
                if ids.min() < 0 or ids.max() >= raw.ntotal:
                    raise OSError(
                        f"corrupt index folder {folder}: inverted list {i} holds "
                        f"ids outside 0..{raw.ntotal - 1}"
                    )
        ivf.make_direct_map()
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
