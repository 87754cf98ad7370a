"""pearl on Dask (the short name of :mod:`pearl.distributed.dask`).

>>> import pearl.dask  # doctest: +SKIP
>>> vectors = pearl.dask.encode(ddf, "name")  # doctest: +SKIP

Needs the ``dask`` extra: ``pip install "pearl[dask]"``.
"""

from pearl.distributed.dask import (  # noqa: F401
    __all__,
    build_index,
    encode,
    encode_to_parquet,
    fuzzy_join,
    join_to_parquet,
    local_client,
    read_table,
    search,
)
