"""Where pearl reads and writes by default, and the environment variables that move it.

===================  ==========================================  =========================
environment          default                                     used for
===================  ==========================================  =========================
``PEARL_DATA``       none: set it, or pass ``--data``            benchmark, short text,
                                                                 corpus text, WordNet
``PEARL_CACHE``      ``~/.cache/pearl``                          embedding cache, assembled
                                                                 models, NLTK WordNet copy
``PEARL_RESULTS``    ``pearl-results`` (in the working dir.)     ``pearl eval`` output
===================  ==========================================  =========================

Every function reads the environment when called, so a test or a user may set a variable
after import.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "data_root",
    "benchmark_dir",
    "short_text_dir",
    "wordnet_dir",
    "cache_dir",
    "results_dir",
]


def data_root() -> Path:
    """``$PEARL_DATA``: the folder of the benchmark, the short-text sets, the corpus text
    and WordNet (commands take ``--data`` instead).

    Raises
    ------
    FileNotFoundError
        When ``PEARL_DATA`` is not set: pearl has no default data folder (the repository's
        Makefile passes ``../shared/data``).
    """
    root = os.environ.get("PEARL_DATA")
    if not root:
        raise FileNotFoundError(
            "pearl's data folder (benchmark/, short_text/, corpus/, lexicon/wordnet/) is not "
            "set: pass --data /path/to/data or set PEARL_DATA=/path/to/data"
        )
    return Path(root)


def benchmark_dir() -> Path:
    """The PEARL benchmark files: ``<data root>/benchmark``."""
    return data_root() / "benchmark"


def short_text_dir() -> Path:
    """The short-text classification sets: ``<data root>/short_text``."""
    return data_root() / "short_text"


def wordnet_dir() -> Path:
    """The WordNet 3.0 database: ``<data root>/lexicon/wordnet``."""
    return data_root() / "lexicon" / "wordnet"


def cache_dir() -> Path:
    """pearl's cache folder: ``$PEARL_CACHE`` or ``~/.cache/pearl``."""
    return Path(os.environ.get("PEARL_CACHE") or Path.home() / ".cache" / "pearl")


def results_dir() -> Path:
    """Where ``pearl eval`` writes by default: ``$PEARL_RESULTS`` or ``pearl-results``
    (never the repository's committed ``results/``, unless asked with ``-o results``)."""
    return Path(os.environ.get("PEARL_RESULTS") or "pearl-results")
