"""pearl: phrase embeddings that understand names, typos and types.

The public API:

* :class:`PhraseEncoder`: a transformer phrase encoder (mean pooling).
* :class:`GloveEncoder`, :class:`StringDistance`: the paper's baselines.
* :func:`evaluate`: run the PEARL benchmark on a model.
"""

from pearl.encoders import (
    DEFAULT_MODEL,
    GloveEncoder,
    PhraseEncoder,
    StringDistance,
    load_encoder,
)
from pearl.evaluation import evaluate

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_MODEL",
    "GloveEncoder",
    "PhraseEncoder",
    "StringDistance",
    "evaluate",
    "load_encoder",
    "__version__",
]
