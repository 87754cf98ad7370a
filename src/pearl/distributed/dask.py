"""pearl's table tools on Dask: encode, fuzzy-join and search partitioned tables.

Every function builds a Dask graph from the engine-free partition functions of
:mod:`pearl.distributed.partition`; it runs on whatever scheduler is active (a
``distributed.Client`` to a cluster, a local cluster from :func:`local_client`, or Dask's
default threaded scheduler). Models are given by name or folder and loaded once per worker
process, not once per partition.

Needs the ``dask`` extra: ``pip install "pearl[dask]"``. See ``docs/distributed.md``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

try:
    import dask
    import dask.array as da
    import dask.dataframe as dd
except ImportError as exc:  # pragma: no cover - exercised without the extra installed
    raise ImportError('pearl.distributed.dask needs Dask: pip install "pearl[dask]"') from exc

from pearl import __version__
from pearl._io import check_replaceable_dir, write_text_atomic
from pearl._validation import InputTypeError, MissingKeyError, check_bool, check_choice, check_int
from pearl.applications.encoding import expected_fingerprint, get_encoder, to_string_list
from pearl.applications.index import EntityIndex
from pearl.applications.join import (
    check_join_options,
    check_threshold,
    match_names,
    output_columns,
)
from pearl.applications.matcher import check_matcher, scorer_for
from pearl.distributed import partition as P
from pearl.encoders import DEFAULT_MODEL
from pearl.encoders.base import is_embedding_model

__all__ = [
    "local_client",
    "encode",
    "fuzzy_join",
    "build_index",
    "search",
    "encode_to_parquet",
    "join_to_parquet",
    "read_table",
]

_MANIFEST = "_pearl_job.json"


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


def _model_arg(model: Any):
    """Names and folders travel as strings (each worker loads the model once); an encoder
    object becomes one graph key, sent once to each worker that needs it."""
    if model is None:
        return DEFAULT_MODEL
    if isinstance(model, str | os.PathLike):
        return os.fspath(model)
    if not is_embedding_model(model):
        raise InputTypeError(
            f"model must be a name, a folder or an encoder, got {type(model).__name__}"
        )
    return dask.delayed(model, pure=True)


def _check_frame(ddf, name: str, column: str | None = None):
    if not isinstance(ddf, dd.DataFrame):
        raise InputTypeError(
            f"{name} must be a dask DataFrame (dask.dataframe.from_pandas, "
            f"read_parquet, read_csv...), got {type(ddf).__name__}"
        )
    if column is not None and column not in ddf.columns:
        raise MissingKeyError(f"{name} has no column {column!r}; columns: {list(ddf.columns)}")
    return ddf


# -- encoding -----------------------------------------------------------------------------------
def encode(
    ddf,
    column: str,
    model: Any = DEFAULT_MODEL,
    *,
    batch_size: int = 64,
    normalize: bool = False,
    handle_missing: str = "empty",
):
    """Embed a string column of a Dask DataFrame, partition by partition.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
    column : str
    model : str, path or encoder, default=DEFAULT_MODEL
    batch_size : int, default=64
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
    _check_frame(ddf, "ddf", column)
    batch_size = check_int(batch_size, "batch_size", 1)
    normalize = check_bool(normalize, "normalize")
    handle_missing = check_choice(handle_missing, "handle_missing", ("error", "empty"))
    dim = get_encoder(model if model is not None else DEFAULT_MODEL).embedding_dim
    m = _model_arg(model)
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
def _reference_shards(
    right, right_on: str, m, batch_size: int, shards: int, index: str, ngrams: bool
):
    parts = [
        dask.delayed(P.reference_shard)(p, right_on, i, m, batch_size, ngrams)
        for i, p in enumerate(right.to_delayed())
    ]
    shards = max(1, min(shards, len(parts)))
    bounds = np.linspace(0, len(parts), shards + 1).astype(int)
    return [
        dask.delayed(P.concat_shards)(parts[a:b], index)
        for a, b in zip(bounds[:-1], bounds[1:], strict=True)
    ]


