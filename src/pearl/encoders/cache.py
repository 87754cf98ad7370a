"""An embedding cache keyed by model fingerprint and text.

Each model gets a folder ``<root>/<fingerprint>/`` of append-only shards
(``NNNNN.npy`` vectors + ``NNNNN.json`` texts), written atomically, so a re-run
of one task, or of the whole benchmark, never re-encodes a phrase it has seen.

A shard's JSON also records the fingerprint and width it was made with and the SHA-256 of
its ``.npy`` file. A shard that does not check out (damaged, truncated, another width, a
checksum or fingerprint that does not match, NaN or infinite vectors, an older format) is
deleted with a warning naming it, and its texts are encoded again.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from pearl._io import atomic_path, read_json
from pearl._validation import check_texts
from pearl.paths import cache_dir

__all__ = ["EmbeddingCache", "cache_key"]

logger = logging.getLogger(__name__)

_FORMAT = 2


def cache_key(encoder) -> str:
    """The key of an encoder's embeddings: its ``cache_fingerprint`` or ``fingerprint``, or
    for an encoder of another library without one (a ``SentenceTransformer``), the object's
    own key (valid while the object lives: the cache holding its embeddings holds it too)."""
    fingerprint = getattr(encoder, "cache_fingerprint", None) or getattr(
        encoder, "fingerprint", None
    )
    return f"object-{id(encoder)}" if fingerprint is None else str(fingerprint)


class EmbeddingCache:
    """Memoise an encoder's outputs in memory and, optionally, on disk.

    Parameters
    ----------
    encoder : Encoder
        Anything with ``encode(texts, batch_size=..., show_progress_bar=...)``; a
        ``fingerprint`` (a string naming the model and its weights) is needed to keep
        embeddings on disk. Without one (a ``SentenceTransformer`` object), the cache lives
        in memory and is this object's alone.
    root : path-like, optional
        Cache folder; defaults to ``cache_dir() / "embeddings"``.
    persist : bool, default=True
        Write new embeddings to disk. With False the cache lives in memory only.
    batch_size : int, default=64
        Passed to ``encoder.encode``.
    read_only : bool, default=False
        A folder the user gave as input (a teacher's embeddings): nothing is written or
        deleted there, and a shard that does not check out is an ``OSError`` naming it
        instead of being discarded. Only pearl's own cache cleans itself.
    """

    def __init__(
        self,
        encoder,
        root: str | os.PathLike | None = None,
        persist: bool = True,
        batch_size: int = 64,
        read_only: bool = False,
    ) -> None:
        self.encoder = encoder
        self.read_only = read_only
        self.persist = persist and not read_only
        self.batch_size = batch_size
        if getattr(encoder, "fingerprint", None) is None and (persist or read_only):
            raise ValueError(
                f"{type(encoder).__name__} has no fingerprint (pearl's encoders have "
                "one), so its embeddings cannot be kept on disk; use persist=False"
            )
        self.fingerprint = cache_key(encoder)
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", self.fingerprint)[:80]
        self.folder = Path(root or cache_dir() / "embeddings") / safe
        self._index: dict[str, int] = {}
        self._vectors: np.ndarray | None = None
        self._size = 0
        self.n_encoded = 0
        if persist or read_only:
            self._load()

    def _append(self, texts: list[str], vecs: np.ndarray) -> None:
        vecs = np.asarray(vecs, dtype=np.float32)
        if self._vectors is None:
            self._vectors = np.empty((max(len(texts), 1024), vecs.shape[1]), dtype=np.float32)
        need = self._size + len(texts)
        if need > len(self._vectors):
            grown = np.empty((max(need, 2 * len(self._vectors)), vecs.shape[1]), np.float32)
            grown[: self._size] = self._vectors[: self._size]
            self._vectors = grown
        self._vectors[self._size : need] = vecs
        for i, t in enumerate(texts):
            self._index[t] = self._size + i
        self._size = need

    def _load(self) -> None:
        if not self.folder.is_dir():
            return
        dim = getattr(self.encoder, "embedding_dim", None)
        for npy in sorted(self.folder.glob("*.npy")):
            meta = npy.with_suffix(".json")
            if not meta.is_file():
                continue  # another process is still writing this shard
            try:
                texts, vecs = self._read_shard(npy, meta, dim)
            except (OSError, ValueError) as exc:
                if self.read_only:
                    raise OSError(
                        f"damaged embedding shard {npy}: {exc}; this folder is "
                        "an input, so pearl leaves it as it is"
                    ) from exc
                logger.warning(
                    "discarding the embedding cache shard %s (%s); its texts will be encoded again",
                    npy,
                    exc,
                )
                npy.unlink(missing_ok=True)
                meta.unlink(missing_ok=True)
                continue
            dim = vecs.shape[1]
            self._append(texts, vecs)

    def _read_shard(self, npy: Path, meta: Path, dim: int | None) -> tuple[list[str], np.ndarray]:
        """The texts and vectors of one shard, or ``ValueError`` saying what is wrong."""
        info = read_json(meta, "embedding shard")
        if not isinstance(info, dict) or info.get("format") != _FORMAT:
            raise ValueError("not a shard of this pearl's format")
        data = npy.read_bytes()
        if hashlib.sha256(data).hexdigest() != info.get("sha256"):
            raise ValueError("checksum mismatch")
        if info.get("fingerprint") != self.fingerprint:
            raise ValueError(f"made by model {info.get('fingerprint')!r}, not {self.fingerprint!r}")
        texts = info.get("texts")
        vecs = np.load(io.BytesIO(data), allow_pickle=False)
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise ValueError("texts are not a list of strings")
        if (
            vecs.ndim != 2
            or vecs.dtype != np.float32
            or len(vecs) != len(texts)
            or vecs.shape[1] != info.get("dim")
        ):
            raise ValueError(
                f"vectors of shape {vecs.shape} ({vecs.dtype}) for "
                f"{len(texts)} texts of width {info.get('dim')}"
            )
        if dim is not None and vecs.shape[1] != dim:
            raise ValueError(f"{vecs.shape[1]}-d vectors, the model makes {dim}-d ones")
        if not np.isfinite(vecs).all():
            raise ValueError("NaN or infinite vectors")
        return texts, vecs

    def _write_shard(self, texts: list[str], vecs: np.ndarray) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        n = len(list(self.folder.glob("*.npy")))
        stem = self.folder / f"{n:05d}-{os.getpid()}"
        buf = io.BytesIO()
        np.save(buf, np.ascontiguousarray(vecs, dtype=np.float32), allow_pickle=False)
        data = buf.getvalue()
        info = {
            "format": _FORMAT,
            "fingerprint": self.fingerprint,
            "dim": int(vecs.shape[1]),
            "sha256": hashlib.sha256(data).hexdigest(),
            "texts": texts,
        }
        # vectors first: a shard without its JSON is never read
        with atomic_path(stem.with_suffix(".npy")) as tmp:
            tmp.write_bytes(data)
        with atomic_path(stem.with_suffix(".json")) as tmp:
            tmp.write_text(json.dumps(info, ensure_ascii=False), encoding="utf-8")

    def __len__(self) -> int:
        return self._size

    def __contains__(self, text: object) -> bool:
        """Whether ``text`` has a vector here already (nothing is encoded)."""
        return text in self._index

    def __call__(self, texts: Iterable[str], show_progress_bar: bool | None = None) -> np.ndarray:
        """Embeddings of ``texts`` (the encoder's raw output), encoding only unseen ones."""
        items = check_texts(texts)
        new = list(dict.fromkeys(t for t in items if t not in self._index))
        if new:
            vecs = self.encoder.encode(
                new, batch_size=self.batch_size, show_progress_bar=show_progress_bar
            )
            self.n_encoded += len(new)
            self._append(new, vecs)
            if self.persist:
                self._write_shard(new, np.asarray(vecs, dtype=np.float32))
        if not items:
            dim = self._vectors.shape[1] if self._vectors is not None else 0
            return np.zeros((0, dim), dtype=np.float32)
        assert self._vectors is not None
        return self._vectors[[self._index[t] for t in items]]
