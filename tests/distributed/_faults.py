"""Helpers imported by Dask worker processes in the tests (the folder is put on their
PYTHONPATH): a deterministic encoder, one that kills its worker once, and load counting."""

from __future__ import annotations

import os
import zlib
from pathlib import Path

import numpy as np

LOADS: list[str] = []


class TrigramEncoder:
    """Bag of hashed character trigrams (picklable, deterministic)."""

    name = "trigram"
    embedding_dim = 64
    fingerprint = "trigram-64"

    def encode(self, texts, batch_size=64, normalize=False, show_progress_bar=None):
        out = np.zeros((len(texts), self.embedding_dim), dtype=np.float32)
        for r, t in enumerate(texts):
            s = f"  {t.lower()}  "
            for i in range(len(s) - 2):
                out[r, zlib.crc32(s[i : i + 3].encode()) % self.embedding_dim] += 1
        return out


class KillOnce(TrigramEncoder):
    """Kills the worker process the first time it sees ``trigger`` (a marker file records
    that it happened), as a machine failing mid-partition would."""

    def __init__(self, trigger: str, marker: str) -> None:
        self.trigger, self.marker = trigger, marker

    def encode(self, texts, batch_size=64, normalize=False, show_progress_bar=None):
        if any(self.trigger in t for t in texts) and not Path(self.marker).exists():
            Path(self.marker).write_text(str(os.getpid()))
            os._exit(1)
        return super().encode(texts, batch_size, normalize, show_progress_bar)


def count_loads() -> None:
    """Wrap the worker's model loader so that each load is recorded in LOADS."""
    from pearl.tables import encoding as _common

    original = _common.load_encoder
    if getattr(original, "_counted", False):
        return

    def counted(name, *args, **kwargs):
        LOADS.append(name)
        return original(name, *args, **kwargs)

    counted._counted = True
    _common.load_encoder = counted


def loads() -> list[str]:
    return list(LOADS)
