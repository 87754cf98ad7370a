"""Attacks through the doors of issue 38: folder configs, names shadowed by folders, models
beside an index, links out of a folder, deeply nested JSON. Each payload writes a marker
file when executed; pearl must refuse the input and the marker must stay absent."""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

import pytest

from pearl import EntityIndex, PhraseEncoder
from pearl.cli import main
from pearl.encoders.resolve import resolve_model_path


class _Payload:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path(self.marker).write_text, ("ran",))


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


@pytest.fixture
def pickled_weights_model(tmp_path) -> tuple[Path, Path]:
    """The issue's repro: a copy of the packaged all-MiniLM-L6-v2 whose own config asks
    transformers to unpickle its pytorch_model.bin (the real weights plus a payload)."""
    import torch
    from safetensors.torch import load_file

    folder = _copy(Path(resolve_model_path("all-MiniLM-L6-v2")), tmp_path / "evil")
    marker = tmp_path / "MARKER"
    cfg = json.loads((folder / "sentence_bert_config.json").read_text())
    cfg["model_kwargs"] = {"dtype": "auto", "weights_only": False}
    (folder / "sentence_bert_config.json").write_text(json.dumps(cfg))
    weights = dict(load_file(str(folder / "model.safetensors")))
    weights["payload"] = _Payload(str(marker))
    (folder / "model.safetensors").unlink()
    torch.save(weights, folder / "pytorch_model.bin")
    return folder, marker


def test_pickled_weights_named_by_the_folder_config_are_refused(pickled_weights_model):
    import torch

    folder, marker = pickled_weights_model
    with pytest.raises(OSError, match="pickle"):
        PhraseEncoder(folder)
    assert main(["encode", "-m", str(folder), "hello"]) == 2
    assert not marker.exists()
    # the payload is live: unpickling the file does write the marker
    torch.load(folder / "pytorch_model.bin", weights_only=False)  # noqa: S614 - test's own
    assert marker.exists()


def test_finetune_refuses_the_same_folder(pickled_weights_model, tmp_path, capsys):
    folder, marker = pickled_weights_model
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("text,group\nNew York,1\nNYC,1\nParis,2\nParis FR,2\n")
    assert main(["finetune", str(pairs), "-m", str(folder), "-o", str(tmp_path / "out"), "-q"]) == 2
    assert "pickle" in capsys.readouterr().err
    assert not marker.exists()


def test_folder_model_kwargs_do_not_reach_transformers(tiny_model_dir, tmp_path, caplog):
    folder = _copy(tiny_model_dir, tmp_path / "kw")
    cfg = json.loads((folder / "sentence_bert_config.json").read_text())
    # each of these would break loading (or reach elsewhere) if it were passed on
    cfg["model_kwargs"] = {"attn_implementation": "no-such-attention", "dtype": "float32"}
    cfg["config_kwargs"] = {"no_such_option": 1}
    cfg["tokenizer_name_or_path"] = str(tmp_path / "elsewhere")
    (folder / "sentence_bert_config.json").write_text(json.dumps(cfg))
    with caplog.at_level(logging.WARNING):
        enc = PhraseEncoder(folder)
    assert enc.encode(["hello"]).shape == (1, 32)
    assert "model_kwargs.attn_implementation" in caplog.text
    assert "config_kwargs" in caplog.text and "tokenizer_name_or_path" in caplog.text


