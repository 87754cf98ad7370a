import io
import os

import numpy as np
import pandas as pd
import pytest

from pearl.cli import main
from pearl.tables.report import join_report
from pearl.tables.review import REVIEW_COLUMNS, review_pairs
from pearl.training.labelled import read_labelled


def _tables():
    left = pd.DataFrame({"name": ["Acme Corp", "Globex Inc", "Initech", "Umbrella", "Hooly"]})
    right = pd.DataFrame({"name": ["ACME Corporation", "Globex Incorporated", "Hooli", "Initrode"]})
    return left, right


def _script(*answers):
    """An ``ask`` that gives these answers, then end of input; and the prompts seen."""
    it, prompts = iter(answers), []

    def ask(prompt):
        prompts.append(prompt)
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return ask, prompts


def test_answers_are_recorded_nearest_the_threshold_first(hash_encoder):
    left, right = _tables()
    report = join_report(left, right, on="name", model=hash_encoder, threshold=0.3)
    ask, prompts = _script("y", "maybe", "n", "s", "q")
    shown = []
    table = review_pairs(report, 10, ask=ask, show=shown.append)
    assert list(table.columns) == REVIEW_COLUMNS
    assert table["label"].tolist() == [1, 0]  # "maybe" asked again, skip not recorded
    assert len(prompts) == 5 and len(shown) == 4  # quit at the fourth pair
    s, d = report.best_scores, report.details
    order = np.argsort(np.abs(s - 0.3), kind="stable")
    assert table["left_row"].tolist() == order[:2].tolist()
    assert table["right_row"].tolist() == [int(d.ids[i, 0]) for i in order[:2]]
    assert table["left"].tolist() == [left["name"][i] for i in order[:2]]
    assert table["right"].tolist() == [right["name"][d.ids[i, 0]] for i in order[:2]]


def test_earlier_labels_are_kept_and_not_asked_again(hash_encoder):
    left, right = _tables()
    report = join_report(left, right, on="name", model=hash_encoder, threshold=0.3)
    first = review_pairs(report, 2, ask=_script("y", "n")[0], show=lambda _: None)
    ask, prompts = _script("y")  # then end of input: the answers given are kept
    both = review_pairs(report, 10, ask=ask, show=lambda _: None, labelled=first)
    assert len(both) == 3 and both.iloc[:2].equals(first)
    assert not set(zip(first.left_row, first.right_row, strict=True)) & {tuple(both.iloc[2, :2])}
    with pytest.raises(ValueError, match="not a review file"):
        review_pairs(report, 1, ask=ask, labelled=pd.DataFrame({"a": [1]}))


def test_cli_review_writes_labels_that_join_and_finetune_read(
    tmp_path, tiny_model_dir, monkeypatch
):
    left, right = _tables()
    left.to_csv(tmp_path / "l.csv", index=False)
    right.to_csv(tmp_path / "r.csv", index=False)
    out = tmp_path / "labels.csv"
    argv = ["review", str(tmp_path / "l.csv"), str(tmp_path / "r.csv"), "--left-on", "name"]
    argv += ["--right-on", "name", "-m", str(tiny_model_dir), "-o", str(out), "--threshold", "0"]
    monkeypatch.setattr("sys.stdin", io.StringIO("y\nn\n"))
    assert main(argv) == 0
    labels = pd.read_csv(out)
    assert labels["label"].tolist() == [1, 0]
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    assert main(argv) == 0
    assert pd.read_csv(out)["label"].tolist() == [1, 0, 1]
    before = out.read_bytes()
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # no answer: the file is unchanged
    assert main(argv) == 0 and out.read_bytes() == before
    assert len(read_labelled(out).texts) >= 2  # pearl finetune reads it
    from pearl.cli.review import known_matches as _known_matches

    matches = pd.read_csv(out).query("label == 1")
    assert _known_matches(str(out)) == list(zip(matches.left_row, matches.right_row, strict=True))
    # a file that is not a review file is never overwritten
    (tmp_path / "other.csv").write_text("a,b\n1,2\n")
    argv[argv.index(str(out))] = str(tmp_path / "other.csv")
    assert main(argv) == 2
    assert (tmp_path / "other.csv").read_text() == "a,b\n1,2\n"


def test_a_review_file_without_matches_is_no_known_match(tmp_path):
    from pearl.cli.review import known_matches as _known_matches

    row = {"left_row": 0, "right_row": 1, "left": "a", "right": "b", "label": 0}
    pd.DataFrame([{**row, "match_score": 0.4}]).to_csv(tmp_path / "n.csv", index=False)
    with pytest.raises(ValueError, match="no pair is labelled a match"):
        _known_matches(str(tmp_path / "n.csv"))


