"""Teacher embeddings of the corpus phrases, computed once and kept as a data artifact.

A stronger model (all-mpnet-base-v2 here) encodes every corpus phrase; the student is then
trained to reproduce the teacher's in-batch similarity distribution
(:func:`pearl.losses.similarity_distillation`). Encoding 300k phrases with a 110M model
takes about an hour on two CPU cores, so :func:`encode_teacher` works in chunks: each chunk
is one checksummed shard of an embedding cache (:class:`pearl.encoders.EmbeddingCache`),
written atomically, and a re-run skips the finished chunks. ``teacher.json`` records the
model, its fingerprint, the width and the corpus it was made from.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from pearl._hashing import file_sha256
from pearl._io import check_io, read_json_object, write_text_atomic
from pearl._validation import MissingKeyError, check_int
from pearl.data.corpus import read_corpus
from pearl.encoders.base import is_embedding_model
from pearl.encoders.cache import EmbeddingCache

__all__ = ["encode_teacher", "TeacherEmbeddings", "MANIFEST"]

MANIFEST = "teacher.json"


def encode_teacher(
    corpus: str | Path,
    output: str | Path,
    model: Any = "all-mpnet-base-v2",
    chunk_size: int = 4096,
    batch_size: int = 128,
    limit: int | None = None,
    device: str | None = None,
    show_progress_bar: bool = True,
) -> Path:
    """Encode the phrases of ``corpus`` (a ``corpus.tsv``) with ``model`` into ``output``.

    Parameters
    ----------
    corpus : path-like
        ``corpus.tsv`` from ``pearl build-corpus``.
    output : path-like
        Folder to write (or to complete, after an interruption).
    model : str or encoder, default="all-mpnet-base-v2"
    chunk_size : int, default=4096
        Phrases per shard: at most this much work is lost to an interruption.
    batch_size : int, default=128
    limit : int, optional
        The first ``limit`` phrases only (smoke runs).
    device : str, optional
        Torch device of a model given by name (CPU by default).

    Returns
    -------
    Path
        ``output``.
    """
    from pearl.encoders import load_encoder
    from pearl.encoders.resolve import model_folder

    chunk_size = check_int(chunk_size, "chunk_size", 1)
    output = Path(output)
    check_io({"output": output}, [corpus, model_folder(model)])
    phrases = [r.phrase for r in read_corpus(corpus)]
    if limit is not None:
        phrases = phrases[: check_int(limit, "limit", 1)]
    encoder = model if is_embedding_model(model) else load_encoder(str(model), device=device)
    manifest = output / MANIFEST
    record = {
        "model": str(getattr(encoder, "name", model)),
        "fingerprint": encoder.fingerprint,
        "dim": int(encoder.embedding_dim),
        "corpus": str(corpus),
        "corpus_sha256": file_sha256(corpus),
        "phrases": len(phrases),
    }
    if manifest.is_file():
        old = read_json_object(manifest, "teacher manifest")
        if old.get("fingerprint") != record["fingerprint"]:
            raise ValueError(
                f"{output} holds embeddings of another model "
                f"({old.get('model')}); choose another output folder"
            )
    output.mkdir(parents=True, exist_ok=True)
    write_text_atomic(manifest, json.dumps({**record, "complete": False}, indent=2) + "\n")
    cache = EmbeddingCache(encoder, root=output / "embeddings", persist=True, batch_size=batch_size)
    distinct = list(dict.fromkeys(phrases))
    todo = [p for p in distinct if p not in cache]
    bar = tqdm(
        total=len(distinct),
        initial=len(distinct) - len(todo),
        desc=f"teacher {record['model']}",
        unit="phrase",
        disable=not show_progress_bar,
    )
    for start in range(0, len(todo), chunk_size):
        part = todo[start : start + chunk_size]
        cache(part, show_progress_bar=False)
        bar.update(len(part))
    bar.close()
    write_text_atomic(manifest, json.dumps({**record, "complete": True}, indent=2) + "\n")
    return output


class _Recorded:
    """The identity of the teacher as ``teacher.json`` records it (nothing is loaded)."""

    def __init__(self, fingerprint: str, dim: int, folder: Path) -> None:
        self.fingerprint, self.embedding_dim, self.folder = fingerprint, dim, folder

    def encode(self, texts, **kwargs):
        raise _missing(self.folder, list(texts))


def _missing(folder: Path, texts: list[str]) -> KeyError:
    return MissingKeyError(
        f"{len(texts)} phrases have no teacher embedding in {folder} "
        f"(e.g. {texts[:3]}); run pearl teacher on the training corpus"
    )


class TeacherEmbeddings:
    """Read-only access to the vectors written by :func:`encode_teacher`.

    Parameters
    ----------
    folder : path-like
        The output folder of :func:`encode_teacher` (``pearl teacher``).
    """

    def __init__(self, folder: str | Path) -> None:
        folder = Path(folder)
        info = read_json_object(folder / MANIFEST, "teacher manifest")
        if not info.get("complete"):
            raise ValueError(
                f"{folder} is incomplete (an interrupted pearl teacher run); "
                "run the same command again to finish it"
            )
        self.info = info
        self.folder = folder
        if (
            not isinstance(info.get("fingerprint"), str)
            or not isinstance(info.get("dim"), int)
            or isinstance(info.get("dim"), bool)
            or info["dim"] < 1
        ):
            raise OSError(
                f"corrupt teacher manifest {folder / MANIFEST}: 'fingerprint' must "
                "be a string and 'dim' a positive integer"
            )
        # the folder is the user's input: read only, never cleaned (a damaged shard is an
        # error naming it, not a deletion)
        self._cache = EmbeddingCache(
            _Recorded(info["fingerprint"], info["dim"], folder),
            root=folder / "embeddings",
            read_only=True,
        )

    @property
    def dim(self) -> int:
        return int(self.info["dim"])

    def __len__(self) -> int:
        return len(self._cache)

    def require(self, texts: list[str]) -> None:
        """Raise ``KeyError`` when a text has no teacher vector here (checked without
        gathering the vectors)."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            raise _missing(self.folder, missing)

    def __call__(self, texts: list[str]) -> np.ndarray:
        """Teacher vectors of ``texts`` (all must be in the folder), float32."""
        return self._cache(texts)
