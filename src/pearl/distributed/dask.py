"""pearl's table tools on Dask: encode, fuzzy-join and search partitioned tables.

Every function builds a Dask graph from the engine-free partition functions of
:mod:`pearl.distributed.partition`; it runs on whatever scheduler is active (a
``distributed.Client`` to a cluster, a local cluster from :func:`local_client`, or Dask's
default threaded scheduler). Models are given by name or folder and loaded once per worker
process, not once per partition.

Needs the ``dask`` extra: ``pip install "pearl[dask]"``. See ``docs/distributed.md``.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pandas as pd

from pearl._extras import require
from pearl._validation import check_bool, check_choice, check_int
from pearl.distributed import partition as P
from pearl.distributed.graph import check_frame, join_options, join_parts, model_arg
from pearl.distributed.parquet import encode_to_parquet, join_to_parquet, read_table
from pearl.encoders import DEFAULT_MODEL, TABLE_BATCH_SIZE
from pearl.tables.encoding import get_encoder, to_string_list
from pearl.tables.index import EntityIndex
from pearl.tables.matcher import check_matcher

# Dask is the `dask` extra: a clear error names the pip install when it is missing
dask = require("dask", "pearl on Dask")
da = require("dask.array", "pearl on Dask")
dd = require("dask.dataframe", "pearl on Dask")

__all__ = [
    "local_client",
    "encode",
    "fuzzy_join",
    "build_index",
    "search",
    "deduplicate",
    "encode_to_parquet",
    "join_to_parquet",
    "read_table",
]


# -- clusters ---------------------------------------------------------------------------------
def local_client(
    n_workers: int | None = None,
    *,
    torch_threads: int | None = None,
    memory_limit: str = "auto",
    dashboard: bool = True,
):
    """A ``distributed.Client`` on a new local cluster of worker processes.

    Parameters
    ----------
    n_workers : int, optional
        Worker processes (one task at a time each); the number of cores by default.
    torch_threads : int, optional
        Torch threads per worker; by default the cores divided among the workers, so the
        machine is used fully and not oversubscribed.
    memory_limit : str, default="auto"
        Per-worker memory limit (Dask's syntax).
    dashboard : bool, default=True
        Serve the Dask dashboard on a free port (``client.dashboard_link``).
    """
    from distributed import Client, LocalCluster, WorkerPlugin

    class TorchThreads(WorkerPlugin):
        """Set the torch threads of every worker, restarted ones included."""

        name = "pearl-torch-threads"

        def __init__(self, n: int) -> None:
            self.n = n

        def setup(self, worker) -> None:
            P.set_torch_threads(self.n)

    cores = os.cpu_count() or 1
    n_workers = check_int(n_workers if n_workers is not None else cores, "n_workers", 1)
    threads = check_int(
        torch_threads if torch_threads is not None else max(1, cores // n_workers),
        "torch_threads",
        1,
    )
    # Dask starts workers with OMP/MKL threads at 1 and MALLOC_TRIM_THRESHOLD_=64 kB. Setting
    # any malloc threshold freezes glibc's mmap threshold at 128 kB (it is otherwise raised
    # as large blocks are freed), so every tensor buffer above 128 kB became a fresh mmap and
    # its page faults: encoding took 1.4-1.5x as long as in a plain process. The mmap
    # threshold is set to glibc's own dynamic ceiling (32 MB), the trim threshold high.
    environ = {
        "MALLOC_TRIM_THRESHOLD_": str(1 << 28),
        "MALLOC_MMAP_THRESHOLD_": str(1 << 25),
        "OMP_NUM_THREADS": str(threads),
        "MKL_NUM_THREADS": str(threads),
        "OPENBLAS_NUM_THREADS": str(threads),
    }
    with dask.config.set(
        {f"distributed.nanny.pre-spawn-environ.{k}": v for k, v in environ.items()}
    ):
        cluster = LocalCluster(
            n_workers=n_workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=memory_limit,
            dashboard_address=":0" if dashboard else None,
        )
    client = Client(cluster)
    client.register_plugin(TorchThreads(threads))
    return client


# -- encoding -----------------------------------------------------------------------------------
def encode(
    ddf,
    column: str,
    model: Any = DEFAULT_MODEL,
    *,
    batch_size: int = TABLE_BATCH_SIZE,
    normalize: bool = False,
    handle_missing: str = "empty",
):
    """Embed a string column of a Dask DataFrame, partition by partition.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
    column : str
    model : str, path or encoder, default=DEFAULT_MODEL
    batch_size : int, default=256
    normalize : bool, default=False
        L2-normalise the embeddings.
    handle_missing : {"empty", "error"}, default="empty"
        Missing values are embedded as ``""`` (as :class:`~pearl.PhraseEmbedder` does), or
        raise ``ValueError`` naming the row by its index label in the table.

    Returns
    -------
    dask.array.Array of float32, shape (n_rows, dim)
        One chunk per partition (row counts unknown until computed).
    """
    check_frame(ddf, "ddf", column)
    batch_size = check_int(batch_size, "batch_size", 1)
    normalize = check_bool(normalize, "normalize")
    handle_missing = check_choice(handle_missing, "handle_missing", ("error", "empty"))
    dim = get_encoder(model if model is not None else DEFAULT_MODEL).embedding_dim
    m = model_arg(model)
    parts = [
        da.from_delayed(
            dask.delayed(P.encode_partition)(p, column, m, batch_size, normalize, handle_missing),
            shape=(np.nan, dim),
            dtype=np.float32,
        )
        for p in ddf.to_delayed()
    ]
    return da.concatenate(parts) if parts else da.zeros((0, dim), dtype=np.float32)


# -- fuzzy join ---------------------------------------------------------------------------------


def fuzzy_join(
    left,
    right,
    left_on: str | list[str] | None = None,
    right_on: str | list[str] | None = None,
    *,
    on: str | list[str] | None = None,
    model: Any = DEFAULT_MODEL,
    threshold: float | None = None,
    top_k: int = 1,
    how: str = "left",
    return_score: bool = True,
    suffix: str = "_right",
    batch_size: int = TABLE_BATCH_SIZE,
    right_shards: int = 1,
    index: str = "exact",
    matcher: Any = "combined",
    precision: float | None = None,
):
    """:func:`pearl.fuzzy_join` over partitioned tables.

    The right (reference) table is embedded once, partition by partition, and grouped into
    ``right_shards`` shards that the workers hold; each left partition is embedded and
    matched against every shard, and the per-shard top-k are merged. With ``index="exact"``
    the result is the same, row for row, as ``pearl.fuzzy_join`` on the concatenated tables
    (ties go to the earlier reference row in both).

    Parameters
    ----------
    left, right : dask.dataframe.DataFrame
    left_on, right_on, on, threshold, top_k, how, return_score, suffix, batch_size
        As in :func:`pearl.fuzzy_join`, with one key column (several are a
        ``ValueError``: record linkage fits its model on both whole tables, in one
        process).
    model : str, path or encoder, default=DEFAULT_MODEL
        The model of :func:`pearl.fuzzy_join`.
    right_shards : int, default=1
        Shards of the reference side. 1 ships the whole reference index to every worker
        that matches a partition; more shards bound what one task holds when the
        reference side is too large for one worker.
    index : {"exact", "hnsw"}, default="exact"
        Exact cosine top-k, or a faiss HNSW graph per shard (approximate, for large
        reference tables).
    matcher : {"combined", "cosine"} or MatchScorer, default="combined"
        As in :func:`pearl.fuzzy_join`: the n-gram weights are learned from the whole
        reference side (document frequencies summed over its partitions), so with one
        shard the result is the single-process one; with several, each shard proposes
        its own candidates, which can only add candidates to the single-process set.
    precision : float, optional
        As in :func:`pearl.fuzzy_join`: the threshold whose accepted matches have this
        expected precision, chosen from every left partition's best probabilities (the
        candidates are computed once; the threshold waits for all partitions).

    Returns
    -------
    dask.dataframe.DataFrame
        One output partition per left partition, in order.
    """
    opts = join_options(
        left,
        right,
        left_on,
        right_on,
        on=on,
        threshold=threshold,
        top_k=top_k,
        how=how,
        return_score=return_score,
        suffix=suffix,
        batch_size=batch_size,
        matcher=matcher,
        precision=precision,
    )
    outs, meta = join_parts(left, right, model, opts, right_shards=right_shards, index=index)
    return dd.from_delayed(outs, meta=meta, verify_meta=False)


# -- entity index -------------------------------------------------------------------------------
def build_index(
    ddf,
    column: str,
    model: Any = DEFAULT_MODEL,
    *,
    index: str = "flat",
    batch_size: int = TABLE_BATCH_SIZE,
    **index_options,
) -> EntityIndex:
    """An :class:`~pearl.EntityIndex` of a name column, the names encoded on the cluster.

    The vectors are gathered to build one faiss index here (as ``EntityIndex.build``
    would); use :func:`search` to query it from the cluster.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
    column : str
        The column of names.
    model : str or encoder, default=DEFAULT_MODEL
    index : {"flat", "ivf", "hnsw"}, default="flat"
        The faiss index, as :class:`~pearl.EntityIndex` takes it.
    batch_size : int, default=256
    **index_options
        Passed to :class:`~pearl.EntityIndex`.

    Returns
    -------
    EntityIndex
        Built on the client, its names in the order of ``ddf``'s rows.
    """
    from pearl.tables.index import _names_rule

    check_frame(ddf, "ddf", column)
    names = ddf[column].compute().tolist()
    rule = _names_rule(names)  # phones, postcodes, dates: embedded normalised, as build does
    texts = ddf if rule is None else ddf[[column]].map_partitions(P.compared_column, column, rule)
    vectors = encode(texts, column, model, batch_size=batch_size, normalize=True).compute()
    idx = EntityIndex(
        model=model if model is not None else DEFAULT_MODEL,
        index=index,
        batch_size=batch_size,
        **index_options,
    )
    return idx.add_embeddings(names, vectors, compared=True)


def _search_partition(
    part: pd.DataFrame,
    column: str,
    index: EntityIndex,
    top_k: int,
    batch_size: int,
    matcher: Any,
    candidates: int,
) -> pd.DataFrame:
    queries, _ = to_string_list(part[column], missing="error", non_string="str", name=column)
    # codes, numbers, dates: embedded as the index compares them (EntityIndex.search)
    emb = P.encode_texts(index.model, index.compared(queries), batch_size, True)
    return index.search_embeddings(
        emb, top_k, queries=queries, matcher=matcher, candidates=candidates
    ).to_frame()


def search(
    index: EntityIndex,
    ddf,
    column: str,
    top_k: int = 5,
    *,
    batch_size: int = TABLE_BATCH_SIZE,
    matcher: Any = "combined",
    candidates: int = 10,
):
    """Query a built :class:`~pearl.EntityIndex` with a column of a Dask DataFrame.

    The index is one graph key, sent once to each worker; each partition's queries are
    embedded and searched there, by the rule of :meth:`pearl.EntityIndex.search` (the
    same ``matcher`` and ``candidates``, the same results).

    Parameters
    ----------
    index : EntityIndex
        A built, non-empty index (:func:`build_index` or :meth:`pearl.EntityIndex.build`).
    ddf : dask.dataframe.DataFrame
    column : str
        The column of queries.
    top_k : int, default=5
    batch_size : int, default=256
    matcher : {"combined", "cosine"} or MatchScorer, default="combined"
    candidates : int, default=10
        Candidates per signal that the combined matcher rescores.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns query, rank, name, id, score: ``top_k`` rows per query.
    """
    if not isinstance(index, EntityIndex) or not len(index):
        raise ValueError("index must be a built, non-empty EntityIndex")
    check_frame(ddf, "ddf", column)
    top_k = check_int(top_k, "top_k", 1)
    batch_size = check_int(batch_size, "batch_size", 1)
    candidates = check_int(candidates, "candidates", 1)
    matcher = check_matcher(matcher)
    idx = dask.delayed(index, pure=True)
    outs = [
        dask.delayed(_search_partition)(p, column, idx, top_k, batch_size, matcher, candidates)
        for p in ddf.to_delayed()
    ]
    meta = pd.DataFrame(
        {
            "query": pd.Series(dtype=object),
            "rank": pd.Series(dtype="int64"),
            "name": pd.Series(dtype=object),
            "id": pd.Series(dtype="int64"),
            "score": pd.Series(dtype="float64"),
        }
    )
    return dd.from_delayed(outs, meta=meta, verify_meta=False)


def _canonical_partition(part: pd.Series, mapping: dict[str, str]) -> pd.Series:
    """A partition's values replaced by their canonical value (missing stay missing)."""
    texts, nulls = to_string_list(part, non_string="str", name=str(part.name))
    out = [None if n else mapping.get(t, t) for t, n in zip(texts, nulls, strict=True)]
    return pd.Series(out, index=part.index, name=part.name, dtype=object)


