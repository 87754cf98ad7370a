"""No command overwrites or truncates user data: outputs never replace inputs, writes are
atomic, output columns never replace input columns, folders pearl did not write are left
alone."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pandas as pd
import pytest

from pearl import EntityIndex, fuzzy_join
from pearl._io import atomic_dir, atomic_path, check_output
from pearl.cli import main


@pytest.fixture
def tables(tmp_path):
    left, right = tmp_path / "left.csv", tmp_path / "right.csv"
    left.write_text("id,name\n1,New York Times\n2,Boston Globe\n")
    right.write_text("id,title\n10,NY Times\n11,The Boston Globe\n")
    return left, right


@pytest.mark.parametrize("which", [0, 1])
def test_join_refuses_to_write_over_an_input(tables, hash_encoder, which, capsys):
    before = tables[which].read_bytes()
    code = main(
        [
            "join",
            str(tables[0]),
            str(tables[1]),
            "--left-on",
            "name",
            "--right-on",
            "title",
            "-m",
            "string-distance",
            "-o",
            str(tables[which]),
        ]
    )
    assert code == 2 and "would overwrite the input" in capsys.readouterr().err
    assert tables[which].read_bytes() == before


def test_dedup_refuses_to_write_over_its_input(tables, capsys):
    before = tables[0].read_bytes()
    assert (
        main(
            [
                "dedup",
                str(tables[0]),
                "--column",
                "name",
                "-m",
                "string-distance",
                "-o",
                str(tables[0]),
            ]
        )
        == 2
    )
    assert tables[0].read_bytes() == before


def test_same_file_through_another_path_is_refused(tmp_path):
    (tmp_path / "d").mkdir()
    f = tmp_path / "d" / "x.csv"
    f.write_text("a\n")
    with pytest.raises(ValueError, match="would overwrite the input"):
        check_output(tmp_path / "d" / ".." / "d" / "x.csv", [f])
    with pytest.raises(ValueError, match="would overwrite the input"):
        check_output(tmp_path / "d" / "new.csv", [tmp_path / "d"])  # inside an input folder
    check_output(tmp_path / "y.csv", [f, None, "-"])


def test_interrupted_write_keeps_the_previous_file(tables, tiny_model_dir, monkeypatch):
    out = tables[0].parent / "joined.csv"
    out.write_text("previous content\n")

    def half_then_interrupt(self, path, *args, **kwargs):
        open(path, "w").write("id,na")
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        main(
            [
                "join",
                str(tables[0]),
                str(tables[1]),
                "--left-on",
                "name",
                "--right-on",
                "title",
                "-m",
                str(tiny_model_dir),
                "-o",
                str(out),
            ]
        )
    assert out.read_text() == "previous content\n"
    assert sorted(p.name for p in out.parent.iterdir()) == ["joined.csv", "left.csv", "right.csv"]


def test_atomic_path_never_touches_an_existing_tmp_file(tmp_path):
    target = tmp_path / "out.txt"
    user_file = tmp_path / "out.txt.tmp"  # the old fixed temporary name
    user_file.write_text("user data")
    with atomic_path(target) as tmp:
        assert tmp != user_file and not tmp.exists()
        tmp.write_text("new")
    assert target.read_text() == "new" and user_file.read_text() == "user data"


def test_an_output_link_is_kept_and_its_target_written(tables, tiny_model_dir):
    target = tables[0].parent / "real.csv"
    target.write_text("old\n")
    link = tables[0].parent / "link.csv"
    link.symlink_to(target)
    argv = ["dedup", str(tables[0]), "--column", "name", "-m", str(tiny_model_dir)]
    argv += ["-o", str(link)]
    assert main(argv) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "New York Times" in target.read_text()


def test_a_fifo_output_is_written_into_not_replaced(tables, tiny_model_dir):
    fifo = tables[0].parent / "pipe.csv"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    argv = ["dedup", str(tables[0]), "--column", "name", "-m", str(tiny_model_dir)]
    argv += ["-o", str(fifo)]
    assert main(argv) == 0
    reader.join(timeout=30)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert b"New York Times" in got[0]


def test_a_character_device_output_is_written_into(tmp_path):
    # /dev/null itself: written through, never replaced by a regular file (as root the
    # old code renamed a file over it)
    null = Path(os.devnull)
    with atomic_path(null) as tmp:
        tmp.write_text("discarded")
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("command", ["mine", "augment", "index build"])
def test_dash_output_is_refused_where_there_is_no_standard_output_mode(
    tmp_path, monkeypatch, capsys, command
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_text("phrase\tlabel\tfrequency\tsource\nNew York\tNP-GPE\t1\tx\n")
    before = (tmp_path / "-").read_bytes()
    assert main([*command.split(), "./-", "-o", "-"]) == 2
    assert "cannot write to standard output" in capsys.readouterr().err
    assert (tmp_path / "-").read_bytes() == before
    with pytest.raises(ValueError, match="standard output"):
        with atomic_path("-"):
            pass


def test_atomic_dir_refuses_a_folder_it_did_not_write_and_restores_on_failure(tmp_path):
    user = tmp_path / "photos"
    user.mkdir()
    (user / "cat.jpg").write_text("meow")
    with pytest.raises(FileExistsError, match="does not overwrite"):
        with atomic_dir(user, replaceable="meta.json"):
            raise AssertionError("the block must not run")
    assert (user / "cat.jpg").read_text() == "meow"
    index = tmp_path / "index"
    with atomic_dir(index, replaceable="meta.json") as tmp:
        (tmp / "meta.json").write_text("v1")
    with pytest.raises(RuntimeError):
        with atomic_dir(index, replaceable="meta.json") as tmp:
            (tmp / "meta.json").write_text("v2")
            raise RuntimeError("interrupted")
    assert (index / "meta.json").read_text() == "v1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index", "photos"]


def test_index_save_refuses_a_non_index_folder(tmp_path, hash_encoder):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")
    idx = EntityIndex(model=hash_encoder).build(["Paris"])
    with pytest.raises(FileExistsError):
        idx.save(folder)
    assert (folder / "notes.txt").read_text() == "keep me"
    idx.save(tmp_path / "idx")
    idx.build(["London", "Rome"]).save(tmp_path / "idx")  # an index folder is replaced
    assert len(EntityIndex.load(tmp_path / "idx", model=hash_encoder)) == 2


def test_training_refuses_a_non_model_output_before_any_work(
    training_files, tiny_model_dir, tmp_path
):
    from pearl.training import TrainConfig, Trainer

    out = tmp_path / "thesis"
    out.mkdir()
    (out / "chapter1.tex").write_text("...")
    cfg = TrainConfig(
        backbone=str(tiny_model_dir), output=str(out), batch_size=4, max_steps=1, **training_files
    )
    with pytest.raises(FileExistsError):
        Trainer(cfg, show_progress_bar=False).train()
    assert not cfg.checkpoints.exists()
    assert [p.name for p in out.iterdir()] == ["chapter1.tex"]


@pytest.mark.parametrize(
    "left_cols, right_cols, clash",
    [
        (["name", "title_right", "title"], ["title"], "title_right"),
        (["name"], ["title", "name_right", "name"], "name_right"),
    ],
)
def test_output_columns_never_overwrite_input_columns(hash_encoder, left_cols, right_cols, clash):
    left = pd.DataFrame({c: ["a", "b"] for c in left_cols})
    right = pd.DataFrame({c: ["a", "c"] for c in right_cols})
    on = "title" if "title" in right_cols else right_cols[0]
    with pytest.raises(ValueError, match=clash):
        fuzzy_join(left, right, left_on="name", right_on=on, model=hash_encoder)


def test_match_columns_are_named_apart_so_joins_chain(hash_encoder):
    left = pd.DataFrame({"name": ["a", "b"], "match_score": [0.5, 0.7], "match_rank": [1, 1]})
    right = pd.DataFrame({"title": ["a", "c"]})
    out = fuzzy_join(left, right, left_on="name", right_on="title", top_k=2, model=hash_encoder)
    assert out["match_score"].tolist()[:1] == [0.5]  # the input's columns are untouched
    assert {"match_score_2", "match_rank_2"} <= set(out.columns)
    # a second join of the joined table, with the defaults
    again = fuzzy_join(
        out, pd.DataFrame({"label": ["a"]}), left_on="name", right_on="label", model=hash_encoder
    )
    assert "match_score_3" in again.columns


def test_dedup_refuses_an_existing_output_column(tmp_path, capsys):
    table = tmp_path / "t.csv"
    table.write_text("name,name_deduplicated\nParis,x\n")
    assert (
        main(
            [
                "dedup",
                str(table),
                "--column",
                "name",
                "-m",
                "string-distance",
                "-o",
                str(tmp_path / "o.csv"),
            ]
        )
        == 2
    )
    assert "already has a column 'name_deduplicated'" in capsys.readouterr().err
    assert not (tmp_path / "o.csv").exists()


def test_bytes_that_do_not_decode_never_become_replacement_characters(
    tmp_path, tiny_model_dir, capsys
):
    # a CSV saved by Excel on Windows (cp1252): "José" and "Josè" were both read as
    # "Jos\ufffd" (one value, deduplicated together) and written back so
    table = tmp_path / "t.csv"
    table.write_bytes("name\nJosé\nJosè\nJose\n".encode("cp1252"))
    out = tmp_path / "o.csv"
    argv = ["dedup", str(table), "--column", "name", "-m", str(tiny_model_dir), "-o", str(out)]
    assert main(argv) == 2
    assert "t.csv is not utf-8 text" in capsys.readouterr().err and not out.exists()
    assert main([*argv, "--threshold", "1", "--encoding", "cp1252"]) == 0
    assert out.read_text(encoding="utf-8").splitlines()[1:] == [
        "José,José",
        "Josè,Josè",
        "Jose,Jose",
    ]
    names = tmp_path / "names.txt"
    names.write_bytes("Zürich\n".encode("latin-1"))
    argv = ["index", "build", str(names), "-m", str(tiny_model_dir), "-o", str(tmp_path / "ix")]
    assert main(argv) == 2
    assert "names.txt is not utf-8 text" in capsys.readouterr().err
    argv = ["similarity", "Zurich", "-i", str(names), "-m", "string-distance"]
    assert main(argv) == 2
    assert "names.txt is not utf-8 text" in capsys.readouterr().err
    assert main([*argv, "--encoding", "latin-1"]) == 0
    assert "Zürich" in capsys.readouterr().out


def test_eval_refuses_to_write_into_the_benchmark_data(mini_benchmark, capsys):
    data = mini_benchmark / "benchmark"
    before = sorted(p.name for p in data.iterdir())
    assert (
        main(
            [
                "eval",
                "-m",
                "string-distance",
                "-t",
                "turney",
                "--data",
                str(data),
                "-o",
                str(data / "results"),
            ]
        )
        == 2
    )
    assert "would overwrite the input" in capsys.readouterr().err
    assert sorted(p.name for p in data.iterdir()) == before


def test_a_saved_model_can_be_read_by_a_colleague(tmp_path, tiny_model_dir):
    # safetensors writes 0600; every file of a model folder gets the umask's usual mode
    import os
    import stat

    from pearl import PhraseEncoder

    old = os.umask(0o022)
    try:
        PhraseEncoder(tiny_model_dir).save(tmp_path / "shared")
        PhraseEncoder("pearl-static").save(tmp_path / "static")
    finally:
        os.umask(old)
    modes = {
        f.name: stat.S_IMODE(f.stat().st_mode)
        for folder in ("shared", "static")
        for f in (tmp_path / folder).rglob("*")
        if f.is_file()
    }
    assert any(name.endswith(".safetensors") for name in modes)
    assert set(modes.values()) == {0o644}, modes


def test_a_replaced_file_keeps_its_mode(tmp_path):
    import stat

    from pearl._io import atomic_path

    target = tmp_path / "out.csv"
    target.write_text("old")
    target.chmod(0o640)
    with atomic_path(target) as tmp:
        tmp.write_text("new")
        tmp.chmod(0o600)
    assert target.read_text() == "new" and stat.S_IMODE(target.stat().st_mode) == 0o640