def _join_parts(
    left,
    right,
    left_on,
    right_on,
    model,
    *,
    threshold,
    top_k,
    how,
    return_score,
    suffix,
    batch_size,
    right_shards,
    index,
    matcher="combined",
):
    """The joined partitions as delayed pandas frames, and the output's meta."""
    _check_frame(left, "left", left_on)
    _check_frame(right, "right", right_on)
    how, top_k, threshold, return_score, batch_size = check_join_options(
        left_on=left_on,
        right_on=right_on,
        suffix=suffix,
        how=how,
        top_k=top_k,
        threshold=threshold,
        return_score=return_score,
        batch_size=batch_size,
    )
    right_shards = check_int(right_shards, "right_shards", 1)
    index = check_choice(index, "index", ("exact", "hnsw"))
    matcher = check_matcher(matcher)
    check_threshold(threshold, matcher)
    rename = output_columns(left.columns, right.columns, suffix, return_score, top_k > 1)
    names = match_names(
        [*left.columns, *(rename.get(c, c) for c in right.columns)], return_score, top_k > 1
    )
    # the learned weights depend on the model: loaded here only for the combined matcher
    scorer = (
        None
        if matcher == "cosine"
        else scorer_for(matcher, get_encoder(model if model is not None else DEFAULT_MODEL))
    )
    m = _model_arg(model)
    shards = _reference_shards(
        right, right_on, m, batch_size, right_shards, index, ngrams=scorer is not None
    )
    ngrams = (
        dask.delayed(P.fit_ngrams)([dask.delayed(P.shard_frequencies)(s) for s in shards])
        if scorer is not None
        else None
    )
    width = scorer.width(top_k) if scorer is not None else top_k  # + a runner-up
    outs = []
    for p in left.to_delayed():
        query = dask.delayed(P.query_embeddings)(p, left_on, m, batch_size)
        cands = [dask.delayed(P.shard_top_k)(query, s, width, scorer, ngrams) for s in shards]
        merged = dask.delayed(P.merge_candidates)(cands, width)
        outs.append(
            dask.delayed(P.join_partition)(
                p,
                query,
                merged,
                rename,
                threshold=threshold,
                how=how,
                return_score=return_score,
                top_k=top_k,
                scorer=scorer,
                names=names,
            )
        )
    empty = P.Candidates(
        np.zeros((0, top_k), np.int64), np.zeros((0, top_k), np.float32), right._meta
    )
    no_query = P.Query(np.zeros((0, 1), np.float32), np.zeros(0, int), [])
    meta = P.join_partition(
        left._meta,
        no_query,
        empty,
        rename,
        threshold=threshold,
        how=how,
        return_score=return_score,
        top_k=top_k,
        names=names,
    )
    return outs, meta


