"""pearl: phrase embeddings that understand names, typos and types.

The public API:

* :class:`PhraseEncoder`: a transformer phrase encoder (mean pooling), loading
  :data:`DEFAULT_MODEL` (the one default of every tool) or a shipped PEARL model such as
  ``pearl-minilm`` (phrase + character encoder trained with the PEARL recipe).
* :func:`train`, :class:`TrainConfig`: the PEARL training framework.
* :class:`GloveEncoder`, :class:`StringDistance`: the paper's baselines.
* :func:`evaluate`: run the PEARL benchmark on a model.
* :class:`PhraseEmbedder`, :class:`EntityIndex`, :func:`fuzzy_join`, :func:`deduplicate`,
  :func:`cluster`: phrase embeddings at work on tables; :func:`join_report`: a join with
  the page that explains its decisions.
"""

from typing import TYPE_CHECKING

from pearl._lazy import lazy_exports
from pearl._openmp import short_spin

short_spin()  # before torch or faiss load their OpenMP runtime (pearl._openmp says why)

__all__ = [
    "DEFAULT_MODEL",
    "EntityIndex",
    "PhraseEmbedder",
    "cluster",
    "deduplicate",
    "fuzzy_join",
    "Joiner",
    "Reference",
    "join_report",
    "GloveEncoder",
    "PhraseEncoder",
    "StringDistance",
    "evaluate",
    "TrainConfig",
    "train",
    "load_encoder",
    "PearlWarning",
    "__version__",
]

# Imported on first use (``import pearl`` stays light: no torch, transformers, pandas...).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "DEFAULT_MODEL": "pearl.encoders.resolve",
        "EntityIndex": "pearl.tables.index",
        "PhraseEmbedder": "pearl.tables.embedder",
        "cluster": "pearl.tables.dedup",
        "deduplicate": "pearl.tables.dedup",
        "fuzzy_join": "pearl.tables.join",
        "Joiner": "pearl.tables.joiner",
        "Reference": "pearl.tables.reference",
        "join_report": "pearl.tables.report",
        "GloveEncoder": "pearl.encoders.glove",
        "PhraseEncoder": "pearl.encoders.phrase",
        "StringDistance": "pearl.evaluation.string_distance",
        "load_encoder": "pearl.encoders",
        "PearlWarning": "pearl._warnings",
        "evaluate": "pearl.evaluation.runner",
        "TrainConfig": "pearl.training.config",
        "train": "pearl.training.trainer",
        "__version__": "pearl._version",
    },
)

if TYPE_CHECKING:  # for type checkers and IDEs: the same names, imported eagerly
    from pearl._version import __version__
    from pearl._warnings import PearlWarning
    from pearl.encoders import load_encoder
    from pearl.encoders.glove import GloveEncoder
    from pearl.encoders.phrase import PhraseEncoder
    from pearl.encoders.resolve import DEFAULT_MODEL
    from pearl.evaluation.runner import evaluate
    from pearl.evaluation.string_distance import StringDistance
    from pearl.tables.dedup import cluster, deduplicate
    from pearl.tables.embedder import PhraseEmbedder
    from pearl.tables.index import EntityIndex
    from pearl.tables.join import fuzzy_join
    from pearl.tables.joiner import Joiner
    from pearl.tables.reference import Reference
    from pearl.tables.report import join_report
    from pearl.training.config import TrainConfig
    from pearl.training.trainer import train
