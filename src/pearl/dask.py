"""pearl on Dask (the short name of :mod:`pearl.distributed.dask`).

>>> import pearl.dask  # doctest: +SKIP
>>> vectors = pearl.dask.encode(ddf, "name")  # doctest: +SKIP

Needs the ``dask`` extra: ``pip install "pearl[dask]"``. Every public name of
:mod:`pearl.distributed.dask` is here, taken from its ``__all__`` (a hand-kept list once
missed ``deduplicate``).
"""

from pearl.distributed import dask as _source
from pearl.distributed.dask import *  # noqa: F403

__all__ = list(_source.__all__)