def _review_argv(tmp_path, model, out):
    left, right = _tables()
    left.to_csv(tmp_path / "l.csv", index=False)
    right.to_csv(tmp_path / "r.csv", index=False)
    argv = ["review", str(tmp_path / "l.csv"), str(tmp_path / "r.csv"), "--on", "name"]
    return [*argv, "-m", str(model), "-o", str(out), "--threshold", "0"]


class _Killed(BaseException):
    """What a signal's default action does to the process, as far as the file goes:
    nothing after it runs (no except clause, no final write)."""


def test_each_answer_is_on_disk_before_the_next_question(tmp_path, tiny_model_dir, monkeypatch):
    out = tmp_path / "labels.csv"

    class Terminal(io.StringIO):
        def readline(self, *args):
            line = super().readline(*args)
            if not line:  # the terminal closes during the third question
                raise _Killed
            return line

    monkeypatch.setattr("sys.stdin", Terminal("y\nn\n"))
    with pytest.raises(_Killed):
        main(_review_argv(tmp_path, tiny_model_dir, out))
    assert pd.read_csv(out)["label"].tolist() == [1, 0]


def test_a_review_file_that_cannot_be_written_fails_before_any_question(
    tmp_path, tiny_model_dir, monkeypatch, capsys
):
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n" * 10))
    (tmp_path / "file").write_text("x")
    out = tmp_path / "file" / "labels.csv"  # its parent is a file
    assert main(_review_argv(tmp_path, tiny_model_dir, out)) == 2
    err = capsys.readouterr().err
    assert "cannot write the review file" in err and "[1/" not in err  # no question
    if os.geteuid() != 0:  # root writes into a read-only folder
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        assert main(_review_argv(tmp_path, tiny_model_dir, locked / "labels.csv")) == 2
        assert "[1/" not in capsys.readouterr().err


def test_a_full_disk_is_found_before_the_first_question(tmp_path, monkeypatch):
    import errno

    from pearl._io import check_writable

    real_open = open

    def full(path, mode="r", *args, **kwargs):
        if "w" in mode:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", full)
    with pytest.raises(OSError, match="cannot write the review file .*No space left"):
        check_writable(tmp_path / "labels.csv", "review file")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("bad", ["1.5", "x", "inf", ""])
def test_a_review_row_that_is_not_a_whole_number_is_refused(bad):
    from pearl.tables.review import check_review_table

    row = {"left_row": [0, bad], "right_row": [1, 2], "left": "a", "right": "b"}
    table = pd.DataFrame({**row, "label": [1, 1], "match_score": 0.4})
    with pytest.raises(ValueError, match="must be integers"):
        check_review_table(table, "labels.csv")


def test_known_matches_rows_are_whole_numbers(tmp_path):
    from pearl.cli.review import known_matches as _known_matches

    (tmp_path / "k.csv").write_text("l,r\n0,1\n1.5,2\n")
    with pytest.raises(ValueError, match="must be integers .*1.5"):
        _known_matches(str(tmp_path / "k.csv"))
    (tmp_path / "k.csv").write_text("l,r\n0,1\n2,3\n")
    assert _known_matches(str(tmp_path / "k.csv")) == [(0, 1), (2, 3)]


def test_a_hostile_cell_is_shown_escaped_to_the_reviewer(
    tmp_path, tiny_model_dir, capsys, monkeypatch
):
    left = pd.DataFrame({"name": ["Acme\x1b[8m hidden\x1b[0m", "Globex\x1b]0;title\x07"]})
    right = pd.DataFrame({"name": ["Acme\u202e evil", "Globex\r\x1b[2K fake"]})
    left.to_csv(tmp_path / "l.csv", index=False)
    right.to_csv(tmp_path / "r.csv", index=False)
    argv = ["review", str(tmp_path / "l.csv"), str(tmp_path / "r.csv"), "--on", "name"]
    argv += ["-m", str(tiny_model_dir), "-o", str(tmp_path / "o.csv"), "--threshold", "0"]
    monkeypatch.setattr("sys.stdin", io.StringIO("y\ny\n"))
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert not any(c in err for c in "\x1b\x07\r\u202e")
    assert "Acme\\x1b[8m hidden" in err and "Acme\\u202e evil" in err
    labels = pd.read_csv(tmp_path / "o.csv")  # the file keeps the cells as they are
    assert labels["left"].str.contains("\x1b").all()
