"""pearl's Dask jobs on files: Parquet/CSV tables in, a Parquet folder out, one part per
partition, resumable after an interruption."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from pearl import __version__
from pearl._extras import require
from pearl._io import check_replaceable_dir, write_text_atomic
from pearl._validation import MissingKeyError, check_int
from pearl.distributed import partition as P
from pearl.distributed.graph import check_frame, join_options, join_parts, model_arg
from pearl.encoders import DEFAULT_MODEL, TABLE_BATCH_SIZE
from pearl.tables.encoding import expected_fingerprint

# Dask is the `dask` extra: a clear error names the pip install when it is missing
dask = require("dask", "pearl on Dask")
dd = require("dask.dataframe", "pearl on Dask")

__all__ = ["read_table", "encode_to_parquet", "join_to_parquet"]


_MANIFEST = "_pearl_job.json"


def read_table(path: str | os.PathLike, partitions: int | None = None, encoding: str = "utf-8"):
    """A Dask DataFrame of a Parquet file or folder, or a CSV file (read as strings,
    decoded strictly: a byte that does not decode fails the computation, never becomes a
    replacement character in the values).

    Parameters
    ----------
    path : path-like
    partitions : int, optional
        Repartition to this many partitions (default: as read).
    encoding : str, default="utf-8"
        The CSV file's text encoding.

    Returns
    -------
    dask.dataframe.DataFrame

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"table not found: {path}")
    if path.is_dir() or path.suffix.lower() in {".parquet", ".pq"}:
        ddf = dd.read_parquet(str(path))
    else:
        ddf = dd.read_csv(
            str(path),
            dtype=str,
            keep_default_na=False,  # only an empty cell is missing ("NA" is a value)
            na_values=[""],
            encoding=encoding,
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
    batch_size: int = TABLE_BATCH_SIZE,
    normalize: bool = False,
    partitions: int | None = None,
    show_progress_bar: bool = True,
) -> Path:
    """Embed a column of a Parquet/CSV table into a Parquet folder (keys + ``embedding``).

    Each input partition becomes ``part-NNNNN.parquet``, written atomically; re-running the
    same command after an interruption skips the finished parts.

    Parameters
    ----------
    input : path-like
        A Parquet file or folder, or a CSV file.
    column : str
        The text column to embed.
    output : path-like
        The Parquet folder to write (an earlier job's folder of the same command resumes).
    model : str or encoder, default=DEFAULT_MODEL
    keys : list of str, optional
        Columns copied beside each embedding (``column`` always is).
    batch_size : int, default=256
    normalize : bool, default=False
        Unit-length embeddings.
    partitions : int, optional
    show_progress_bar : bool, default=True

    Returns
    -------
    Path
        The output folder.
    """
    ddf = read_table(input, partitions)
    check_frame(ddf, "input", column)
    keys = list(dict.fromkeys([*(keys or []), column]))
    missing = [k for k in keys if k not in ddf.columns]
    if missing:
        raise MissingKeyError(f"input has no column(s) {missing}; columns: {list(ddf.columns)}")
    m = model_arg(model)
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
    left_on: str | list[str] | None = None,
    right_on: str | list[str] | None = None,
    on: str | list[str] | None = None,
    model: Any = DEFAULT_MODEL,
    threshold: float | None = None,
    top_k: int = 1,
    how: str = "left",
    batch_size: int = TABLE_BATCH_SIZE,
    right_shards: int = 1,
    index: str = "exact",
    matcher: str = "combined",
    partitions: int | None = None,
    show_progress_bar: bool = True,
    precision: float | None = None,
) -> Path:
    """Fuzzy-join two Parquet/CSV tables on the cluster into a Parquet folder.

    One output part per left partition, written atomically; a re-run of the same command
    skips the finished parts. ``threshold``, ``precision`` and the other options mean what
    they mean in :func:`pearl.fuzzy_join` (the same defaults; with ``precision`` the
    threshold is chosen from every left partition's best probabilities before any part is
    written).

    Parameters
    ----------
    left, right : path-like
        Parquet files or folders, or CSV files.
    output : path-like
        The Parquet folder to write.
    left_on, right_on, on : str
        One key column each (``on``: of the same name in both), as
        :func:`pearl.fuzzy_join` takes them.
    model, threshold, top_k, how, batch_size, matcher, precision
        As in :func:`pearl.fuzzy_join`.
    right_shards : int, default=1
        Shards of the right table, each indexed on its own.
    index : {"exact", "hnsw"}, default="exact"
        How each shard is searched.
    partitions : int, optional
        Partitions of the left table.
    show_progress_bar : bool, default=True

    Returns
    -------
    Path
        The output folder.
    """
    left_frame, right_frame = read_table(left, partitions), read_table(right)
    opts = join_options(
        left_frame,
        right_frame,
        left_on,
        right_on,
        on=on,
        threshold=threshold,
        top_k=top_k,
        how=how,
        return_score=True,
        suffix="_right",
        batch_size=batch_size,
        matcher=matcher,
        precision=precision,
    )
    outs, _ = join_parts(
        left_frame, right_frame, model, opts, right_shards=right_shards, index=index
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
        "precision": precision,
        "top_k": top_k,
        "how": how,
        "right_shards": right_shards,
        "index": index,
        "matcher": str(matcher),
    }
    return _run_parts(outs, output, job, show_progress_bar)