def fuzzy_join(
    left,
    right,
    left_on: str,
    right_on: str,
    *,
    model: Any = DEFAULT_MODEL,
    threshold: float = 0.0,
    top_k: int = 1,
    how: str = "left",
    return_score: bool = True,
    suffix: str = "_right",
    batch_size: int = 64,
    right_shards: int = 1,
    index: str = "exact",
    matcher: Any = "combined",
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
    left_on, right_on, threshold, top_k, how, return_score, suffix, batch_size
        As in :func:`pearl.fuzzy_join`.
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
        (``precision=`` needs every partition's probabilities first and is not offered
        here: choose the threshold on a single-process sample.)

    Returns
    -------
    dask.dataframe.DataFrame
        One output partition per left partition, in order.
    """
    outs, meta = _join_parts(
        left,
        right,
        left_on,
        right_on,
        model,
        threshold=threshold,
        top_k=top_k,
        how=how,
        return_score=return_score,
        suffix=suffix,
        batch_size=batch_size,
        right_shards=right_shards,
        index=index,
        matcher=matcher,
    )
    return dd.from_delayed(outs, meta=meta, verify_meta=False)


# -- entity index -------------------------------------------------------------------------------
def build_index(
    ddf,
    column: str,
    model: Any = DEFAULT_MODEL,
    *,
    index: str = "flat",
    batch_size: int = 64,
    **index_options,
) -> EntityIndex:
    """An :class:`~pearl.EntityIndex` of a name column, the names encoded on the cluster.

    The vectors are gathered to build one faiss index here (as ``EntityIndex.build``
    would); use :func:`search` to query it from the cluster.
    """
    _check_frame(ddf, "ddf", column)
    vectors = encode(ddf, column, model, batch_size=batch_size, normalize=True).compute()
    names = ddf[column].compute().tolist()
    idx = EntityIndex(
        model=model if model is not None else DEFAULT_MODEL,
        index=index,
        batch_size=batch_size,
        **index_options,
    )
    return idx.add_embeddings(names, vectors)


def _search_partition(
    part: pd.DataFrame, column: str, index: EntityIndex, top_k: int, batch_size: int
) -> pd.DataFrame:
    queries, _ = to_string_list(part[column], missing="error", non_string="str", name=column)
    emb = P.encode_texts(index.model, queries, batch_size, True)
    return index.search_embeddings(emb, top_k, queries=queries).to_frame()


def search(index: EntityIndex, ddf, column: str, top_k: int = 5, *, batch_size: int = 64):
    """Query a built :class:`~pearl.EntityIndex` with a column of a Dask DataFrame.

    The index is one graph key, sent once to each worker; each partition's queries are
    embedded and searched there. Returns a Dask DataFrame (query, rank, name, id, score).
    """
    if not isinstance(index, EntityIndex) or not len(index):
        raise ValueError("index must be a built, non-empty EntityIndex")
    _check_frame(ddf, "ddf", column)
    top_k = check_int(top_k, "top_k", 1)
    batch_size = check_int(batch_size, "batch_size", 1)
    idx = dask.delayed(index, pure=True)
    outs = [
        dask.delayed(_search_partition)(p, column, idx, top_k, batch_size) for p in ddf.to_delayed()
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


# -- Parquet jobs (the CLI) ---------------------------------------------------------------------
def read_table(path: str | os.PathLike, partitions: int | None = None):
    """A Dask DataFrame of a Parquet file or folder, or a CSV file (read as strings)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"table not found: {path}")
    if path.is_dir() or path.suffix.lower() in {".parquet", ".pq"}:
        ddf = dd.read_parquet(str(path))
    else:
        ddf = dd.read_csv(
            str(path),
            dtype=str,
            keep_default_na=True,
            encoding="utf-8",
            encoding_errors="replace",
            blocksize="16MB",
        )
    if partitions is not None:
        ddf = ddf.repartition(npartitions=check_int(partitions, "partitions", 1))
    return ddf


def _identity(path: str | os.PathLike) -> list:
    p = Path(path)
    files = sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else [p]
    return [[f.name, f.stat().st_size, f.stat().st_mtime_ns] for f in files]


def _model_identity(model: Any) -> dict:
    model = model if model is not None else DEFAULT_MODEL
    name = os.fspath(model) if isinstance(model, str | os.PathLike) else type(model).__name__
    return {"model": name, "fingerprint": expected_fingerprint(model)}


