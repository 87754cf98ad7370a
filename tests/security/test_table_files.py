"""Table files in and out of the CLI: what pearl does not touch comes back exactly, what it
cannot read is a clear error naming the file, and pipes and compressed names work."""

from __future__ import annotations

import os
import threading

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pearl.cli import main

BIG = 9007199254740993  # 2**53 + 1: not a float64


def _dedup(table, out, model, *extra) -> int:
    return main(["dedup", str(table), "--column", "name", "-m", str(model), "-o", str(out), *extra])


def test_an_int64_column_with_nulls_comes_back_exact(tmp_path, tiny_model_dir):
    src = tmp_path / "in.parquet"
    ids = pa.array([BIG, None, 3], pa.int64())
    flags = pa.array([True, None, False])
    pq.write_table(pa.table({"id": ids, "flag": flags, "name": ["Acme", "ACME", "Globex"]}), src)
    assert _dedup(src, tmp_path / "out.parquet", tiny_model_dir) == 0
    out = pq.read_table(tmp_path / "out.parquet")
    assert out.schema.field("id").type == pa.int64()
    assert out.column("id").to_pylist() == [BIG, None, 3]
    assert out.column("flag").to_pylist() == [True, None, False]

    right = tmp_path / "right.parquet"
    pq.write_table(
        pa.table({"rid": pa.array([None, BIG], pa.int64()), "title": ["x", "Acme"]}), right
    )
    argv = ["join", str(src), str(right), "--left-on", "name", "--right-on", "title"]
    assert main([*argv, "-m", str(tiny_model_dir), "-o", str(tmp_path / "j.parquet")]) == 0
    joined = pq.read_table(tmp_path / "j.parquet")
    assert joined.column("id").to_pylist() == [BIG, None, 3]
    assert BIG in joined.column("rid").to_pylist()


def test_invalid_utf8_in_a_parquet_string_names_the_file(tmp_path, tiny_model_dir, capsys):
    offsets = pa.py_buffer(bytes([0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]))
    bad = pa.Array.from_buffers(pa.string(), 2, [None, offsets, pa.py_buffer(b"a\xff")])
    src = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"name": bad}), src)
    assert _dedup(src, tmp_path / "out.csv", tiny_model_dir) == 2
    err = capsys.readouterr().err
    assert "pearl: error: cannot read the Parquet table" in err and "bad.parquet" in err


def test_list_valued_keys_are_refused_not_stringified(tmp_path, tiny_model_dir, capsys):
    src = tmp_path / "lists.parquet"
    pq.write_table(pa.table({"name": [["Acme", "Inc"], ["Globex"]]}), src)
    assert _dedup(src, tmp_path / "out.csv", tiny_model_dir) == 2
    assert "expected str" in capsys.readouterr().err
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("name", ["out.csv.gz", "out.tsv.bz2"])
def test_a_compressed_output_name_is_compressed_and_read_back(tmp_path, tiny_model_dir, name):
    src = tmp_path / "in.csv"
    src.write_text("name\nAcme\nACME\n")
    assert _dedup(src, tmp_path / name, tiny_model_dir) == 0
    compression = {"gz": "gzip", "bz2": "bz2"}[name.rsplit(".", 1)[1]]
    sep = "\t" if ".tsv" in name else ","
    back = pd.read_csv(tmp_path / name, compression=compression, sep=sep)
    assert list(back["name"]) == ["Acme", "ACME"]
    # and pearl reads its own output
    argv = ["join", str(tmp_path / name), str(src), "--left-on", "name", "--right-on", "name"]
    assert main([*argv, "-m", str(tiny_model_dir), "-o", str(tmp_path / "again.csv")]) == 0
    assert len(pd.read_csv(tmp_path / "again.csv")) == 2


def test_a_pipe_is_read_as_a_table(tmp_path, tiny_model_dir):
    # /dev/stdin and a shell's <(...) are pipes: they used to be "not found"
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text("name\nAcme\nACME\n"))
    writer.start()
    assert _dedup(fifo, tmp_path / "out.csv", tiny_model_dir) == 0
    writer.join(timeout=30)
    assert pd.read_csv(tmp_path / "out.csv")["name"].tolist() == ["Acme", "ACME"]


def test_a_folder_is_not_a_table(tmp_path, tiny_model_dir, capsys):
    (tmp_path / "in").mkdir()
    assert _dedup(tmp_path / "in", tmp_path / "out.csv", tiny_model_dir) == 2
    assert "pearl: error: table" in capsys.readouterr().err


def test_na_like_cells_pass_through_byte_for_byte(tmp_path, tiny_model_dir):
    # pandas' default missing-value strings: "NA" is Namibia's code, not a missing cell
    src = tmp_path / "in.csv"
    src.write_text("name,country\nAcme,NA\nGlobex,None\nInitech,null\nUmbrella,n/a\nHooli,\n")
    out = tmp_path / "out.csv"
    assert _dedup(src, out, tiny_model_dir) == 0
    rows = out.read_text().splitlines()
    assert [r.split(",")[1] for r in rows[1:]] == ["NA", "None", "null", "n/a", ""]


