"""WordNet access for the augmenters, from the shared lexicon folder, offline.

NLTK 3.9+ only reads WordNet from ``$NLTK_DATA/corpora/wordnet`` (it refuses other
paths), so the database files are copied once into ``<pearl cache>/nltk_data``.
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
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    src = Path(wordnet_dir) if wordnet_dir else paths.wordnet_dir()
    if not all((src / f).is_file() for f in _NEEDED):
        raise FileNotFoundError(f"no WordNet database in {src} (expected {', '.join(_NEEDED)})")
    base = cache_dir() / "nltk_data"
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
    return WordNetCorpusReader(str(target), None)