def test_known_name_beats_a_folder_in_the_working_directory(tiny_model_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _copy(tiny_model_dir, tmp_path / "all-MiniLM-L6-v2")
    _copy(tiny_model_dir, tmp_path / "pearl-minilm")
    installed = resolve_model_path("all-MiniLM-L6-v2")
    assert Path(installed).resolve() != (tmp_path / "all-MiniLM-L6-v2").resolve()
    assert "pretrained" in resolve_model_path("pearl-minilm")
    # written as a path, the local folder is used
    assert Path(resolve_model_path("./all-MiniLM-L6-v2")) == tmp_path / "all-MiniLM-L6-v2"
    assert PhraseEncoder("./pearl-minilm").embedding_dim == 32


def test_a_bare_unknown_name_is_not_a_local_folder(tiny_model_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _copy(tiny_model_dir, tmp_path / "mymodel")
    monkeypatch.setattr("pearl.encoders.resolve._hub_reachable", lambda: False)
    with pytest.raises(OSError, match=r"\./mymodel"):
        PhraseEncoder("mymodel")
    assert PhraseEncoder("./mymodel").embedding_dim == 32


def _tree_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_finetune_with_a_bare_name_never_replaces_the_folder_of_that_name(
    tiny_model_dir, tmp_path, monkeypatch, capsys
):
    # `-m mymodel -o mymodel`: the guard reads a bare name as a hub name, so the command
    # must not open the local folder of that name either (it used to, and replaced it)
    import pandas as pd

    monkeypatch.chdir(tmp_path)
    _copy(tiny_model_dir, tmp_path / "mymodel")
    before = _tree_bytes(tmp_path / "mymodel")
    pairs = {
        "left": ["Acme Inc", "Hooli", "Acme Inc"],
        "right": ["ACME Inc.", "Hooli Inc", "Hooli"],
    }
    pd.DataFrame({**pairs, "label": [1, 1, 0]}).to_csv(tmp_path / "pairs.csv", index=False)
    argv = ["finetune", "pairs.csv", "-m", "mymodel", "-o", "mymodel", "--epochs", "1", "-q"]
    assert main(argv) == 2
    assert "./mymodel" in capsys.readouterr().err
    assert _tree_bytes(tmp_path / "mymodel") == before


def test_train_with_a_bare_backbone_never_replaces_the_folder_of_that_name(
    tiny_model_dir, tmp_path, monkeypatch, capsys
):
    from conftest import write_training_files

    monkeypatch.chdir(tmp_path)
    _copy(tiny_model_dir, tmp_path / "bb")
    before = _tree_bytes(tmp_path / "bb")
    files = write_training_files(tmp_path / "data")
    argv = ["train", "--backbone", "bb", "-o", "bb", "-q", "--set", "max_steps=1"]
    argv += ["--set", "batch_size=4"] + [a for k, v in files.items() for a in (f"--{k}", v)]
    assert main(argv) == 2
    assert "./bb" in capsys.readouterr().err
    assert _tree_bytes(tmp_path / "bb") == before


def test_a_missing_local_path_is_a_clear_error(tmp_path):
    with pytest.raises(OSError, match="not found"):
        resolve_model_path(str(tmp_path / "nothing"))
    with pytest.raises(OSError, match="not found"):
        resolve_model_path("./nothing-here")


@pytest.fixture
def index_and_model(tiny_model_dir, tmp_path) -> tuple[Path, Path]:
    model = _copy(tiny_model_dir, tmp_path / "bundle" / "model")
    idx = EntityIndex(model=str(model)).build(["Paris", "London"])
    return idx.save(tmp_path / "bundle" / "idx"), model


def test_an_index_never_loads_a_model_beside_it(index_and_model, capsys):
    folder, model = index_and_model
    meta = json.loads((folder / "meta.json").read_text())
    for recorded in (str(model), "../model", "./model"):
        meta["model"] = recorded
        (folder / "meta.json").write_text(json.dumps(meta))
        with pytest.raises(ValueError, match="never loads a model folder it names"):
            EntityIndex.load(folder)
        assert main(["index", "search", str(folder), "Pariss"]) == 2
    # the user's own -m still works, through the strict loader
    assert main(["index", "search", str(folder), "Pariss", "-m", str(model)]) == 0


def test_an_index_never_follows_a_link_to_a_model(index_and_model, tmp_path):
    folder, model = index_and_model
    os.symlink(model, folder / "model")
    meta = json.loads((folder / "meta.json").read_text())
    meta["model"] = str(folder / "model")
    (folder / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="never loads"):
        EntityIndex.load(folder)


def test_an_index_naming_a_hub_id_with_a_forged_fingerprint(index_and_model, monkeypatch):
    folder, _ = index_and_model
    meta = json.loads((folder / "meta.json").read_text())
    meta["model"] = meta["fingerprint"] = "someone/evil-model"
    (folder / "meta.json").write_text(json.dumps(meta))

    def no_loading(*args, **kwargs):
        raise AssertionError("a model was loaded")

    monkeypatch.setattr("pearl.encoders.phrase._load_sentence_transformer", no_loading)
    with pytest.raises(ValueError, match="not a model installed"):
        EntityIndex.load(folder)


def test_a_link_out_of_the_model_folder_is_refused(tiny_model_dir, tmp_path):
    folder = _copy(tiny_model_dir, tmp_path / "linked")
    outside = tmp_path / "outside.json"
    outside.write_text((folder / "tokenizer.json").read_text())
    (folder / "tokenizer.json").unlink()
    os.symlink(outside, folder / "tokenizer.json")
    with pytest.raises(OSError, match="outside the model folder"):
        PhraseEncoder(folder)


@pytest.mark.parametrize("where", ["relative", "absolute"])
def test_a_shard_index_naming_weights_outside_the_folder_is_refused(
    tiny_model_dir, tmp_path, where
):
    from safetensors.torch import load_file

    folder = _copy(tiny_model_dir, tmp_path / "sharded")
    weights = folder / "model.safetensors"
    (tmp_path / "outside").mkdir()
    shard = tmp_path / "outside" / "x.safetensors"
    shard.write_bytes(weights.read_bytes())
    weights.unlink()
    name = "../outside/x.safetensors" if where == "relative" else str(shard)
    index = {"metadata": {}, "weight_map": {k: name for k in load_file(shard)}}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    with pytest.raises(OSError, match="outside the model folder"):
        PhraseEncoder(folder)


def test_a_fifo_in_a_model_folder_is_refused_not_waited_on(tiny_model_dir, tmp_path):
    folder = _copy(tiny_model_dir, tmp_path / "fifo")
    (folder / "config_sentence_transformers.json").unlink()
    os.mkfifo(folder / "config_sentence_transformers.json")
    with pytest.raises(OSError, match="not a regular file"):
        PhraseEncoder(folder)


def _edit_json(path: Path, **changes) -> None:
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))