def _value_counts_partition(part: pd.Series) -> pd.Series:
    texts, nulls = to_string_list(part, non_string="str", name=str(part.name))
    return pd.Series([t for t, n in zip(texts, nulls, strict=True) if not n]).value_counts()


def _one_column(column):
    """A column name, from a name or a list of one; several are a ``ValueError``."""
    if isinstance(column, list | tuple):
        if len(column) != 1:
            raise ValueError(
                "pearl.dask.deduplicate deduplicates one column; the rows of several columns "
                "are clustered as records (record linkage within the table) in one process: "
                "pearl.deduplicate(ddf[columns].compute())"
            )
        (column,) = column
    return column


def deduplicate(
    ddf,
    column: str,
    *,
    threshold: float | None = None,
    model: Any = DEFAULT_MODEL,
    batch_size: int = TABLE_BATCH_SIZE,
    matcher: Any = "combined",
    top_k: int = 5,
    show_progress_bar: bool | None = None,
):
    """:func:`pearl.deduplicate` of a column of a Dask DataFrame of any number of rows.

    The distinct values are counted on the workers; their clusters are made on the client
    by :func:`pearl.cluster` (the sparse match graph: a million distinct values fit on one
    machine), and each is mapped to its cluster's most frequent value on the workers. The
    rows never leave the cluster, only the distinct values and their counts. Ties between
    equally frequent values go to the smallest string (a partitioned column has no "first
    seen"), so ties can differ from the single-machine function.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
    column : str
        One column (or a list of one). The rows of several columns are clustered as
        records in one process: ``pearl.deduplicate(ddf[columns].compute())``.
    threshold, model, batch_size, matcher, top_k, show_progress_bar
        As in :func:`pearl.deduplicate`.

    Returns
    -------
    dask.dataframe.Series
        Each row's value replaced by its cluster's most frequent value, aligned with
        ``ddf`` (missing values stay missing).
    """
    from pearl.tables.dedup import cluster

    column = _one_column(column)
    check_frame(ddf, "ddf", column)
    parts = dask.compute(
        *[dask.delayed(_value_counts_partition)(p) for p in ddf[column].to_delayed()]
    )
    counts = pd.concat(parts).groupby(level=0).sum() if parts else pd.Series(dtype="int64")
    values = sorted(counts.index, key=lambda v: (-int(counts[v]), v))
    labels = cluster(
        values,
        threshold=threshold,
        model=model,
        batch_size=batch_size,
        matcher=matcher,
        top_k=top_k,
        show_progress_bar=show_progress_bar,
        sample_weight=counts.loc[values].to_numpy(),  # rows weigh as in one process
    )
    canon: dict[int, str] = {}
    for value, lab in zip(values, labels, strict=True):  # most frequent first
        canon.setdefault(int(lab), value)
    mapping = {
        v: canon[int(lab)] for v, lab in zip(values, labels, strict=True) if v != canon[int(lab)]
    }
    return ddf[column].map_partitions(
        _canonical_partition, mapping, meta=pd.Series(dtype=object, name=column)
    )


# -- Parquet jobs (the CLI) ---------------------------------------------------------------------
