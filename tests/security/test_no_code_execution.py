"""Files a user receives (model folders, index folders, checkpoints) never run code.

Each malicious fixture carries a payload that writes a marker file when executed; the tests
assert the marker is absent after pearl refuses the file, and (where pearl can be told to
trust the file) present when it is trusted, so the payload is known to be live.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pearl import EntityIndex, PhraseEncoder
from pearl.cli import main
from pearl.encoders.fingerprint import folder_fingerprint

SRC = Path(__file__).parents[2] / "src" / "pearl"


def _payload(marker: Path) -> str:
    return f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\n"


@pytest.fixture
def evil_model(tiny_pearl_dir, tmp_path) -> tuple[Path, Path]:
    """A copy of a pearl model whose last module is a class from a .py file in the folder."""
    folder = tmp_path / "evil-model"
    shutil.copytree(tiny_pearl_dir, folder)
    marker = tmp_path / "MARKER"
    (folder / "modeling_x.py").write_text(
        _payload(marker) + "from sentence_transformers.base.modules.normalize import "
        "Normalize as X\n"
    )
    modules = json.loads((folder / "modules.json").read_text())
    modules.append(
        {"idx": len(modules), "name": str(len(modules)), "path": "", "type": "modeling_x.X"}
    )
    (folder / "modules.json").write_text(json.dumps(modules))
    return folder, marker


def test_model_folder_with_foreign_module_is_refused_by_name(evil_model):
    folder, marker = evil_model
    with pytest.raises(OSError, match=r"'modeling_x\.X'.*trust_remote_code"):
        PhraseEncoder(folder)
    assert not marker.exists()


def test_cli_refuses_the_same_folder(evil_model, capsys):
    folder, marker = evil_model
    assert main(["encode", "-m", str(folder), "hello"]) == 2
    assert "modeling_x.X" in capsys.readouterr().err
    assert not marker.exists()


def test_the_payload_is_live_when_the_user_trusts_the_folder(evil_model):
    folder, marker = evil_model
    PhraseEncoder(folder, trust_remote_code=True)
    assert marker.read_text() == "ran"


def test_auto_map_in_the_transformer_config_runs_nothing(tiny_pearl_dir, tmp_path):
    folder = tmp_path / "automap"
    shutil.copytree(tiny_pearl_dir, folder)
    marker = tmp_path / "MARKER"
    (folder / "modeling_evil.py").write_text(_payload(marker) + "class EvilModel:\n  pass\n")
    config = json.loads((folder / "config.json").read_text())
    config["auto_map"] = {
        "AutoModel": "modeling_evil.EvilModel",
        "AutoConfig": "modeling_evil.EvilModel",
    }
    (folder / "config.json").write_text(json.dumps(config))
    try:
        PhraseEncoder(folder).encode(["x"])
    except OSError:
        pass  # refusing is as good as ignoring the auto_map
    assert not marker.exists()


def test_folder_without_modules_json_is_an_oserror(tiny_model_dir, tmp_path):
    folder = tmp_path / "plain"
    shutil.copytree(tiny_model_dir, folder)
    (folder / "modules.json").unlink()
    with pytest.raises(OSError, match="no modules.json"):
        PhraseEncoder(folder)


def test_index_never_loads_a_model_from_inside_its_folder(evil_model, tmp_path, hash_encoder):
    evil, marker = evil_model
    idx = EntityIndex(model=hash_encoder).build(["Paris", "London"])
    folder = idx.save(tmp_path / "idx")
    shutil.copytree(evil, folder / "model")
    meta = json.loads((folder / "meta.json").read_text())
    meta["model"] = str(folder / "model")
    meta["fingerprint"] = folder_fingerprint(folder / "model")  # a forged, matching one
    (folder / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="never loads a model folder it names"):
        EntityIndex.load(folder)
    assert main(["index", "search", str(folder), "Pariss"]) == 2
    # passed explicitly, the folder still goes through the safe loader
    with pytest.raises(OSError, match="modeling_x"):
        EntityIndex.load(folder, model=str(folder / "model"))
    assert not marker.exists()


def test_index_checks_the_fingerprint_before_loading_a_model(tiny_model_dir, tmp_path, monkeypatch):
    idx = EntityIndex(model=str(tiny_model_dir)).build(["Paris", "London"])
    folder = idx.save(tmp_path / "idx")
    meta = json.loads((folder / "meta.json").read_text())
    meta["fingerprint"] = "0" * 16
    (folder / "meta.json").write_text(json.dumps(meta))

    def no_loading(*args, **kwargs):
        raise AssertionError("a model was loaded before the fingerprint check")

    monkeypatch.setattr("pearl.encoders.phrase._load_sentence_transformer", no_loading)
    monkeypatch.setattr("pearl.tables.encoding._ENCODERS", {})
    with pytest.raises(ValueError, match="fingerprint"):
        EntityIndex.load(folder, model=str(tiny_model_dir))


class _Payload:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path(self.marker).write_text, ("ran",))


def test_pickle_checkpoint_is_refused_not_unpickled(training_files, tiny_model_dir, tmp_path):
    import torch

    from pearl.training import TrainConfig, Trainer

    marker = tmp_path / "MARKER"
    cfg = TrainConfig(
        backbone=str(tiny_model_dir),
        output=str(tmp_path / "m"),
        batch_size=4,
        max_steps=2,
        char_pretrain_steps=0,
        **training_files,
    )
    cfg.checkpoints.mkdir(parents=True)
    torch.save({"step": _Payload(str(marker))}, cfg.checkpoints / "state.pt")
    with pytest.raises(OSError, match="pickle"):
        Trainer(cfg, show_progress_bar=False).train(resume=True)
    assert not marker.exists()
    # the payload is live: unpickling it does write the marker
    torch.load(cfg.checkpoints / "state.pt", weights_only=False)  # noqa: S614 - the test's own file
    assert marker.exists()


def test_truncated_checkpoint_is_a_clear_error(training_files, tiny_model_dir, tmp_path):
    from pearl.training import TrainConfig, Trainer

    cfg = TrainConfig(
        backbone=str(tiny_model_dir),
        output=str(tmp_path / "m"),
        batch_size=4,
        max_steps=2,
        char_pretrain_steps=0,
        **training_files,
    )
    Trainer(cfg, show_progress_bar=False).train()
    state = cfg.checkpoints / "state.safetensors"
    state.write_bytes(state.read_bytes()[: state.stat().st_size // 2])
    with pytest.raises(OSError, match="corrupt or truncated training checkpoint"):
        Trainer(cfg, show_progress_bar=False).train(resume=True)


def test_no_pickle_anywhere_in_the_package():
    risky = re.compile(
        r"weights_only\s*=\s*False|pickle\.loads?\(|allow_pickle\s*=\s*True|"
        r"torch\.load\(|joblib\.load|dill\."
    )
    hits = [
        f"{p.relative_to(SRC)}:{i}"
        for p in SRC.rglob("*.py")
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if risky.search(line)
    ]
    assert hits == []


def test_invalid_utf8_on_the_command_line(tiny_model_dir):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pearl.cli",
            "encode",
            "-q",
            "-m",
            str(tiny_model_dir),
            b"caf\xe9 \xff",
        ],
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    row = json.loads(proc.stdout.decode("utf-8"))
    assert row["text"] == "caf\ufffd \ufffd" and len(row["embedding"]) == 32
