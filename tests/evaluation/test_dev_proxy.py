"""The development proxy's strings, which the shipped recipes exclude (issue 51)."""

import random

import pytest

from pearl.cli import main
from pearl.evaluation.dev_proxy import dev_strings, dev_tasks, one_edit
from pearl.tables.match_graph import one_edit_pairs

pytest.importorskip("pycountry")


def test_tasks_are_iso_names_and_their_typos():
    data = dev_tasks(n_typos=300, seed=1)
    queries, candidates, answers = data["typo"]
    assert len(queries) == len(answers) == 300
    truth = [candidates[a] for a in answers]
    assert one_edit_pairs([q.lower() for q in queries], [t.lower() for t in truth]).mean() > 0.9
    official, gallery, where = data["official"]
    assert "France" in gallery and len(official) == len(where) > 100
    assert dev_tasks(n_typos=300, seed=1) == data  # seeded


def test_one_edit_is_one_edit():
    rng = random.Random(0)
    for word in ["Bayern", "ab", "x", "Île-de-France"]:
        edited = one_edit(word, rng)
        assert abs(len(edited) - len(word)) <= 1 and edited != word


def test_the_cli_writes_every_string(tmp_path):
    out = tmp_path / "dev.txt"
    assert main(["benchmark-strings", "--dev-proxy", "-o", str(out)]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines == dev_strings() and {"France", "Bayern"} <= set(lines)


def test_dev_scores_are_top1_by_cosine_and_their_mean(hash_encoder):
    from pearl.evaluation.dev_proxy import dev_scores

    tasks = {
        "official": (["Freedonia", "Sylvania"], ["Freedonia", "Sylvania", "Latveria"], [0, 2]),
        "typo": (["Bavaria"], ["Bavaria", "Hesse"], [0]),
    }
    assert dev_scores(hash_encoder, tasks) == {"official": 50.0, "typo": 100.0, "dev": 75.0}
