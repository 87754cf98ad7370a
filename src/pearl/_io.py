"""Writing files without losing data (hashing them: :mod:`pearl._hashing`).

Every file pearl writes goes through :func:`atomic_path` (one file) or :func:`atomic_dir`
(a folder): the content is written beside the target under a unique temporary name and
renamed into place only when complete, so an interrupted write leaves the previous content
untouched and no partial file behind. :func:`check_io` refuses an output that overlaps
what the command reads.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import json
import os
import shutil
import stat
import threading
import uuid
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "atomic_path",
    "atomic_tsv",
    "atomic_dir",
    "check_io",
    "check_output",
    "check_writable",
    "write_text_atomic",
    "read_json",
    "read_json_object",
    "read_zip_member",
    "read_tsv",
    "MAX_MEMBER_BYTES",
    "not_decodable",
]


def _sibling(path: Path, suffix: str) -> Path:
    """A hidden, unique, not yet existing sibling of ``path`` (same file system, so the
    final rename is atomic; created by the caller with the usual permissions)."""
    return path.with_name(f".{path.name}.{os.getpid()}-{uuid.uuid4().hex[:12]}{suffix}")


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path to write to, renamed to ``path`` only when the block ends without
    error; an interrupted write leaves any previous file untouched and no partial one
    behind.

    The temporary file is a fresh, uniquely named sibling of ``path`` (never an existing
    file), so concurrent writers of the same target do not clobber each other's halves.
    A symbolic link is kept and the file it leads to is replaced; an existing character
    device or FIFO (``/dev/null``, ``/dev/stdout``, a named pipe) is written into, never
    replaced; ``-`` is refused with a ``ValueError``.
    """
    path = _write_target(path)
    if path.exists() and not path.is_file():  # through links: /dev/stdout -> /proc/...
        with _streamed(path) as tmp:
            yield tmp
        return
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _sibling(path, ".tmp")
    try:
        with _naming(path):
            yield tmp
            if tmp.is_file():
                _usual_mode(tmp, path)
            tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def _umask() -> int:
    """The process's umask (read by setting it and back, under a lock)."""
    with _UMASK_LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


_UMASK_LOCK = threading.Lock()


def _usual_mode(file: Path, target: Path | None = None) -> None:
    """Give a written file the mode a plain ``open`` would (``0o666`` less the umask), or
    the mode of the file it replaces: safetensors writes its files ``0o600``, so that a
    colleague could not load a shared model whose other files were ``0o644``."""
    try:
        if target is not None and target.is_file():
            mode = stat.S_IMODE(target.stat().st_mode)
        else:
            mode = 0o666 & ~_umask()
        os.chmod(file, mode)
    except OSError:  # a file system without modes: as written
        pass


def check_writable(path: str | os.PathLike, what: str = "output") -> None:
    """Raise now, naming ``path``, where :func:`atomic_path` could not write it later: a
    parent that is a file, a read-only folder, a full disk. A sibling temporary file is
    created and removed (nothing is left behind; ``path`` itself is not touched). For a
    command that works a long time (``pearl review``'s questions) before it writes."""
    path = _write_target(path)
    if path.exists() and not path.is_file():
        return  # a device or pipe (written into), or a folder, which atomic_path refuses
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = _sibling(target, ".check")
        with open(tmp, "wb") as f:
            f.write(b"\0" * 4096)  # a full disk fails here, not after the work
            f.flush()
            os.fsync(f.fileno())
        tmp.unlink()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise OSError(exc.errno, f"cannot write the {what} {str(path)!r}: {reason}") from None


def _write_target(path: str | os.PathLike) -> Path:
    """``path``, with ``-`` refused (standard output is a mode of a few commands, handled
    before any file is opened)."""
    if str(path) == "-":
        raise ValueError(
            "'-' (standard output) is not an output of this command; name a file "
            "(./- for a file named '-')"
        )
    return Path(path)


@contextlib.contextmanager
def _streamed(path: Path) -> Iterator[Path]:
    """Write an existing file that is not a regular file (``/dev/null``, ``/dev/stdout``,
    a FIFO): the content is made in a temporary folder and then copied *into* it, so the
    device or pipe stays what it is (it is never replaced by a regular file). A folder,
    a block device or a socket is refused."""
    import tempfile

    mode = path.stat().st_mode
    if not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
        kind = "a folder" if path.is_dir() else "not a file, a character device or a FIFO"
        raise OSError(f"{path} is {kind}; choose another output")
    with tempfile.TemporaryDirectory(prefix="pearl-out-") as folder:
        tmp = Path(folder) / path.name
        yield tmp
        with open(tmp, "rb") as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)


