"""The one output guard, user folders never cleaned, integrity checks and resource bounds
(issue 38: the commands that destroyed user data, and the silent wrong results)."""

from __future__ import annotations

import json
import logging
import os
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from pearl import EntityIndex, fuzzy_join
from pearl._hashing import file_sha256
from pearl._io import check_io, read_zip_member
from pearl.cli import IO, NOT_PATHS, build_parser, leaf_commands, main


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


# -- the output guard --------------------------------------------------------------------


def test_every_cli_command_declares_what_it_reads_and_writes():
    """A new command (or a new path option) cannot skip the guard: each leaf command is
    in IO, and each of its arguments is a declared read, a declared write or no path."""
    for name, parser in leaf_commands(build_parser()):
        assert name in IO, f"pearl {name} is not in pearl.cli.IO"
        reads, writes = IO[name]
        dests = {a.dest for a in parser._actions}
        for dest in dests:
            assert dest in reads or dest in writes or dest in NOT_PATHS, (
                f"pearl {name}: argument {dest!r} is neither a declared read/write nor a "
                "known non-path option"
            )
        assert set(reads) | set(writes) <= dests, f"pearl {name}: IO names a missing option"


def test_guard_refuses_every_kind_of_overlap(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.txt").write_text("x")
    (tmp_path / "link").symlink_to(folder / "a.txt")
    for output in (folder / "a.txt", tmp_path / "link", folder / "new.csv", tmp_path):
        with pytest.raises(ValueError, match="--output"):
            check_io({"--output": output}, [folder])
    with pytest.raises(ValueError, match="holds the input"):
        check_io({"--output": tmp_path}, [folder / "a.txt"])
    check_io({"--output": tmp_path / "elsewhere"}, [folder, None, "-"])  # no overlap


def test_finetune_never_overwrites_its_starting_model(tiny_model_dir, tmp_path, capsys):
    model = tmp_path / "start"
    shutil.copytree(tiny_model_dir, model)
    before = _snapshot(model)
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("text,group\nNew York,1\nNYC,1\nParis,2\nParis FR,2\n")
    assert main(["finetune", str(pairs), "-m", str(model), "-o", str(model), "-q"]) == 2
    assert "would overwrite the input" in capsys.readouterr().err
    from pearl.training.finetune import finetune, read_labelled

    with pytest.raises(ValueError, match="overwrite"):
        finetune(read_labelled(pairs), model, model=str(model))
    assert _snapshot(model) == before


def test_aliases_never_writes_inside_its_text_folder(tmp_path, capsys):
    text = tmp_path / "text"
    text.mkdir()
    (text / "a.txt").write_text("The United Nations (UN) met.\n")
    corpus = tmp_path / "corpus.tsv"
    corpus.write_text("phrase\tlabel\tfrequency\tsource\n")
    before = _snapshot(text)
    assert main(["aliases", str(corpus), "--text", str(text), "-o", str(text / "a.txt"), "-q"]) == 2
    assert "would overwrite the input" in capsys.readouterr().err
    assert _snapshot(text) == before


def test_a_teacher_folder_is_never_cleaned(tmp_path, hash_encoder, capsys):
    from pearl.training.teacher import MANIFEST, TeacherEmbeddings, encode_teacher

    corpus = tmp_path / "corpus.tsv"
    corpus.write_text(
        "phrase\tlabel\tfrequency\tsource\nNew York\tNP-GPE\t1\ttest\nParis\tNP-GPE\t1\ttest\n"
    )
    folder = encode_teacher(
        corpus, tmp_path / "teacher", model=hash_encoder, show_progress_bar=False
    )
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["dim"] = 7  # one field off: the shards no longer check out
    (folder / MANIFEST).write_text(json.dumps(manifest))
    before = _snapshot(folder)
    with pytest.raises(OSError, match="leaves it as it is"):
        TeacherEmbeddings(folder)
    assert _snapshot(folder) == before


def test_a_train_run_refuses_an_output_holding_its_inputs(training_files, tiny_model_dir):
    from pearl.training import TrainConfig, Trainer

    data = Path(training_files["corpus"]).parent
    cfg = TrainConfig(
        backbone=str(tiny_model_dir),
        output=str(data),
        batch_size=4,
        max_steps=1,
        char_pretrain_steps=0,
        **training_files,
    )
    before = _snapshot(data)
    with pytest.raises(ValueError, match="holds the input"):
        Trainer(cfg, show_progress_bar=False).train()
    assert _snapshot(data) == before


# -- integrity ------------------------------------------------------------------------------


def test_a_same_size_file_with_a_forged_mtime_is_hashed_again(tmp_path):
    f = tmp_path / "weights.bin"
    f.write_bytes(b"a" * 64)
    st = f.stat()
    first = file_sha256(f)
    f.write_bytes(b"b" * 64)  # same size, the old modification time put back
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert file_sha256(f) != first


def test_a_flipped_bit_in_an_index_is_caught(tmp_path, hash_encoder):
    folder = (
        EntityIndex(model=hash_encoder).build(["Paris", "London", "Rome"]).save(tmp_path / "idx")
    )
    data = bytearray((folder / "index.faiss").read_bytes())
    data[-5] ^= 0x40
    (folder / "index.faiss").write_bytes(bytes(data))
    with pytest.raises(OSError, match="checksum"):
        EntityIndex.load(folder, model=hash_encoder)
    assert main(["index", "search", str(folder), "Pariss", "-m", "string-distance"]) == 2


def test_vectors_that_are_not_unit_vectors_are_refused(tmp_path, hash_encoder):
    import faiss

    folder = EntityIndex(model=hash_encoder).build(["Paris", "London"]).save(tmp_path / "i")
    idx = faiss.IndexFlatIP(256)
    idx.add(np.full((2, 256), 1e30, np.float32))
    faiss.write_index(idx, str(folder / "index.faiss"))
    meta = json.loads((folder / "meta.json").read_text())
    meta["sha256"]["index.faiss"] = file_sha256(folder / "index.faiss", persist=False)
    (folder / "meta.json").write_text(json.dumps(meta))  # a consistent forgery
    with pytest.raises(OSError, match="unit vectors"):
        EntityIndex.load(folder, model=hash_encoder)


def test_an_old_index_without_checksums_names_the_fix(tmp_path, hash_encoder):
    folder = EntityIndex(model=hash_encoder).build(["Paris"]).save(tmp_path / "idx")
    meta = json.loads((folder / "meta.json").read_text())
    meta["format"] = 1
    del meta["sha256"]
    (folder / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(OSError, match="rebuild the index"):
        EntityIndex.load(folder, model=hash_encoder)


# -- bounds ---------------------------------------------------------------------------------


def test_a_huge_k_is_capped_at_the_index_size(hash_encoder):
    idx = EntityIndex(model=hash_encoder).build(["Paris", "London", "Rome"])
    res = idx.search(["Pariss"], top_k=1_000_000_000)
    assert res.ids.shape == (1, 3) and res.names[0][0] == "Paris"
    comb = idx.search(["Pariss"], top_k=1_000_000_000, matcher="combined")
    assert comb.ids.shape == (1, 3)


@pytest.mark.parametrize("matcher", ["cosine", "combined"])
def test_a_huge_top_k_is_capped_at_the_right_table(hash_encoder, matcher):
    import pandas as pd

    left = pd.DataFrame({"a": ["Pariss", "Londn", None]})
    right = pd.DataFrame({"b": ["Paris", "London"]})
    out = fuzzy_join(
        left, right, "a", "b", top_k=1_000_000_000, model=hash_encoder, matcher=matcher,
        threshold=0,  # every candidate kept (the default drops unlikely ones)
    )  # fmt: skip
    assert len(out) == 5 and out["match_rank"].max() == 2


def test_an_oversized_archive_member_is_refused(tmp_path):
    path = tmp_path / "a.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("big.txt", b"0" * (1 << 20))
    with zipfile.ZipFile(path) as z:
        assert len(read_zip_member(z, "big.txt")) == 1 << 20
        with pytest.raises(OSError, match="big.txt"):
            read_zip_member(z, "big.txt", limit=1000)


def test_crafted_checkpoint_metadata_is_a_clear_error(training_files, tiny_model_dir, tmp_path):
    from safetensors import safe_open
    from safetensors.torch import save_file

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
    with safe_open(str(state), framework="pt") as f:
        meta = json.loads(f.metadata()["pearl_state"])
        tensors = {k: f.get_tensor(k) for k in f.keys()}
    for field, value in (
        ("step", "many"),
        ("param_groups", [{"params": ["x"]}]),
        ("history", [["not", "a", "dict"]]),
        ("seconds", -1),
    ):
        bad = {**meta, field: value}
        save_file(tensors, str(state), metadata={"pearl_state": json.dumps(bad)})
        with pytest.raises(OSError, match=f"invalid checkpoint field '{field}'"):
            Trainer(cfg, show_progress_bar=False).train(resume=True)


def test_blank_and_na_group_ids_are_dropped_with_a_warning(caplog):
    import pandas as pd

    from pearl.training.finetune import LabelledGroups

    frame = pd.DataFrame(
        {"text": ["a", "b", "c", "d", "e"], "group": ["1", "1", "", "NA", " null "]}
    )
    with caplog.at_level(logging.WARNING):
        data = LabelledGroups.from_frame(frame)
    assert data.texts == ["a", "b"] and "3 rows without a group id" in caplog.text
    with pytest.raises(ValueError, match="missing"):
        LabelledGroups.from_frame(frame.iloc[2:])


def test_wordnet_reads_the_folder_it_is_given(tmp_path):
    from pearl.augment.wordnet import _content_key

    a, b = tmp_path / "a", tmp_path / "b"
    for folder, text in ((a, "one"), (b, "two")):
        folder.mkdir()
        (folder / "lexnames").write_text(text)
    assert _content_key(a) != _content_key(b)


def test_a_full_disk_names_the_path(tmp_path, monkeypatch):
    import errno

    from pearl._io import atomic_path

    with pytest.raises(OSError, match="while writing .*out.csv"):
        with atomic_path(tmp_path / "out.csv"):
            raise OSError(errno.ENOSPC, "No space left on device")


# -- still open from the earlier review -----------------------------------------------------


def test_join_refuses_duplicate_column_names(hash_encoder):
    import pandas as pd

    left = pd.DataFrame([["a", "b"]], columns=["name", "name"])
    right = pd.DataFrame({"title": ["a"]})
    with pytest.raises(ValueError, match="several columns named"):
        fuzzy_join(left, right, "name", "title", model=hash_encoder)
    with pytest.raises(ValueError, match="several columns named"):
        fuzzy_join(right, left, "title", "name", model=hash_encoder)


def test_join_refuses_a_dict_as_right(hash_encoder):
    import pandas as pd

    with pytest.raises(TypeError, match="got dict"):
        fuzzy_join(pd.DataFrame({"a": ["x"]}), {"b": ["x"]}, "a", "b", model=hash_encoder)


def test_a_header_only_corpus_is_refused(training_files, tiny_model_dir, tmp_path):
    from pearl.training import TrainConfig, Trainer

    Path(training_files["corpus"]).write_text("phrase\tlabel\tfrequency\tsource\n")
    cfg = TrainConfig(
        backbone=str(tiny_model_dir),
        output=str(tmp_path / "m"),
        batch_size=4,
        max_steps=1,
        char_pretrain_steps=0,
        **training_files,
    )
    with pytest.raises(ValueError, match="no phrases"):
        Trainer(cfg, show_progress_bar=False).train()


def test_an_empty_task_list_is_an_error(tmp_path, capsys):
    assert main(["eval", "-m", "string-distance", "--tasks", ",", "-o", str(tmp_path / "r")]) == 2
    assert "no task selected" in capsys.readouterr().err
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").iterdir())
