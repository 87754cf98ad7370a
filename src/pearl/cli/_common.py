"""Helpers shared by the command groups: argument types, reading and writing tables, Dask."""

from __future__ import annotations

import argparse
import io
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from pearl._extras import MissingExtraError, require
from pearl._io import atomic_path
from pearl._io import not_decodable as _not_decodable
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


#: compression suffixes of CSV and TSV files (pandas' names)
COMPRESSION = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zst": "zstd", ".zip": "zip"}


def _format(path: str) -> tuple[str, str | None]:
    """``(suffix, compression)`` of a table file name: ``x.tsv.gz`` -> (".tsv", "gzip")."""
    p = Path(path)
    compression = COMPRESSION.get(p.suffix.lower())
    suffix = Path(p.stem).suffix if compression else p.suffix
    return suffix.lower(), compression


def write_table(frame, path: str) -> None:
    """Write a table, its format from the file name (``.parquet``, ``.tsv``, else CSV; a
    ``.gz``, ``.bz2``, ``.xz``, ``.zst`` or ``.zip`` ending compresses a CSV or TSV), or
    CSV on standard output for ``-``; files atomically: an interrupt leaves any previous
    file as it was."""
    if path == "-":
        frame.to_csv(sys.stdout, index=False)
        return
    suffix, compression = _format(path)
    with atomic_path(path) as tmp:
        if suffix in PARQUET and not compression:
            require("pyarrow", "writing a Parquet table")
            frame.to_parquet(tmp, index=False)
        else:
            frame.to_csv(
                tmp, index=False, sep="\t" if suffix in TSV else ",", compression=compression
            )


def encoding_name(text: str) -> str:
    """The ``--encoding`` option's type: a text encoding Python knows, by its usual name."""
    import codecs

    try:
        return codecs.lookup(text).name
    except LookupError:
        raise argparse.ArgumentTypeError(
            f"unknown encoding {text!r} (for example utf-8, cp1252, latin-1)"
        ) from None


def add_encoding(p) -> None:
    """``--encoding``: how CSV, TSV and text inputs are decoded (outputs are UTF-8)."""
    p.add_argument(
        "--encoding",
        type=encoding_name,
        default="utf-8",
        help="text encoding of CSV, TSV and text-file inputs (default utf-8; for example "
        "cp1252 for a CSV saved by Excel on Windows). Bytes that do not decode are an "
        "error, never replaced; outputs are written in UTF-8",
    )


def utf8_only(args, where: str) -> None:
    """Refuse ``--encoding`` where the input is read elsewhere (Dask's workers)."""
    if args.encoding != "utf-8":
        raise ValueError(f"--encoding is not offered {where}: convert the input to UTF-8")


def not_decodable(path, encoding: str, exc: UnicodeError) -> ValueError:
    """The error of an input that is not ``encoding`` text, naming the option to pass."""
    remedy = (
        "pass --encoding with the file's encoding, for example --encoding cp1252 for a CSV "
        "saved by Excel on Windows (pearl does not replace what it cannot read)"
    )
    return _not_decodable(path, encoding, exc, remedy)


def read_lines(path: str, encoding: str = "utf-8") -> list[str]:
    """The lines of a text file (``-``: standard input), decoded strictly."""
    if path == "-":
        return [line.rstrip("\n") for line in sys.stdin]
    p = Path(path)
    _check_readable(p, "input file")
    try:
        with open(p, encoding=encoding) as f:
            return [line.rstrip("\n") for line in f]
    except UnicodeError as exc:  # UTF-16 without its byte order mark too
        raise not_decodable(path, encoding, exc) from None


def texts_of(args) -> list[str]:
    texts = list(args.texts or [])
    if args.input:
        texts += read_lines(args.input, args.encoding)
    if not texts:
        raise ValueError("no input: give phrases as arguments or --input FILE")
    return texts