def test_an_na_key_is_a_value_not_a_missing_cell(tmp_path, tiny_model_dir):
    left, right = tmp_path / "l.csv", tmp_path / "r.csv"
    left.write_text("code\nNA\nFR\n")
    right.write_text("iso,country\nFR,France\nNA,Namibia\n")
    out = tmp_path / "out.csv"
    argv = ["join", str(left), str(right), "--left-on", "code", "--right-on", "iso"]
    assert main([*argv, "-m", str(tiny_model_dir), "-o", str(out)]) == 0
    joined = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert joined["country"].tolist() == ["Namibia", "France"]


@pytest.mark.parametrize(
    "change",
    [
        lambda f: f.sort_values("name"),
        lambda f: f.sample(frac=1.0, random_state=0),
        lambda f: f[f["name"] != "Initech"],
        lambda f: f.set_axis(["a", "b", "c", "d"]),
    ],
    ids=["sorted", "sampled", "filtered", "string index"],
)
def test_a_parquet_file_written_with_its_index_is_read(tmp_path, tiny_model_dir, change):
    frame = pd.DataFrame({"name": ["Acme", "ACME", "Initech", "Globex"], "n": [1, 2, 3, 4]})
    src = tmp_path / "in.parquet"
    change(frame).to_parquet(src)  # pandas stores the index beside the columns
    assert _dedup(src, tmp_path / "out.csv", tiny_model_dir) == 0
    out = pd.read_csv(tmp_path / "out.csv")
    assert list(out.columns[:2]) == ["name", "n"]  # an unnamed index: row labels, dropped
    assert sorted(out["n"]) == sorted(change(frame)["n"])


def test_a_named_parquet_index_is_a_column(tmp_path, tiny_model_dir, capsys):
    frame = pd.DataFrame({"id": [7, 8], "name": ["Acme", "Globex"]}).set_index("id")
    src = tmp_path / "in.parquet"
    frame.to_parquet(src)
    assert _dedup(src, tmp_path / "out.csv", tiny_model_dir) == 0
    assert pd.read_csv(tmp_path / "out.csv")["id"].tolist() == [7, 8]
    clash = frame.assign(id=[1, 2])  # an index level and a column of one name
    clash.to_parquet(src)
    assert _dedup(src, tmp_path / "out2.csv", tiny_model_dir) == 2
    assert "index level and a column both named 'id'" in capsys.readouterr().err


def test_a_csv_header_naming_a_column_twice_is_refused(tmp_path, tiny_model_dir, capsys):
    src = tmp_path / "dup.csv"
    src.write_text("name,city,name\nAcme,Paris,ACME\n")
    assert _dedup(src, tmp_path / "out.csv", tiny_model_dir) == 2
    assert "names the column(s) ['name'] more than once" in capsys.readouterr().err
    assert not (tmp_path / "out.csv").exists()
    (tmp_path / "ok.csv").write_text("name,name.1\nAcme,x\n")  # a real "name.1" is fine
    assert _dedup(tmp_path / "ok.csv", tmp_path / "out.csv", tiny_model_dir) == 0


def test_a_utf16_file_without_its_mark_names_the_file(tmp_path, tiny_model_dir, capsys):
    src = tmp_path / "u16.csv"
    src.write_bytes("name\nAcme\n".encode("utf-16-le"))
    assert _dedup(src, tmp_path / "out.csv", tiny_model_dir, "--encoding", "utf-16") == 2
    err = capsys.readouterr().err
    assert "pearl: error:" in err and "u16.csv is not utf-16 text" in err


def test_a_report_of_a_header_only_table_is_written(tmp_path, tiny_model_dir):
    (tmp_path / "h.csv").write_text("name\n")
    (tmp_path / "r.csv").write_text("name\nAcme\n")
    argv = ["join", str(tmp_path / "h.csv"), str(tmp_path / "r.csv"), "--on", "name"]
    argv += ["-m", str(tiny_model_dir), "-o", str(tmp_path / "o.csv")]
    assert main([*argv, "--report", str(tmp_path / "r.html")]) == 0
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")


def test_an_index_is_built_from_a_pipe(tmp_path, tiny_model_dir):
    read, write = os.pipe()
    os.write(write, b"Acme\nGlobex\n")
    os.close(write)
    try:
        argv = ["index", "build", f"/dev/fd/{read}", "-m", str(tiny_model_dir)]
        assert main([*argv, "-o", str(tmp_path / "idx")]) == 0
    finally:
        os.close(read)
    from pearl.tables import EntityIndex

    assert EntityIndex.load(tmp_path / "idx", model=str(tiny_model_dir)).names_ == [
        "Acme",
        "Globex",
    ]


def test_formula_cells_are_passed_on_as_they_are(tmp_path, tiny_model_dir):
    # documented (docs/security.md): pearl changes no cell it passes on, formulas included
    src = tmp_path / "in.csv"
    cells = ['"=HYPERLINK(""http://x"",""y"")"', "+1+1", "-2", "@SUM(A1)"]
    src.write_text("name,note\n" + "".join(f"n{i},{c}\n" for i, c in enumerate(cells)))
    out = tmp_path / "out.csv"
    assert _dedup(src, out, tiny_model_dir) == 0
    notes = [line.split(",", 1)[1].rsplit(",", 1)[0] for line in out.read_text().splitlines()[1:]]
    assert notes == cells
