import json
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED_DATA

from pearl.cli import build_parser, main
from pearl.data.corpus import read_corpus


@pytest.mark.parametrize(
    "cmd",
    [
        [],
        ["encode"],
        ["similarity"],
        ["eval"],
        ["index"],
        ["index", "build"],
        ["index", "search"],
        ["join"],
        ["dedup"],
    ],
)
def test_help_is_complete(cmd, capsys):
    with pytest.raises(SystemExit) as exc:
        main(cmd + ["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "usage: pearl" in out
    if cmd == ["eval"]:
        for opt in (
            "--tasks",
            "--data",
            "--quick",
            "--output",
            "--retrieval-index",
            "--short-text",
            "--seed",
            "--no-cache",
        ):
            assert opt in out


def test_every_option_has_help():
    import argparse

    def walk(parser, path):
        for action in parser._actions:
            assert action.help, (path, action.dest)
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, path + [name])

    walk(build_parser(), ["pearl"])


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


def test_encode_missing_file_and_no_input(tiny_model_dir, tmp_path, capsys):
    # exit status 2 and "pearl: error:", like every other error (was status 1, no prefix)
    assert main(["encode", "-m", str(tiny_model_dir), "-i", str(tmp_path / "nope.txt")]) == 2
    assert "pearl: error: input file not found" in capsys.readouterr().err
    assert main(["encode", "-m", str(tiny_model_dir)]) == 2
    assert "pearl: error: no input" in capsys.readouterr().err


def test_bad_model_is_an_error_exit(tmp_path, capsys):
    (tmp_path / "junk.bin").write_bytes(b"x")
    assert main(["encode", "-m", str(tmp_path), "a"]) == 2
    assert "error" in capsys.readouterr().err


def test_similarity_ranks_candidates(capsys):
    assert (
        main(
            [
                "similarity",
                "-m",
                "string-distance",
                "new york times",
                "boston globe",
                "new york time",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out.splitlines()
    assert out[1].split()[1:4] == ["new", "york", "time"]


def test_eval_writes_json_and_table(mini_benchmark, tmp_path, capsys):
    out = tmp_path / "res"
    rc = main(
        [
            "eval",
            "-m",
            "string-distance",
            "--tasks",
            "turney,autofj",
            "-q",
            "--data",
            str(mini_benchmark / "benchmark"),
            "-o",
            str(out),
        ]
    )
    assert rc == 0
    rec = json.loads((out / "String_Distance.json").read_text())
    assert rec["tasks"]["turney"]["status"] == "ok"
    md = (out / "results.md").read_text()
    assert "| String Distance | - | measured |" in md
    assert "String Distance | - | measured" in capsys.readouterr().out


def test_eval_refuses_a_folder_with_other_json_before_running(
    mini_benchmark, tmp_path, monkeypatch, capsys
):
    import pearl.evaluation

    out = tmp_path / "res"
    out.mkdir()
    (out / "dev_proxy.json").write_text('{"rows": []}')
    monkeypatch.setattr(
        pearl.evaluation,
        "evaluate",
        lambda *a, **k: pytest.fail("evaluated before the folder was checked"),
    )
    rc = main(
        [
            "eval",
            "-m",
            "string-distance",
            "--tasks",
            "turney",
            "-q",
            "--data",
            str(mini_benchmark / "benchmark"),
            "-o",
            str(out),
        ]
    )
    assert rc == 2
    assert "dev_proxy.json is not a pearl result record" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["dev_proxy.json"]


def test_eval_probe_runs(mini_benchmark, tiny_model_dir, tmp_path):
    out = tmp_path / "res"
    assert (
        main(
            [
                "eval",
                "-m",
                str(tiny_model_dir),
                "--tasks",
                "ppdb",
                "--probe-runs",
                "2",
                "-q",
                "--no-cache",
                "--data",
                str(mini_benchmark / "benchmark"),
                "-o",
                str(out),
            ]
        )
        == 0
    )
    (path,) = out.glob("*.json")
    res = json.loads(path.read_text())["tasks"]["ppdb"]
    assert len(res["details"]["runs"]) == 2 and res["std"] is not None


def test_eval_writes_outside_the_repository_records(
    mini_benchmark, tiny_model_dir, tmp_path, monkeypatch
):
    monkeypatch.delenv("PEARL_RESULTS", raising=False)
    monkeypatch.chdir(tmp_path)
    assert (
        main(
            [
                "eval",
                "-m",
                str(tiny_model_dir),
                "--tasks",
                "turney",
                "-q",
                "--no-cache",
                "--data",
                str(mini_benchmark / "benchmark"),
            ]
        )
        == 0
    )
    assert list((tmp_path / "pearl-results").glob("*.json"))
    assert not (tmp_path / "results").exists()


def test_index_build_and_search(tiny_model_dir, tmp_path, capsys):
    names = tmp_path / "names.txt"
    names.write_text("The New York Times\nNew York Post\nBoston Globe\n", encoding="utf-8")
    idx = tmp_path / "idx"
    assert main(["index", "build", str(names), "-o", str(idx), "-m", str(tiny_model_dir)]) == 0
    # an index never loads the folder it names: the model is given again
    assert main(["index", "search", str(idx), "Boston Globe", "-k", "2"]) == 2
    assert "-m" in capsys.readouterr().err
    assert (
        main(["index", "search", str(idx), "Boston Globe", "-k", "2", "-m", str(tiny_model_dir)])
        == 0
    )
    out = capsys.readouterr().out
    assert "Boston Globe" in out and "rank" in out
    queries = tmp_path / "q.txt"
    queries.write_text("New York Post\n\nBoston Globe\n", encoding="utf-8")
    res = tmp_path / "res.csv"
    assert (
        main(
            [
                "index",
                "search",
                str(idx),
                "-i",
                str(queries),
                "-k",
                "1",
                "-o",
                str(res),
                "-m",
                str(tiny_model_dir),
            ]
        )
        == 0
    )
    import pandas as pd

    frame = pd.read_csv(res)
    assert frame["name"].tolist() == ["New York Post", "Boston Globe"]
    assert main(["index", "search", str(tmp_path), "x"]) == 2  # not an index folder


def test_dedup_command(tiny_model_dir, tmp_path):
    import pandas as pd

    src = tmp_path / "t.csv"
    src.write_text("city\nParis\nParis\nParis\nLondon\n\n", encoding="utf-8")
    out = tmp_path / "o.csv"
    assert (
        main(
            [
                "dedup",
                str(src),
                "--column",
                "city",
                "-o",
                str(out),
                "-m",
                str(tiny_model_dir),
                "--threshold",
                "0.99",
            ]
        )
        == 0
    )
    frame = pd.read_csv(out)
    assert frame["city_deduplicated"].tolist()[:4] == ["Paris", "Paris", "Paris", "London"]


def test_dedup_command_on_several_columns_clusters_records(
    tmp_path, hash_encoder, monkeypatch, capsys
):
    import pandas as pd
    from pearl_lab.synthetic import people

    left, right, truth = people(300)  # 70% of the left rows: a right row with a typo
    rows = pd.concat([right, left], ignore_index=True).drop(columns="rec_id")
    rows.loc[len(rows)] = [None, None, None, None]  # every key missing
    src = tmp_path / "people.csv"
    rows.to_csv(src, index=False)
    monkeypatch.setattr("pearl.tables.encoding._ENCODERS", {("glove", None): hash_encoder})
    out = tmp_path / "o.csv"
    args = ["dedup", str(src), "--columns", "first", "surname", "city", "dob", "-m", "glove"]
    assert main([*args, "-o", str(out)]) == 0
    got = pd.read_csv(out, dtype={"cluster": "Int64"})
    assert list(got.columns) == [*rows.columns, "cluster"]
    assert pd.isna(got["cluster"].iloc[-1])  # the row with no key is left alone
    # each partner in its right row's cluster (right rows first, then the left rows)
    together = [got["cluster"][r] == got["cluster"][300 + q] for q, r in truth]
    assert np.mean(together) > 0.95
    sizes = got["cluster"].value_counts()
    assert sizes.max() <= 3 and (sizes > 1).sum() <= len(truth) + 5
    # the output never replaces an input column
    got.to_csv(src, index=False)
    capsys.readouterr()
    assert main([*args, "-o", str(tmp_path / "p.csv")]) == 2
    assert "already has a column 'cluster'" in capsys.readouterr().err


def test_build_corpus_typed_min_freq(tmp_path, capsys):
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "a.txt").write_text(
        "Apple bought a startup in London.\n" * 2 + "The New York Times reported it.\n",
        encoding="utf-8",
    )
    phrases = {}
    for name, extra in (("default", []), ("typed", ["--typed-min-freq", "1"])):
        out = tmp_path / name
        assert (
            main(["build-corpus", "--corpus", str(raw), "--no-lists", "-o", str(out), "-q", *extra])
            == 0
        )
        phrases[name] = {r.phrase for r in read_corpus(out / "corpus.tsv")}
    capsys.readouterr()
    assert "The New York Times" in phrases["typed"] - phrases["default"]
    assert phrases["default"] < phrases["typed"]


def test_build_corpus_needs_no_data_root_and_refuses_an_empty_result(tmp_path, capsys, monkeypatch):
    # --corpus DIR --no-lists asked for $PEARL_DATA all the same; an empty folder (a wrong
    # path) wrote an empty corpus that only training rejected, later
    monkeypatch.delenv("PEARL_DATA", raising=False)
    raw, empty = tmp_path / "raw", tmp_path / "empty"
    raw.mkdir()
    empty.mkdir()
    (raw / "a.txt").write_text("Apple bought a startup in London.\n" * 2, encoding="utf-8")
    argv = ["build-corpus", "--no-lists", "-q", "--corpus"]
    assert main([*argv, str(raw), "-o", str(tmp_path / "c")]) == 0
    capsys.readouterr()
    assert main([*argv, str(empty), "-o", str(tmp_path / "e")]) == 2
    assert "no phrase found in" in capsys.readouterr().err
    # character typos need no WordNet, so no data folder either
    aug = tmp_path / "aug.tsv"
    corpus = str(tmp_path / "c" / "corpus.tsv")
    assert main(["augment", corpus, "-o", str(aug), "--levels", "char", "-q"]) == 0
    assert aug.read_text(encoding="utf-8").startswith("phrase\tpositive\taugmenter")


def test_training_data_commands(tiny_model_dir, tmp_path, capsys):
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "a.txt").write_text(
        "Apple bought a startup in London.\n" * 2 + "Apple bought a small startup in Paris.\n" * 2,
        encoding="utf-8",
    )
    out = tmp_path / "corpus"
    assert main(["build-corpus", "--corpus", str(raw), "--no-lists", "-o", str(out), "-q"]) == 0
    assert "Phrase corpus" in capsys.readouterr().out
    corpus = out / "corpus.tsv"
    aug = tmp_path / "aug.tsv"
    assert main(["augment", str(corpus), "-o", str(aug), "--levels", "char", "-q"]) == 0
    rows = aug.read_text(encoding="utf-8").splitlines()
    assert rows[0] == "phrase\tpositive\taugmenter" and len(rows) > 3
    neg = tmp_path / "neg.tsv"
    assert (
        main(
            [
                "mine",
                str(corpus),
                "-o",
                str(neg),
                "-m",
                str(tiny_model_dir),
                "--min-ratio",
                "60",
                "--max-cosine",
                "1.01",
                "-q",
            ]
        )
        == 0
    )
    assert neg.read_text().startswith("phrase\tnegative")
    assert '"candidate_pairs"' in capsys.readouterr().out


@pytest.mark.skipif(
    not (SHARED_DATA / "lexicon" / "wordnet").is_dir(), reason="shared WordNet not present"
)
def test_augment_glove_keep_names(tmp_path):
    corpus = tmp_path / "corpus.tsv"
    corpus.write_text(
        "phrase\tlabel\tfrequency\tsource\nVictoria Falls\tNP-GPE\t1\tt\n"
        "big house\tNP-OTHER\t1\tt\n",
        encoding="utf-8",
    )
    aug = tmp_path / "aug.tsv"
    assert (
        main(
            [
                "augment",
                str(corpus),
                "-o",
                str(aug),
                "--levels",
                "token",
                "--views",
                "8",
                "--weights",
                "wordnet_synonym=0,token_swap=0",
                "--glove-keep-names",
                "--data",
                str(SHARED_DATA),
                "-q",
            ]
        )
        == 0
    )
    rows = [r.split("\t") for r in aug.read_text(encoding="utf-8").splitlines()[1:]]
    assert {p for p, _, _ in rows} == {"Victoria Falls", "big house"}
    assert all(pos == "Victoria Falls" for p, pos, _ in rows if p == "Victoria Falls")
    assert any(pos != "big house" for p, pos, _ in rows if p == "big house")


def test_train_dry_run_resolves_config_and_overrides(tmp_path, capsys):
    cfg = tmp_path / "c.toml"
    cfg.write_text("[optimisation]\nbatch_size = 16\n")
    assert main(["train", "-c", str(cfg), "--set", "hard-negatives=0", "--dry-run"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["batch_size"] == 16 and out["hard_negatives"] == 0
    assert main(["train", "--set", "nonsense=1", "--dry-run"]) == 2
    assert "unknown training option" in capsys.readouterr().err


def test_train_tiny_model(tiny_model_dir, training_files, tmp_path, capsys):
    files = training_files
    args = [
        "train",
        "-q",
        "--backbone",
        str(tiny_model_dir),
        "-o",
        str(tmp_path / "m"),
        "--corpus",
        files["corpus"],
        "--augmented",
        files["augmented"],
        "--negatives",
        files["negatives"],
    ]
    for kv in ("batch_size=4", "max_steps=2", "char_pretrain_steps=2", "char_out_dim=8"):
        args += ["--set", kv]
    assert main(args) == 0
    assert (tmp_path / "m" / "modules.json").is_file()
    assert "trained 2 steps" in capsys.readouterr().err


@pytest.mark.skipif(
    not (SHARED_DATA / "lexicon" / "wordnet").is_dir(), reason="shared WordNet not present"
)
def test_aliases_command(training_files, tmp_path, capsys):
    text = tmp_path / "text"
    text.mkdir()
    (text / "news.txt").write_text(
        "The National Football League ( NFL ) said so.\n", encoding="utf-8"
    )
    exclude = tmp_path / "exclude.txt"
    exclude.write_text("Den Haag\n", encoding="utf-8")
    out = tmp_path / "aliases.csv"
    args = [
        "aliases",
        training_files["corpus"],
        "-o",
        str(out),
        "--text",
        str(text),
        "--wordnet",
        str(SHARED_DATA / "lexicon" / "wordnet"),
        "--replay",
        training_files["augmented"],
        "--n-replay",
        "3",
        "--exclude",
        str(exclude),
        "-q",
    ]
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    frame = __import__("pandas").read_csv(out, keep_default_na=False)
    assert summary["strings"] == len(frame) and 1 <= summary["by_source"]["replay"]["groups"] <= 3
    assert summary["by_source"]["definition"]["groups"] == 1
    assert {"National Football League", "NFL"} <= set(frame["text"])
    assert "The Hague" not in set(frame["text"])  # its group held an excluded string
    before = Path(training_files["augmented"]).read_bytes()
    assert main([*args[:3], training_files["augmented"], *args[4:]]) == 2
    assert "would overwrite the input" in capsys.readouterr().err
    assert Path(training_files["augmented"]).read_bytes() == before


def test_version_and_stdout_outputs(tmp_path, capsys):
    import pandas as pd

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.startswith("pearl ")
    left, right = tmp_path / "l.csv", tmp_path / "r.csv"
    left.write_text("name\nNew York Times\nBoston Globe\n")
    right.write_text("title\nNY Times\nThe Boston Globe\n")
    assert (
        main(
            [
                "join",
                str(left),
                str(right),
                "--left-on",
                "name",
                "--right-on",
                "title",
                "-m",
                "glove",
                "--matcher",
                "cosine",
                "-o",
                "-",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("name,title,match_score") and not (Path("-")).exists()
    assert main(["dedup", str(left), "--column", "name", "-m", "glove", "-o", "-"]) == 0
    assert "name_deduplicated" in capsys.readouterr().out
    assert main(["encode", "-m", "glove", "paris", "-o", "-"]) == 0
    assert '"text": "paris"' in capsys.readouterr().out
    assert pd.read_csv(left).shape == (2, 1)


def test_table_formats_follow_the_file_names(tmp_path, hash_encoder, monkeypatch):
    import pandas as pd

    from pearl import fuzzy_join

    left = pd.DataFrame({"name": ["New York Times", "Boston Globe"], "n": [1, 2]})
    right = pd.DataFrame({"title": ["NY Times", "The Boston Globe"], "m": [3, 4]})
    left.to_parquet(tmp_path / "l.parquet")
    right.to_csv(tmp_path / "r.tsv", sep="\t", index=False)
    monkeypatch.setattr("pearl.tables.encoding._ENCODERS", {("glove", None): hash_encoder})
    assert (
        main(
            [
                "join",
                str(tmp_path / "l.parquet"),
                str(tmp_path / "r.tsv"),
                "--left-on",
                "name",
                "--right-on",
                "title",
                "-m",
                "glove",
                "--matcher",
                "cosine",
                "-o",
                str(tmp_path / "o.parquet"),
            ]
        )
        == 0
    )
    got = pd.read_parquet(tmp_path / "o.parquet")
    want = fuzzy_join(
        left, right.astype(str), "name", "title", model=hash_encoder, matcher="cosine"
    )
    assert got["title"].tolist() == want["title"].tolist()
    assert got["n"].dtype == left["n"].dtype  # Parquet keeps its column types


def test_a_bug_surfaces_with_its_traceback(monkeypatch, capsys):
    """Input errors print one line and exit 2; an unexpected TypeError is not hidden."""
    import pearl.cli as cli

    def buggy(args):
        return None + 1  # a bug, not an input error

    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    parser._subparsers._group_actions[0].choices["similarity"].set_defaults(func=buggy)
    with pytest.raises(TypeError, match="NoneType"):
        cli.main(["similarity", "a", "b"])
    assert main(["eval", "--tasks", "nope"]) == 2
    assert "unknown task" in capsys.readouterr().err


@pytest.mark.filterwarnings("ignore:record linkage. 'city/town' holds the same value")
def test_join_on_several_columns_links_records(tmp_path, hash_encoder, monkeypatch):
    import pandas as pd

    from pearl import fuzzy_join

    left = pd.DataFrame(
        {
            "first": ["anna", "anna", "john"],
            "last": ["smith", "berg", "smith"],
            "city": ["oslo"] * 3,
        }
    )
    right = pd.DataFrame(
        {"fn": ["john", "anna", "anna"], "ln": ["smyth", "bergg", "smith"], "town": ["oslo"] * 3}
    )
    left.to_csv(tmp_path / "l.csv", index=False)
    right.to_csv(tmp_path / "r.csv", index=False)
    monkeypatch.setattr("pearl.tables.encoding._ENCODERS", {("glove", None): hash_encoder})
    args = ["join", str(tmp_path / "l.csv"), str(tmp_path / "r.csv"), "-m", "glove"]
    args += ["--left-on", "first", "last", "city", "--right-on", "fn", "ln", "town"]
    assert main([*args, "--threshold", "0", "-o", str(tmp_path / "o.csv")]) == 0
    got = pd.read_csv(tmp_path / "o.csv", dtype=str)
    want = fuzzy_join(
        left,
        right,
        left_on=["first", "last", "city"],
        right_on=["fn", "ln", "town"],
        model=hash_encoder,
        threshold=0.0,
    )
    assert got["ln"].tolist() == want["ln"].tolist()
    assert (
        got["match_score"].astype(float).round(6).tolist() == want["match_score"].round(6).tolist()
    )
    assert main([*args[:-3], "ln", "-o", str(tmp_path / "o2.csv")]) == 2  # 3 columns vs 1
    # known matches: row numbers of both files, the same result as the API
    pd.DataFrame({"left_row": [0, 1], "right_row": [2, 1]}).to_csv(tmp_path / "k.csv", index=False)
    known = [*args, "--known-matches", str(tmp_path / "k.csv")]
    assert main([*known, "-o", str(tmp_path / "o3.csv")]) == 0
    want = fuzzy_join(
        left,
        right,
        left_on=["first", "last", "city"],
        right_on=["fn", "ln", "town"],
        model=hash_encoder,
        known_matches=[(0, 2), (1, 1)],
    )
    got = pd.read_csv(tmp_path / "o3.csv", dtype=str)
    assert got["ln"].tolist() == want["ln"].tolist()
    pd.DataFrame({"a": ["x"], "b": ["y"]}).to_csv(tmp_path / "bad.csv", index=False)
    bad = [*args, "--known-matches", str(tmp_path / "bad.csv"), "-o", str(tmp_path / "o4.csv")]
    assert main(bad) != 0 and not (tmp_path / "o4.csv").exists()


def test_join_on_names_the_same_key_columns_of_both_tables(
    tmp_path, hash_encoder, monkeypatch, capsys
):
    import pandas as pd

    left = pd.DataFrame({"name": ["anna smith", "john berg"], "city": ["oslo", "bergen"]})
    right = pd.DataFrame({"name": ["john bergg", "anna smyth"], "city": ["bergen", "oslo"]})
    left.to_csv(tmp_path / "l.csv", index=False)
    right.to_csv(tmp_path / "r.csv", index=False)
    monkeypatch.setattr("pearl.tables.encoding._ENCODERS", {("glove", None): hash_encoder})
    args = ["join", str(tmp_path / "l.csv"), str(tmp_path / "r.csv"), "-m", "glove"]
    args += ["--threshold", "0"]
    assert main([*args, "--on", "name", "city", "-o", str(tmp_path / "on.csv")]) == 0
    both = ["--left-on", "name", "city", "--right-on", "name", "city"]
    assert main([*args, *both, "-o", str(tmp_path / "sides.csv")]) == 0
    on = pd.read_csv(tmp_path / "on.csv", dtype=str)
    pd.testing.assert_frame_equal(on, pd.read_csv(tmp_path / "sides.csv", dtype=str))
    assert on["name_right"].tolist() == ["anna smyth", "john bergg"]
    capsys.readouterr()
    # both ways at once, or one side only: a one-line error, nothing written
    for bad in (["--on", "name", "--left-on", "name"], ["--left-on", "name"], []):
        assert main([*args, *bad, "-o", str(tmp_path / "bad.csv")]) == 2
        assert "--on" in capsys.readouterr().err and not (tmp_path / "bad.csv").exists()


def test_running_out_of_memory_says_what_was_needed(tmp_path, monkeypatch, capsys):
    import numpy as np

    import pearl.tables

    table = tmp_path / "t.csv"
    table.write_text("name\nAcme\nACME\n")

    def huge(*args, **kwargs):
        return np.empty((10**8, 10**8), dtype=np.float32)  # NumPy's _ArrayMemoryError

    monkeypatch.setattr(pearl.tables, "deduplicate", huge)
    argv = ["dedup", str(table), "--column", "name", "-o", str(tmp_path / "o.csv")]
    assert main([*argv, "-m", "pearl-static"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pearl: error: out of memory: Unable to allocate")
    assert "--workers" in err and not (tmp_path / "o.csv").exists()


def test_benchmark_strings_lists_every_autofj_title(mini_benchmark, tmp_path):
    out = tmp_path / "titles.txt"
    assert (
        main(["benchmark-strings", "-o", str(out), "--data", str(mini_benchmark / "benchmark")])
        == 0
    )
    titles = out.read_text(encoding="utf-8").splitlines()
    assert titles == sorted(set(titles)) and "alpha alpha club" in titles
    assert "alpha alpha clubs" in titles  # right tables too
    bench = str(mini_benchmark / "benchmark")
    assert main(["benchmark-strings", "-o", bench, "--data", bench]) == 2  # never onto its input
    assert (mini_benchmark / "benchmark").is_dir()


def test_dedup_command_counts_changes_on_a_number_column(tiny_model_dir, tmp_path, capsys):
    # a Parquet column of numbers: the representatives are their text forms ("1.0"),
    # which the count compared with the floats, reporting every value as changed
    import pandas as pd

    src = tmp_path / "t.parquet"
    pd.DataFrame({"k": [1.0, 2.0, None]}).to_parquet(src)
    out = tmp_path / "o.csv"
    argv = ["dedup", str(src), "--column", "k", "-o", str(out), "-m", str(tiny_model_dir)]
    assert main([*argv, "--threshold", "0.999"]) == 0
    assert "0 of 3 values mapped to another representative" in capsys.readouterr().err
    assert pd.read_csv(out)["k_deduplicated"].tolist()[:2] == [1.0, 2.0]


def test_similarity_shows_control_characters_escaped(tiny_model_dir, capsys):
    argv = ["similarity", "Acme\x1b[2J", "Acme\x1b]0;title\x07", "Ac\u202eme", "plain"]
    assert main([*argv, "-m", str(tiny_model_dir)]) == 0
    out = capsys.readouterr().out
    assert not any(c in out for c in "\x1b\x07\u202e")
    assert "Acme\\x1b[2J" in out and "Ac\\u202eme" in out and "plain" in out


@pytest.mark.filterwarnings("default::pearl.PearlWarning")  # printed, not raised
def test_a_warning_is_one_pearl_line_without_python_source(tmp_path, tiny_model_dir, capsys):
    (tmp_path / "l.csv").write_text("name,city\nAcme Corp,\nGlobex,\n")
    (tmp_path / "r.csv").write_text("name,city\nACME Corp,Paris\nGlobex Inc,Rome\n")
    argv = ["join", str(tmp_path / "l.csv"), str(tmp_path / "r.csv"), "--on", "name", "city"]
    assert main([*argv, "-m", str(tiny_model_dir), "-o", str(tmp_path / "o.csv")]) == 0
    err = capsys.readouterr().err
    warning = [line for line in err.splitlines() if "warning" in line]
    assert warning and warning[0].startswith("pearl: warning: record linkage: the key column")
    assert "warnings.warn" not in err and ".py:" not in err


class _Stdin:
    """Standard input holding ``data`` (bytes), as ``sys.stdin`` offers it."""

    def __init__(self, data: bytes) -> None:
        import io

        self.buffer = io.BytesIO(data)


def test_join_and_dedup_read_standard_input_and_keep_quiet(
    tmp_path, tiny_model_dir, monkeypatch, capsys
):
    import pandas as pd

    (tmp_path / "r.csv").write_text("name\nAcme Corp\nGlobex\n")
    monkeypatch.setattr("sys.stdin", _Stdin(b"name\nAcme Corp\nInitech\n"))
    out = tmp_path / "o.csv"
    argv = ["join", "-", str(tmp_path / "r.csv"), "--on", "name", "-m", str(tiny_model_dir)]
    assert main([*argv, "-o", str(out), "-q"]) == 0
    assert pd.read_csv(out)["name"].tolist() == ["Acme Corp", "Initech"]
    assert capsys.readouterr().err == ""  # -q: no summary line, no bar
    monkeypatch.setattr("sys.stdin", _Stdin(b"name\nAcme\nACME\n"))
    argv = ["dedup", "-", "--column", "name", "-m", str(tiny_model_dir), "-o", str(out)]
    assert main(argv) == 0
    assert "wrote" in capsys.readouterr().err
    assert pd.read_csv(out)["name"].tolist() == ["Acme", "ACME"]
    both = ["join", "-", "-", "--on", "name", "-m", str(tiny_model_dir), "-o", str(out)]
    assert main(both) == 2
    assert "cannot both be '-'" in capsys.readouterr().err


def test_eval_interrupted_keeps_the_finished_tasks(mini_benchmark, tmp_path, monkeypatch, capsys):
    import dataclasses

    from pearl.evaluation import runner

    def ctrl_c(ctx):
        raise KeyboardInterrupt

    stopped = dataclasses.replace(runner.TASKS["autofj"], run=ctrl_c)
    monkeypatch.setitem(runner.TASKS, "autofj", stopped)
    out = tmp_path / "res"
    argv = ["eval", "-m", "string-distance", "--tasks", "turney,autofj", "-q"]
    assert main([*argv, "--data", str(mini_benchmark / "benchmark"), "-o", str(out)]) == 130
    rec = json.loads((out / "String_Distance.json").read_text())
    assert rec["tasks"]["turney"]["status"] == "ok" and "autofj" not in rec["tasks"]
    assert rec["interrupted"] == {"task": "autofj", "not_run": ["autofj"]}
    err = capsys.readouterr().err
    assert "interrupted during autofj" in err and "finish the rest (autofj)" in err
    with pytest.raises(KeyboardInterrupt):  # the API still stops as Ctrl-C stops
        runner.evaluate("string-distance", ["autofj"], data=mini_benchmark / "benchmark")


def test_eval_started_again_runs_only_what_is_not_done(
    mini_benchmark, tmp_path, monkeypatch, capsys
):
    import dataclasses

    from pearl.evaluation import runner

    out, data = tmp_path / "res", str(mini_benchmark / "benchmark")
    argv = ["eval", "-m", "string-distance", "--tasks", "turney,autofj", "-q", "-o", str(out)]
    assert main([*argv, "--data", data]) == 0
    first = json.loads((out / "String_Distance.json").read_text())
    ran = []

    def counted(task):
        def run(ctx):
            ran.append(task.key)
            return task.run(ctx)

        return dataclasses.replace(task, run=run)

    for key in ("turney", "autofj", "bird"):
        monkeypatch.setitem(runner.TASKS, key, counted(runner.TASKS[key]))
    more = ["eval", "-m", "string-distance", "--tasks", "turney,autofj,bird", "-q"]
    assert main([*more, "-o", str(out), "--data", data]) == 0
    assert ran == ["bird"]  # the two finished tasks are kept, not run again
    again = json.loads((out / "String_Distance.json").read_text())
    assert again["tasks"]["turney"] == first["tasks"]["turney"]
    assert main([*more, "-o", str(out), "--data", data, "--seed", "1"]) == 0
    assert ran == ["bird", "turney", "autofj", "bird"]  # other settings: every task
    assert main([*more, "-o", str(out), "--data", data, "--seed", "1", "--rerun"]) == 0
    assert ran[4:] == ["turney", "autofj", "bird"]
    capsys.readouterr()
    runner.evaluate(
        "string-distance", ["turney", "autofj"], data=data, seed=1, resume=out, cache=False
    )
    plan = capsys.readouterr().err
    assert "0 task(s) to run; 2 already done with this model and these settings" in plan


def test_sigterm_stops_eval_as_ctrl_c_does(mini_benchmark, tmp_path, monkeypatch, capsys):
    import dataclasses
    import os
    import signal

    from pearl.evaluation import runner

    def terminated(ctx):
        os.kill(os.getpid(), signal.SIGTERM)
        raise AssertionError("SIGTERM did not stop the task")

    monkeypatch.setitem(
        runner.TASKS, "autofj", dataclasses.replace(runner.TASKS["autofj"], run=terminated)
    )
    before = signal.getsignal(signal.SIGTERM)
    out = tmp_path / "res"
    argv = ["eval", "-m", "string-distance", "--tasks", "turney,autofj", "-q", "-o", str(out)]
    assert main([*argv, "--data", str(mini_benchmark / "benchmark")]) == 143
    rec = json.loads((out / "String_Distance.json").read_text())
    assert rec["tasks"]["turney"]["status"] == "ok" and "autofj" not in rec["tasks"]
    err = capsys.readouterr().err
    assert "interrupted during autofj" in err and "Traceback" not in err
    assert signal.getsignal(signal.SIGTERM) == before  # the handler is put back


def test_pearl_join_decides_on_the_tables_as_the_python_join(tmp_path):
    # the CLI streams a right CSV: that path kept the matcher's fixed cut and its cap on
    # numbers that differ, so partners with a digit typo in a birth date stayed unlinked
    import random

    import pandas as pd

    from pearl import fuzzy_join

    rng = random.Random(5)
    first = "james mary john patricia robert jennifer michael linda william".split()
    last = "smith johnson williams brown jones garcia miller davis wilson".split()

    def person() -> str:
        born = f"{rng.randint(1940, 2005)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        return f"{rng.choice(first)} {rng.choice(last)} {born}"

    right = [person() for _ in range(300)]
    left = []
    for text in right[:200]:
        j = max(k for k, c in enumerate(text) if c.isdigit())  # the day's last digit
        left.append(text[:j] + str((int(text[j]) + 1) % 10) + text[j + 1 :])
    left += [person() for _ in range(100)]
    pd.DataFrame({"key": left}).to_csv(tmp_path / "l.csv", index=False)
    pd.DataFrame({"key": right}).to_csv(tmp_path / "r.csv", index=False)
    out = tmp_path / "out.csv"
    args = ["join", str(tmp_path / "l.csv"), str(tmp_path / "r.csv"), "--on", "key"]
    assert main([*args, "-m", "pearl-static", "-o", str(out)]) == 0
    got = pd.read_csv(out, keep_default_na=False, na_values=[""])
    want = fuzzy_join(pd.DataFrame({"key": left}), pd.DataFrame({"key": right}), on="key",
                      model="pearl-static")  # fmt: skip
    assert (got["key_right"].iloc[:200] == pd.Series(right[:200])).mean() > 0.9
    pd.testing.assert_series_equal(got["key_right"], want["key_right"], check_dtype=False)