def dask_client(args):
    """A client to ``--scheduler``, or to a new local cluster of ``--workers`` processes."""
    try:
        import distributed  # noqa: F401 - dask's scheduler client, which dask alone lacks

        from pearl.distributed import dask as pdk
    except ImportError as exc:
        raise MissingExtraError(
            "--workers and --scheduler run pearl on Dask, an optional dependency of pearl: "
            f"pip install 'pearl[dask]' ({exc})"
        ) from exc
    import logging

    # the scheduler runs in this process: its INFO lines (workers registered, streams
    # opened and closed, some thirty for a 4-row join) only with -v
    level = logging.INFO if getattr(args, "verbose", False) else logging.WARNING
    logging.getLogger("distributed").setLevel(level)
    if args.scheduler:
        from distributed import Client

        return Client(args.scheduler)
    return pdk.local_client(args.workers)


def close_client(client) -> None:
    cluster = getattr(client, "cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


def read_table(path: str, chunksize: int | None = None, encoding: str = "utf-8"):
    """A table file (``-``: a CSV on standard input), its format from the file name:
    Parquet (``.parquet``, ``.pq``, read with its column types, as the Python API takes
    the frame), TSV (``.tsv``, ``.tab``) or CSV (anything else; every column read as
    text, decoded strictly with ``encoding``: a byte that does not decode is a
    :func:`not_decodable` error, as replacing it changed the values that the output
    carries). Only an empty cell is missing: ``NA`` (Namibia's code), ``None``, ``null``
    or ``n/a`` are values, read and written back as they are (pandas' default
    missing-value strings blanked them). With ``chunksize``, an iterator of frames."""
    import pandas as pd

    if path == "-":  # a CSV on standard input
        path, p = "standard input", Path("/dev/stdin")
        suffix, compression = ".csv", None
        source: Any = io.BytesIO(sys.stdin.buffer.read())
    else:
        p = Path(path)
        _check_readable(p, "table")
        suffix, compression = _format(path)
        source = None
    if suffix in PARQUET and not compression:
        return read_parquet(p)
    # a pipe is read once: its bytes are kept to read the header line, then the table
    if source is None:
        source = p if p.is_file() else io.BytesIO(p.read_bytes())
    options = dict(
        dtype=str,
        keep_default_na=False,
        encoding=encoding,
        sep="\t" if suffix in TSV else ",",
        compression=compression,
    )
    try:
        _check_header(pd.read_csv(source, header=None, nrows=1, **options), path)
        if isinstance(source, io.BytesIO):
            source.seek(0)
        table = pd.read_csv(source, na_values=[""], chunksize=chunksize, **options)
    except pd.errors.EmptyDataError:  # pandas says "No columns to parse from file"
        raise ValueError(f"{path} is empty: a table needs at least a header line") from None
    except UnicodeError as exc:  # a decoding error, or UTF-16 without its byte order mark
        raise not_decodable(path, encoding, exc) from None
    return table if chunksize is None else _decoded_chunks(table, path, encoding)


def _check_header(first, path: str) -> None:
    """Refuse a header line that names a column twice: pandas would rename the second
    ``name.1``, a column the user never wrote (docs/security.md)."""
    names = Counter(str(v) for v in first.iloc[0].tolist()) if len(first) else Counter()
    twice = [name for name, count in names.items() if count > 1]
    if twice:
        raise ValueError(
            f"{path}: the header names the column(s) {twice} more than once; rename them "
            "(pearl refuses a table whose columns it cannot tell apart)"
        )


def _decoded_chunks(reader, path: str, encoding: str):
    """The chunks of a CSV reader, a byte that does not decode a :func:`not_decodable`
    error (a later chunk fails while the join reads it)."""
    with reader:
        try:
            yield from reader
        except UnicodeError as exc:  # UTF-16 without its byte order mark too
            raise not_decodable(path, encoding, exc) from None


def _check_readable(p: Path, what: str) -> None:
    """A file, or a pipe or device (``/dev/stdin``, a shell's ``<(...)``); not a folder."""
    if not p.exists():
        raise FileNotFoundError(f"{what} not found: {p}")
    if p.is_dir():
        raise IsADirectoryError(f"{what} {p} is a folder, not a file")


def read_parquet(p: Path):
    """A Parquet file as pandas, every column's values kept exactly: integer and boolean
    columns with nulls become pandas' nullable ``Int64``/``boolean`` (not float, which
    rounds ids above 2**53); a pipe is read whole first. Invalid content (bad UTF-8 in a
    string column) is a ``ValueError`` naming the file."""

    pa = require("pyarrow", "reading a Parquet table")
    import pandas as pd
    import pyarrow.parquet as pq

    nullable = {getattr(pa, t)(): pd.api.types.pandas_dtype(_nullable(t)) for t in _INTS}
    nullable[pa.bool_()] = pd.BooleanDtype()
    source = p if p.is_file() else io.BytesIO(p.read_bytes())
    try:
        table = pq.read_table(source)
        table.validate(full=True)  # invalid UTF-8 fails here, not deep in a tool
        frame = table.to_pandas(types_mapper=nullable.get)
    except (pa.ArrowException, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read the Parquet table {p}: {exc}") from None
    frame = _index_as_columns(frame, p)
    for i, name in enumerate(frame.columns):  # no nulls: the plain NumPy type, as before
        dtype = frame.dtypes.iloc[i]
        if isinstance(dtype, pd.api.extensions.ExtensionDtype) and dtype in nullable.values():
            if not table.column(str(name)).null_count:
                frame.isetitem(i, frame.iloc[:, i].to_numpy(dtype.numpy_dtype))
    return frame


def _index_as_columns(frame, p: Path):
    """The table's columns, without the index pandas stored with it (a file written after
    ``sort_values``, ``sample``, a filter or ``set_index``): a *named* index level holds
    data and becomes a column (``set_index("id")`` gives back ``id``); an unnamed one
    holds row labels and is dropped, as ``to_csv(index=False)`` drops it. A named level
    whose name is also a column's is a ``ValueError`` naming the file."""
    import pandas as pd

    if isinstance(frame.index, pd.RangeIndex) and frame.index.name is None:
        return frame.reset_index(drop=True)
    named = [n for n in frame.index.names if n is not None]
    clash = [n for n in named if n in frame.columns]
    if clash:
        raise ValueError(
            f"the Parquet table {p} has an index level and a column both named "
            f"{clash[0]!r}: rename one (pearl reads a named index as a column)"
        )
    unnamed = [i for i, n in enumerate(frame.index.names) if n is None]
    if unnamed:
        frame = frame.reset_index(level=unnamed, drop=True)
    return frame.reset_index() if named else frame.reset_index(drop=True)


_INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def _nullable(name: str) -> str:
    return "UInt" + name[4:] if name.startswith("uint") else "I" + name[1:]


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


def key_names(columns: list[str]) -> str | list[str]:
    """One column name, or the list of several."""
    return columns[0] if len(columns) == 1 else list(columns)


def key_args(p, left_help: str = "column(s) of LEFT to match") -> None:
    """``--on`` (the same column names in both tables), or ``--left-on`` and ``--right-on``."""
    p.add_argument("--on", nargs="+", help="column(s) of the same name(s) in LEFT and RIGHT")
    p.add_argument("--left-on", nargs="+", help=left_help)
    p.add_argument("--right-on", nargs="+", help="column(s) of RIGHT to match")


def key_sides(args) -> None:
    """``args.left_on``/``args.right_on`` from ``--on``, or a clear error when the key
    columns are named both ways or only on one side."""
    if args.on is not None:
        if args.left_on is not None or args.right_on is not None:
            raise ValueError("name the key columns with --on, or with --left-on and --right-on")
        args.left_on = args.right_on = args.on
    elif args.left_on is None or args.right_on is None:
        raise ValueError("name the key columns: --on COL..., or --left-on COL... --right-on COL...")