@contextlib.contextmanager
def _naming(path: Path) -> Iterator[None]:
    """Re-raise a full disk or quota (which Python reports without a file name) as an
    ``OSError`` naming the file or folder being written; the previous content is kept."""
    try:
        yield
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT) and str(path) not in str(exc):
            raise OSError(
                exc.errno,
                f"{os.strerror(exc.errno)} while writing {path} (the "
                "previous content, if any, is unchanged)",
            ) from exc
        raise


#: JSON files larger than this are refused (configs, metadata and shards are far smaller)
MAX_JSON_BYTES = 256 << 20


def not_decodable(path, encoding: str, exc: UnicodeError, remedy: str) -> ValueError:
    """The error of an input that is not ``encoding`` text: the file, the byte, and
    ``remedy`` (how to pass the file's encoding). pearl never replaces such a byte: the
    replacement character would be written into the values a tool returns."""
    if not isinstance(exc, UnicodeDecodeError):  # "UTF-16 stream does not start with BOM"
        return ValueError(f"{path} is not {encoding} text ({exc}); {remedy}")
    byte = bytes(exc.object[exc.start : exc.start + 1]).hex()
    return ValueError(f"{path} is not {encoding} text ({exc.reason}: byte 0x{byte}); {remedy}")


def read_json(path: str | os.PathLike, what: str = "JSON file") -> object:
    """Parse a JSON file a user may have received.

    Raises
    ------
    OSError
        Naming ``what`` and the path: unreadable, larger than 256 MiB, not UTF-8 JSON, or
        nested too deeply for the parser (a ``RecursionError`` never escapes).
    """
    path = Path(path)
    try:
        if path.stat().st_size > MAX_JSON_BYTES:
            raise OSError(f"{what} {path} is larger than {MAX_JSON_BYTES >> 20} MiB")
        return json.loads(path.read_text(encoding="utf-8"))
    except RecursionError:
        raise OSError(f"corrupt {what} {path}: nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
        raise OSError(f"corrupt {what} {path}: {exc}") from exc


def read_json_object(path: str | os.PathLike, what: str) -> dict:
    """A JSON object read from a file a user may have received; an unreadable file or
    anything but an object is an ``OSError`` naming ``what`` and the path."""
    try:
        data = read_json(path, what)
    except OSError as exc:
        raise OSError(
            str(exc) if str(exc).startswith(("corrupt", what)) else f"corrupt {what} {path}: {exc}"
        ) from exc
    if not isinstance(data, dict):
        raise OSError(f"corrupt {what} {path}: not a JSON object")
    return data


#: an archive member larger than this (uncompressed) is refused rather than read whole
MAX_MEMBER_BYTES = 512 << 20


def read_zip_member(archive, name: str, limit: int = MAX_MEMBER_BYTES) -> bytes:
    """The bytes of one member of an open ``zipfile.ZipFile``, streamed and refused above
    ``limit`` bytes (by its declared size, and again while reading, since a header can lie).

    Raises
    ------
    OSError
        Naming the archive and the member.
    """
    info = archive.getinfo(name)
    where = f"{getattr(archive, 'filename', 'archive')}:{name}"
    if info.file_size > limit:
        raise OSError(
            f"{where} unpacks to {info.file_size:,} bytes, more than pearl reads "
            f"from one archive member ({limit:,})"
        )
    with archive.open(info) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise OSError(f"{where} unpacks to more than {limit:,} bytes")
    return data


def read_tsv(
    path: str | os.PathLike, fields: list[str], what: str, check_header: bool = True
) -> list[tuple[Any, ...]]:
    """The rows of one of pearl's TSV files (a header, then ``len(fields)`` tab-separated
    fields per row), each checked.

    Raises
    ------
    ValueError
        Naming the file and line: a header other than ``fields`` (when ``check_header``),
        or a row with another number of fields.
    """
    with open(path, encoding="utf-8", newline="") as f:
        rows = csv.reader(f, delimiter="\t")
        header = next(rows, None)
        if check_header and header != fields:
            raise ValueError(f"{path} is not a pearl {what} (header {header}, expected {fields})")
        out = []
        for row in rows:
            if len(row) != len(fields):
                raise ValueError(
                    f"{path}, line {rows.line_num}: expected {len(fields)} tab-separated "
                    f"fields ({', '.join(fields)}), got {len(row)}"
                )
            out.append(tuple(row))
        return out


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write a UTF-8 text file atomically (see :func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


@contextlib.contextmanager
def atomic_tsv(path: str | os.PathLike, header: list[str]) -> Iterator[Any]:
    """A TSV writer (UTF-8, ``\\n`` line ends, header written) whose file appears at
    ``path`` only when the block ends without error (see :func:`atomic_path`)."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, delimiter="\t", lineterminator="\n")
        writer.writerow(header)
        yield writer


@contextlib.contextmanager
def atomic_dir(path: str | os.PathLike, replaceable: str | None = None) -> Iterator[Path]:
    """A fresh temporary folder that replaces ``path`` when the block ends without error.

    Parameters
    ----------
    path : path-like
        The folder to write.
    replaceable : str, optional
        A file name that marks a folder this function may replace (e.g. ``"modules.json"``
        for a model, ``"meta.json"`` for an index). An existing non-empty folder without it
        is refused *before* the block runs, so user data is never replaced by a model or an
        index. With None, an existing non-empty folder is always refused.

    Raises
    ------
    FileExistsError
        ``path`` is a file, or a non-empty folder that is not replaceable.
    """
    if str(path) == "-":
        raise ValueError("'-' (standard output) cannot be a folder; name a folder")
    path = Path(path)
    check_replaceable_dir(path, replaceable)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _sibling(path, ".partial")
    tmp.mkdir()
    old = None
    try:
        with _naming(path):
            yield tmp
        for file in tmp.rglob("*"):
            if file.is_file() and not file.is_symlink():
                _usual_mode(file)
        if path.exists():
            old = _sibling(path, ".old")
            old.mkdir()
            os.replace(path, old / "x")
        os.replace(tmp, path)
    except BaseException:
        if old is not None and not path.exists():  # put the previous folder back
            os.replace(old / "x", path)
        raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def check_replaceable_dir(path: str | os.PathLike, replaceable: str | None) -> None:
    """Raise ``FileExistsError`` unless ``path`` is absent, an empty folder, or a folder
    holding the marker file ``replaceable`` (see :func:`atomic_dir`)."""
    path = Path(path)
    if path.is_file() or path.is_symlink():
        raise FileExistsError(f"{path} exists and is not a folder; choose another output")
    if path.is_dir() and any(path.iterdir()):
        if replaceable is None or not (path / replaceable).is_file():
            what = f"has no {replaceable}" if replaceable else "is not empty"
            raise FileExistsError(
                f"{path} already exists and {what}: pearl does not overwrite a folder it did "
                "not write; choose a new output folder or remove it yourself"
            )


def _same(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _real(path: str | os.PathLike) -> Path:
    return Path(os.path.realpath(Path(path).expanduser()))


def check_io(
    outputs: Mapping[str, str | os.PathLike | None], inputs: Iterable[str | os.PathLike | None]
) -> None:
    """The one output guard: refuse any overlap between what a command writes and what it
    reads, before any work.

    An output may not be an input (also through a link or a hard link), lie inside an
    input folder, or be a folder that holds an input (writing it would replace the input).
    Every CLI command goes through it (``pearl.cli``), and so do the API functions that
    write files.

    Parameters
    ----------
    outputs : dict
        Parameter name (used in the message) -> the path written; None is skipped.
    inputs : iterable of path-like
        Files and folders read; None and ``"-"`` (standard input) are skipped.

    Raises
    ------
    ValueError
        Naming the parameter and the input it would overwrite.
    """
    sources = [
        (str(i), _real(i), Path(i).expanduser())
        for i in inputs
        if i is not None and str(i) not in ("", "-")
    ]
    for name, output in outputs.items():
        if output is None or str(output) in ("", "-"):
            continue
        out, out_res = Path(output).expanduser(), _real(output)
        for shown, src_res, src in sources:
            inside = src_res.is_dir() and src_res in out_res.parents
            holds = out_res in src_res.parents
            if out_res == src_res or _same(out, src) or inside or holds:
                how = (
                    "holds the input"
                    if holds and not out_res == src_res
                    else "would overwrite the input"
                )
                raise ValueError(
                    f"{name} {str(output)!r} {how} {shown!r}; write the result "
                    "to another path (pearl never writes over what it reads)"
                )


def check_output(
    output: str | os.PathLike, inputs: Iterable[str | os.PathLike | None], name: str = "output"
) -> None:
    """:func:`check_io` for a single output."""
    check_io({name: output}, inputs)