@pytest.mark.parametrize(
    "breakage, message",
    [
        ("no tokenizer", "no tokenizer vocabulary"),
        ("tensors removed", "not in its safetensors files"),
        ("another model_type", "not in its safetensors files"),
        ("vocabulary past the table", "embedding table"),
    ],
)
def test_a_broken_model_folder_is_refused_not_loaded_with_random_parts(
    tiny_model_dir, tmp_path, breakage, message
):
    from safetensors.torch import load_file, save_file

    folder = _copy(tiny_model_dir, tmp_path / "broken")
    if breakage == "no tokenizer":
        for name in ("tokenizer.json", "vocab.txt"):
            (folder / name).unlink(missing_ok=True)
    elif breakage == "tensors removed":
        weights = load_file(folder / "model.safetensors")
        kept = {k: v for k, v in weights.items() if "attention.self" not in k}
        save_file(kept, folder / "model.safetensors", metadata={"format": "pt"})
    elif breakage == "another model_type":
        _edit_json(
            folder / "config.json", model_type="distilbert", architectures=["DistilBertModel"]
        )
    else:
        weights = load_file(folder / "model.safetensors")
        key = "embeddings.word_embeddings.weight"
        weights[key] = weights[key][:1000].clone()
        save_file(weights, folder / "model.safetensors", metadata={"format": "pt"})
        _edit_json(folder / "config.json", vocab_size=1000)
    with pytest.raises(OSError, match=message):
        PhraseEncoder(folder)


def test_a_max_seq_length_past_the_positions_is_lowered(tiny_model_dir, tmp_path, caplog):
    folder = _copy(tiny_model_dir, tmp_path / "long")
    _edit_json(folder / "sentence_bert_config.json", max_seq_length=4096)
    with caplog.at_level(logging.WARNING):
        enc = PhraseEncoder(folder)
    assert "above the model's 128 positions" in caplog.text
    assert enc.encode(["word " * 500]).shape == (1, 32)