def _run_parts(parts, folder: str | os.PathLike, job: dict, show_progress_bar: bool) -> Path:
    """Write each delayed frame as ``part-NNNNN.parquet`` in ``folder``, atomically, skipping
    the parts an earlier run of the same job finished; a folder holding another job, or
    anything else, is refused."""
    folder = Path(folder)
    job = json.loads(json.dumps({**job, "partitions": len(parts)}))  # as stored (lists)
    existing = P.read_manifest(folder)
    if existing is None:
        check_replaceable_dir(folder, None)
        folder.mkdir(parents=True, exist_ok=True)
        write_text_atomic(folder / _MANIFEST, json.dumps(job, indent=2))
    elif existing != job:
        raise ValueError(
            f"{folder} holds the output of another job ({folder / _MANIFEST}); "
            "choose a new output folder, or remove that one yourself"
        )
    todo = [
        dask.delayed(P.write_part)(f, str(folder), i)
        for i, f in enumerate(parts)
        if not (folder / f"part-{i:05d}.parquet").is_file()
    ]
    try:
        from distributed import as_completed, default_client

        client = default_client()
    except (ImportError, ValueError):
        client = None
    if client is None:
        dask.compute(*todo)
    else:
        if getattr(client, "dashboard_link", None):
            print(f"Dask dashboard: {client.dashboard_link}", file=sys.stderr)
        from tqdm.auto import tqdm

        futures = client.compute(todo)
        with tqdm(
            total=len(parts),
            initial=len(parts) - len(todo),
            unit="partition",
            desc="partitions",
            disable=not show_progress_bar,
        ) as bar:
            for future in as_completed(futures):
                future.result()
                bar.update(1)
    for tmp in folder.glob(".part-*.tmp"):  # halves left by a worker that was killed
        tmp.unlink(missing_ok=True)
    write_text_atomic(folder / "_SUCCESS", "")
    return folder


def encode_to_parquet(
    input: str | os.PathLike,
    column: str,
    output: str | os.PathLike,
    *,
    model: Any = DEFAULT_MODEL,
    keys: list[str] | None = None,
    batch_size: int = 64,
    normalize: bool = False,
    partitions: int | None = None,
    show_progress_bar: bool = True,
) -> Path:
    """Embed a column of a Parquet/CSV table into a Parquet folder (keys + ``embedding``).

    Each input partition becomes ``part-NNNNN.parquet``, written atomically; re-running the
    same command after an interruption skips the finished parts.
    """
    ddf = read_table(input, partitions)
    _check_frame(ddf, "input", column)
    keys = list(dict.fromkeys([*(keys or []), column]))
    missing = [k for k in keys if k not in ddf.columns]
    if missing:
        raise MissingKeyError(f"input has no column(s) {missing}; columns: {list(ddf.columns)}")
    m = _model_arg(model)
    parts = [
        dask.delayed(P.embedding_frame)(
            p, keys, dask.delayed(P.encode_partition)(p, column, m, batch_size, normalize)
        )
        for p in ddf.to_delayed()
    ]
    job = {
        "job": "encode",
        "pearl": __version__,
        "input": _identity(input),
        "column": column,
        "keys": keys,
        **_model_identity(model),
        "normalize": normalize,
    }
    return _run_parts(parts, output, job, show_progress_bar)


def join_to_parquet(
    left: str | os.PathLike,
    right: str | os.PathLike,
    output: str | os.PathLike,
    *,
    left_on: str,
    right_on: str,
    model: Any = DEFAULT_MODEL,
    threshold: float = 0.0,
    top_k: int = 1,
    how: str = "left",
    batch_size: int = 64,
    right_shards: int = 1,
    index: str = "exact",
    matcher: str = "combined",
    partitions: int | None = None,
    show_progress_bar: bool = True,
) -> Path:
    """Fuzzy-join two Parquet/CSV tables on the cluster into a Parquet folder.

    One output part per left partition, written atomically; a re-run of the same command
    skips the finished parts.
    """
    outs, _ = _join_parts(
        read_table(left, partitions),
        read_table(right),
        left_on,
        right_on,
        model,
        threshold=threshold,
        top_k=top_k,
        how=how,
        return_score=True,
        suffix="_right",
        batch_size=batch_size,
        right_shards=right_shards,
        index=index,
        matcher=matcher,
    )
    job = {
        "job": "join",
        "pearl": __version__,
        "left": _identity(left),
        "right": _identity(right),
        "left_on": left_on,
        "right_on": right_on,
        **_model_identity(model),
        "threshold": threshold,
        "top_k": top_k,
        "how": how,
        "right_shards": right_shards,
        "index": index,
        "matcher": str(matcher),
    }
    return _run_parts(outs, output, job, show_progress_bar)
