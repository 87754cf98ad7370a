"""An embedding cache keyed by model fingerprint and text.

Each model gets a folder ``<root>/<fingerprint>/`` of append-only shards
(``NNNNN.npy`` vectors + ``NNNNN.json`` texts), written atomically, so a re-run
of one task, or of the whole benchmark, never re-encodes a phrase it has seen.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from pearl._validation import check_texts
from pearl.encoders.resolve import cache_dir

__all__ = ["EmbeddingCache"]


class EmbeddingCache:
    """Memoise an encoder's outputs in memory and, optionally, on disk.

    Parameters
    ----------
    encoder : Encoder
        Anything with ``encode(texts, batch_size=..., show_progress_bar=...)``
        and a ``fingerprint``.
    root : path-like, optional
        Cache folder; defaults to ``cache_dir() / "embeddings"``.
    persist : bool, default=True
        Write new embeddings to disk. With False the cache lives in memory only.
    batch_size : int, default=64
        Passed to ``encoder.encode``.
    """

    def __init__(self, encoder, root: str | os.PathLike | None = None, persist: bool = True,
                 batch_size: int = 64) -> None:
        self.encoder = encoder
        self.persist = persist
        self.batch_size = batch_size
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(encoder.fingerprint))[:80]
        self.folder = Path(root or cache_dir() / "embeddings") / safe
        self._index: dict[str, int] = {}
        self._vectors: np.ndarray | None = None
        self._size = 0
        self.n_encoded = 0
        if persist:
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
        for npy in sorted(self.folder.glob("*.npy")):
            meta = npy.with_suffix(".json")
            try:
                texts = json.loads(meta.read_text(encoding="utf-8"))
                vecs = np.load(npy)
            except (OSError, ValueError):
                continue  # a shard damaged by a crash: ignore it, it will be re-encoded
            if len(texts) != len(vecs):
                continue
            self._append(texts, vecs)

    def _write_shard(self, texts: list[str], vecs: np.ndarray) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        n = len(list(self.folder.glob("*.npy")))
        stem = self.folder / f"{n:05d}-{os.getpid()}"
        tmp_json, tmp_npy = stem.with_suffix(".json.tmp"), stem.with_suffix(".npy.tmp")
        tmp_json.write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
        with open(tmp_npy, "wb") as f:
            np.save(f, vecs)
        os.replace(tmp_json, stem.with_suffix(".json"))
        os.replace(tmp_npy, stem.with_suffix(".npy"))

    def __len__(self) -> int:
        return self._size

    def __call__(self, texts: Iterable[str], show_progress_bar: bool | None = None) -> np.ndarray:
        """Embeddings of ``texts`` (the encoder's raw output), encoding only unseen ones."""
        items = check_texts(texts)
        new = list(dict.fromkeys(t for t in items if t not in self._index))
        if new:
            vecs = self.encoder.encode(new, batch_size=self.batch_size,
                                       show_progress_bar=show_progress_bar)
            self.n_encoded += len(new)
            self._append(new, vecs)
            if self.persist:
                self._write_shard(new, np.asarray(vecs, dtype=np.float32))
        if not items:
            dim = self._vectors.shape[1] if self._vectors is not None else 0
            return np.zeros((0, dim), dtype=np.float32)
        return self._vectors[[self._index[t] for t in items]]
