"""Helpers shared by the command groups: argument types, reading and writing tables, Dask."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pearl._extras import require
from pearl._io import atomic_path
from pearl.encoders.resolve import DEFAULT_MODEL


def int_at_least(low: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
        return value

    return parse


def float_between(low: float, high: float):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not low <= value <= high:  # NaN fails too
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}, got {text}")
        return value

    return parse


POSITIVE = int_at_least(1)


COSINE = float_between(-1.0, 1.0)


PARQUET = (".parquet", ".pq")


TSV = (".tsv", ".tab")


def write_table(frame, path: str) -> None:
    """Write a table, its format from the file name (``.parquet``, ``.tsv``, else CSV), or
    CSV on standard output for ``-``; files atomically: an interrupt leaves any previous
    file as it was."""
    if path == "-":
        frame.to_csv(sys.stdout, index=False)
        return
    suffix = Path(path).suffix.lower()
    with atomic_path(path) as tmp:
        if suffix in PARQUET:
            require("pyarrow", "writing a Parquet table")
            frame.to_parquet(tmp, index=False)
        else:
            frame.to_csv(tmp, index=False, sep="\t" if suffix in TSV else ",")


def read_lines(path: str) -> list[str]:
    if path == "-":
        return [line.rstrip("\n") for line in sys.stdin]
    p = Path(path)
    if not p.is_file():
        raise SystemExit(f"pearl: input file not found: {path}")
    with open(p, encoding="utf-8", errors="replace") as f:
        return [line.rstrip("\n") for line in f]


def texts_of(args) -> list[str]:
    texts = list(args.texts or [])
    if args.input:
        texts += read_lines(args.input)
    if not texts:
        raise SystemExit("pearl: no input: give phrases as arguments or --input FILE")
    return texts


def dask_client(args):
    """A client to ``--scheduler``, or to a new local cluster of ``--workers`` processes."""
    try:
        from pearl.distributed import dask as pdk
    except ImportError as exc:
        raise SystemExit(f"pearl: {exc}") from None
    if args.scheduler:
        from distributed import Client

        return Client(args.scheduler)
    return pdk.local_client(args.workers)


def close_client(client) -> None:
    cluster = getattr(client, "cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


def read_table(path: str, chunksize: int | None = None):
    """A table file, its format from the file name: Parquet (``.parquet``, ``.pq``, read
    with its column types, as the Python API takes the frame), TSV (``.tsv``, ``.tab``) or
    CSV (anything else; every column read as text, undecodable bytes replaced)."""
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise SystemExit(f"pearl: table not found: {path}")
    suffix = p.suffix.lower()
    if suffix in PARQUET:
        require("pyarrow", "reading a Parquet table")
        return pd.read_parquet(p)
    return pd.read_csv(
        p,
        dtype=str,
        keep_default_na=True,
        encoding="utf-8",
        encoding_errors="replace",
        chunksize=chunksize,
        sep="\t" if suffix in TSV else ",",
    )


def data_root(args) -> Path:
    from pearl.paths import data_root

    return Path(args.data) if getattr(args, "data", None) else data_root()


def set_overrides(args) -> dict[str, str]:
    """The ``--set KEY=VALUE`` options of a training command, as config overrides."""
    overrides = {}
    for item in args.set or []:
        if "=" not in item:
            raise ValueError(f"--set expects KEY=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        overrides[key.strip().replace("-", "_")] = value.strip()
    return overrides


def dask_args(g) -> None:
    g.add_argument(
        "--scheduler",
        help="address of a Dask scheduler, e.g. tcp://host:8786 (default: a local cluster)",
    )
    g.add_argument(
        "--workers",
        type=POSITIVE,
        help="worker processes of the local cluster (default: one per core)",
    )
    g.add_argument(
        "--partitions", type=POSITIVE, help="repartition the (left) input into N partitions"
    )


def model_arg(p, multi: bool = False) -> None:
    help_ = f"model name or folder (default: {DEFAULT_MODEL})"
    if multi:
        p.add_argument(
            "-m", "--model", action="append", help=help_ + "; repeat to evaluate several models"
        )
    else:
        p.add_argument("-m", "--model", default=DEFAULT_MODEL, help=help_)
