import json

import numpy as np
import pytest

from pearl.cli import build_parser, main


@pytest.mark.parametrize("cmd", [[], ["encode"], ["similarity"], ["eval"]])
def test_help_is_complete(cmd, capsys):
    with pytest.raises(SystemExit) as exc:
        main(cmd + ["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "usage: pearl" in out
    if cmd == ["eval"]:
        for opt in ("--tasks", "--data", "--quick", "--output", "--retrieval-index",
                    "--short-text", "--seed", "--no-cache"):
            assert opt in out


def test_every_option_has_help():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():
        for action in p._actions:
            assert action.help, (name, action.dest)


def test_encode_to_npy_and_stdout(tiny_model_dir, tmp_path, capsys):
    out = tmp_path / "e.npy"
    assert main(["encode", "-m", str(tiny_model_dir), "-q", "-o", str(out), "a", "b c"]) == 0
    assert np.load(out).shape == (2, 32)
    inp = tmp_path / "in.txt"
    inp.write_text("café\n🙂\n", encoding="utf-8")
    assert main(["encode", "-m", str(tiny_model_dir), "-q", "-i", str(inp)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [json.loads(x)["text"] for x in lines] == ["café", "🙂"]
    assert len(json.loads(lines[0])["embedding"]) == 32


def test_encode_missing_file_and_no_input(tiny_model_dir, tmp_path):
    with pytest.raises(SystemExit, match="not found"):
        main(["encode", "-m", str(tiny_model_dir), "-i", str(tmp_path / "nope.txt")])
    with pytest.raises(SystemExit, match="no input"):
        main(["encode", "-m", str(tiny_model_dir)])


def test_bad_model_is_an_error_exit(tmp_path, capsys):
    (tmp_path / "junk.bin").write_bytes(b"x")
    assert main(["encode", "-m", str(tmp_path), "a"]) == 2
    assert "error" in capsys.readouterr().err


def test_similarity_ranks_candidates(capsys):
    assert main(["similarity", "-m", "string-distance", "new york times",
                 "boston globe", "new york time"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split()[1:4] == ["new", "york", "time"]


def test_eval_writes_json_and_table(mini_benchmark, tmp_path, capsys):
    out = tmp_path / "res"
    rc = main(["eval", "-m", "string-distance", "--tasks", "turney,autofj", "-q",
               "--data", str(mini_benchmark / "benchmark"), "-o", str(out)])
    assert rc == 0
    rec = json.loads((out / "String_Distance.json").read_text())
    assert rec["tasks"]["turney"]["status"] == "ok"
    md = (out / "results.md").read_text()
    assert "| String Distance | - | measured |" in md
    assert "String Distance | - | measured" in capsys.readouterr().out
