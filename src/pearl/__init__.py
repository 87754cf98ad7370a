"""pearl: phrase embeddings that understand names, typos and types.

The public API:

* :class:`PhraseEncoder`: a transformer phrase encoder (mean pooling), loading
  :data:`DEFAULT_MODEL` (the one default of every tool) or a shipped PEARL model such as
  ``pearl-minilm`` (phrase + character encoder trained with the PEARL recipe).
* :func:`train`, :class:`TrainConfig`: the PEARL training framework.
* :class:`GloveEncoder`, :class:`StringDistance`: the paper's baselines.
* :func:`evaluate`: run the PEARL benchmark on a model.
* :class:`PhraseEmbedder`, :class:`EntityIndex`, :func:`fuzzy_join`, :func:`deduplicate`,
  :func:`cluster`: phrase embeddings at work on tables.
"""

from pearl.applications import (
    EntityIndex,
    PhraseEmbedder,
    cluster,
    deduplicate,
    fuzzy_join,
)
from pearl.encoders import (
    DEFAULT_MODEL,
    GloveEncoder,
    PhraseEncoder,
    StringDistance,
    load_encoder,
)
from pearl.evaluation import evaluate
from pearl.training import TrainConfig, train

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_MODEL",
    "EntityIndex",
    "PhraseEmbedder",
    "cluster",
    "deduplicate",
    "fuzzy_join",
    "GloveEncoder",
    "PhraseEncoder",
    "StringDistance",
    "evaluate",
    "TrainConfig",
    "train",
    "load_encoder",
    "__version__",
]
