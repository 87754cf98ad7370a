"""WordNet access for the augmenters, from the shared lexicon folder, offline.

NLTK 3.9+ only reads WordNet from ``$NLTK_DATA/corpora/wordnet`` (it refuses other
paths), so the database files are copied into ``<pearl cache>/nltk_data/<content hash>``:
one copy per distinct database, so the folder given is always the one read.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from pathlib import Path

from pearl import paths
from pearl.paths import cache_dir

__all__ = ["load_wordnet"]

_NEEDED = ("index.noun", "data.noun", "index.sense", "lexnames")


@functools.lru_cache(maxsize=4)
def load_wordnet(wordnet_dir: str | None = None):
    """An NLTK WordNet reader over the given WordNet 3.0 database folder (default
    :func:`pearl.paths.wordnet_dir`)."""
    from pearl._extras import require

    nltk = require("nltk", "WordNet augmentation")
    reader = require("nltk.corpus.reader.wordnet", "WordNet augmentation")

    src = Path(wordnet_dir) if wordnet_dir else paths.wordnet_dir()
    if not all((src / f).is_file() for f in _NEEDED):
        raise FileNotFoundError(f"no WordNet database in {src} (expected {', '.join(_NEEDED)})")
    # one copy per content: a --wordnet given later is read, never a stale earlier copy
    base = cache_dir() / "nltk_data" / _content_key(src)
    target = base / "corpora" / "wordnet"
    if not (target / "lexnames").is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
            staged = Path(tmp) / "wordnet"
            shutil.copytree(src, staged)
            try:
                os.replace(staged, target)
            except OSError:
                if not (target / "lexnames").is_file():
                    raise
    if str(base) not in nltk.data.path:
        nltk.data.path.insert(0, str(base))
    return reader.WordNetCorpusReader(str(target), None)


def _content_key(src: Path) -> str:
    """A short hash of the names and contents of the database files in ``src``."""
    import hashlib

    from pearl._hashing import file_sha256

    h = hashlib.sha256()
    for f in sorted(p for p in src.rglob("*") if p.is_file()):
        h.update(f"{f.relative_to(src).as_posix()}:{file_sha256(f)}\n".encode())
    return h.hexdigest()[:16]
