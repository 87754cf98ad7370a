"""A benchmark run started again keeps what an earlier run of the same settings finished."""

import json

from pearl.evaluation.resume import record_path, resume_tasks


def _record(**settings):
    base = {"model": "my model/v1", "fingerprint": "abc", "quick": False, "seed": 0}
    base.update(retrieval_index="flat", seeds={"splits_and_probes": 0}, tasks={})
    return {**base, **settings}


def test_finished_tasks_of_the_same_settings_are_kept(tmp_path, capsys):
    path = record_path(_record(), tmp_path)
    assert path.name == "my_model_v1.json"
    done = {"turney": {"status": "ok", "score": 1.0, "wall_time_s": 60.0}}
    done["bird"] = {"status": "error", "error": "x", "wall_time_s": 120.0}
    path.write_text(json.dumps(_record(tasks=done)))
    record = _record()
    assert resume_tasks(tmp_path, record, ["turney", "bird"], say=True) == ["bird"]
    assert record["tasks"] == {"turney": done["turney"]}  # a failed task is run again
    assert "about 2 min by the earlier run's times" in capsys.readouterr().err
    for other in ({"seed": 1}, {"fingerprint": "def"}, {"quick": True}):
        assert resume_tasks(tmp_path, _record(**other), ["turney"], say=False) == ["turney"]
    assert resume_tasks(None, _record(), ["turney"], say=False) == ["turney"]


def test_an_unreadable_or_foreign_record_runs_every_task(tmp_path):
    path = record_path(_record(), tmp_path)
    for text in ("{not json", "[1, 2]", json.dumps(_record(tasks=["turney"]))):
        path.write_text(text)
        assert resume_tasks(tmp_path, _record(), ["turney"], say=False) == ["turney"]