def test_running_out_of_memory_while_loading_says_so(tiny_model_dir, monkeypatch):
    from sentence_transformers import SentenceTransformer

    def oom(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(SentenceTransformer, "_load_with_module_classes", oom)
    with pytest.raises(OSError, match="out of memory"):
        PhraseEncoder(tiny_model_dir)


def test_auto_map_in_the_tokenizer_config_is_refused(tiny_model_dir, tmp_path):
    folder = _copy(tiny_model_dir, tmp_path / "tok")
    marker = tmp_path / "MARKER"
    (folder / "tokenization_evil.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\n"
    )
    cfg = json.loads((folder / "tokenizer_config.json").read_text())
    cfg["auto_map"] = {"AutoTokenizer": ["tokenization_evil.Evil", None]}
    (folder / "tokenizer_config.json").write_text(json.dumps(cfg))
    with pytest.raises(OSError, match="auto_map"):
        PhraseEncoder(folder)
    assert not marker.exists()


DEEP = "[" * 200_000 + "]" * 200_000


def test_deeply_nested_modules_json_names_the_file(tiny_model_dir, tmp_path):
    folder = _copy(tiny_model_dir, tmp_path / "deep")
    (folder / "modules.json").write_text(DEEP)
    with pytest.raises(OSError, match="modules.json.*nested too deeply"):
        PhraseEncoder(folder)


def test_deeply_nested_index_meta_names_the_file(tmp_path, hash_encoder):
    folder = EntityIndex(model=hash_encoder).build(["Paris"]).save(tmp_path / "idx")
    (folder / "meta.json").write_text(DEEP)
    with pytest.raises(OSError, match="meta.json.*nested too deeply"):
        EntityIndex.load(folder, model=hash_encoder)


def test_deeply_nested_caches_are_ignored_not_fatal(tmp_path, hash_encoder, caplog):
    from pearl._hashing import file_sha256
    from pearl.encoders import EmbeddingCache
    from pearl.paths import cache_dir

    store = cache_dir() / "file-hashes.json"
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_text(DEEP)
    f = tmp_path / "f.txt"
    f.write_text("x")
    assert len(file_sha256(f)) == 64  # and the store is rewritten, not a crash forever
    assert json.loads(store.read_text())
    cache = EmbeddingCache(hash_encoder, root=tmp_path / "emb")
    cache(["a", "b"])
    shard = next((tmp_path / "emb").rglob("*.json"))
    shard.write_text(DEEP)
    with caplog.at_level(logging.WARNING):
        again = EmbeddingCache(hash_encoder, root=tmp_path / "emb")
    assert "nested too deeply" in caplog.text and len(again) == 0


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_transformer_folder_with_non_finite_weights_is_refused(tiny_model_dir, tmp_path, value):
    from safetensors.torch import load_file, save_file

    folder = _copy(tiny_model_dir, tmp_path / "nan")
    weights = load_file(folder / "model.safetensors")
    key = "embeddings.word_embeddings.weight"
    weights[key][7, 3] = value
    save_file(weights, folder / "model.safetensors", metadata={"format": "pt"})
    with pytest.raises(OSError, match=f"{folder}.*NaN or infinite weights.*{key}"):
        PhraseEncoder(folder)


def test_a_tokenizer_id_past_the_table_is_refused_by_its_largest_id(tiny_model_dir, tmp_path):
    # as many entries as rows, but one id past them: the count of entries passed
    folder = _copy(tiny_model_dir, tmp_path / "ids")
    tok = json.loads((folder / "tokenizer.json").read_text())
    vocab = tok["model"]["vocab"]
    rows = json.loads((folder / "config.json").read_text())["vocab_size"]
    last = max(vocab, key=vocab.get)
    vocab[last] = rows + 50
    (folder / "tokenizer.json").write_text(json.dumps(tok))
    with pytest.raises(OSError, match="ids up to"):
        PhraseEncoder(folder)


def test_a_loader_that_runs_out_of_memory_without_saying_so_says_so(tiny_model_dir, monkeypatch):
    from sentence_transformers import SentenceTransformer

    def null(*args, **kwargs):
        raise SystemError("<built-in method from_file> returned NULL without setting an exception")

    monkeypatch.setattr(SentenceTransformer, "_load_with_module_classes", null)
    with pytest.raises(OSError, match="out of memory"):
        PhraseEncoder(tiny_model_dir)
