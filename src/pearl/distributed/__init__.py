"""pearl's table tools over partitioned tables, on an existing distributed engine.

:mod:`pearl.distributed.partition` holds the work done on one partition (encode, match
against a shard of reference embeddings, merge, assemble the joined rows, write a part
file atomically). It uses pandas and numpy only. An engine backend wires these functions
into its own task graph: :mod:`pearl.distributed.dask` is the one pearl ships (Dask: the
DataFrame API pandas and skrub users know, and one scheduler for a laptop, an HPC cluster,
Kubernetes or a cloud service). A Ray or Spark backend would be a sibling module calling
the same partition functions.

Nothing here is imported by ``import pearl``; the Dask backend needs the ``dask`` extra
(``pip install "pearl[dask]"``).
"""
