import numpy as np
import pytest

from pearl import StringDistance
from pearl.evaluation import evaluate, select_tasks
from pearl.evaluation.tasks import PAPER_OWN_TASKS, PHRASE_TASKS, SHORT_TEXT_TASKS
from pearl.evaluation.tasks.retrieval import nearest


def _run(model, root, tasks="all", **kw):
    return evaluate(
        model, tasks=tasks, data=root / "benchmark", show_progress_bar=False, cache=False, **kw
    )


def test_every_task_runs_on_the_real_file_formats(hash_encoder, mini_benchmark):
    rec = _run(hash_encoder, mini_benchmark)
    assert set(rec["tasks"]) == set(PHRASE_TASKS + SHORT_TEXT_TASKS)
    for key, res in rec["tasks"].items():
        assert res["status"] == "ok", (key, res)
        assert -100 <= res["score"] <= 100 and res["wall_time_s"] >= 0
    t = rec["tasks"]
    # the synthetic data is built so that trigram overlap solves these tasks
    assert t["turney"]["score"] == 100.0
    assert t["bird"]["score"] > 90
    assert t["yago"]["score"] == 100.0 and t["yago"]["details"]["dictionary_size"] == 64
    assert t["autofj"]["score"] == 100.0 and t["autofj"]["details"]["datasets"] == 2
    assert t["conll2003"]["score"] == pytest.approx(100.0)
    assert t["ppdb"]["score"] > 80
    assert len(t["atis_s"]["details"]["runs"]) == 10 and t["atis_s"]["std"] is not None
    assert rec["averages"]["avg7"] == pytest.approx(
        np.mean([t[k]["score"] for k in PAPER_OWN_TASKS])
    )
    assert rec["averages"]["avg9"] == pytest.approx(np.mean([t[k]["score"] for k in PHRASE_TASKS]))
    assert "torch" in rec["versions"] and rec["seed"] == 0


def test_deterministic_tasks_repeat_exactly(hash_encoder, mini_benchmark):
    a = _run(hash_encoder, mini_benchmark, tasks="phrase")
    b = _run(hash_encoder, mini_benchmark, tasks="phrase")
    assert {k: v["score"] for k, v in a["tasks"].items()} == {
        k: v["score"] for k, v in b["tasks"].items()
    }


def test_string_distance_only_takes_pairwise_tasks(mini_benchmark):
    rec = _run(StringDistance(), mini_benchmark, tasks="phrase")
    status = {k: v["status"] for k, v in rec["tasks"].items()}
    assert status == {
        "ppdb": "n/a",
        "ppdb_filtered": "n/a",
        "turney": "ok",
        "bird": "ok",
        "yago": "ok",
        "umls": "ok",
        "conll2003": "n/a",
        "bc5cdr": "n/a",
        "autofj": "ok",
    }
    assert rec["averages"]["avg7"] is None
    assert rec["tasks"]["autofj"]["score"] == 100.0


def test_quick_mode_is_labelled(hash_encoder, mini_benchmark):
    rec = _run(hash_encoder, mini_benchmark, tasks="atis_s,turney", quick=True)
    assert rec["quick"] is True
    assert len(rec["tasks"]["atis_s"]["details"]["runs"]) == 2


def test_cache_means_rerun_does_not_reencode(hash_encoder, mini_benchmark, tmp_path):
    kw = dict(
        tasks="turney",
        data=mini_benchmark / "benchmark",
        show_progress_bar=False,
        cache_root=tmp_path,
    )
    first = evaluate(hash_encoder, **kw)
    assert first["tasks"]["turney"]["newly_encoded"] > 0
    second = evaluate(type(hash_encoder)(), **kw)
    assert second["tasks"]["turney"]["newly_encoded"] == 0
    assert second["tasks"]["turney"]["score"] == first["tasks"]["turney"]["score"]


def test_missing_data_is_a_clear_error(hash_encoder, tmp_path):
    with pytest.raises(FileNotFoundError, match="pass --data"):
        evaluate(hash_encoder, tasks="turney", data=tmp_path / "nope", show_progress_bar=False)


def test_the_data_root_given_for_the_benchmark_root_names_the_right_folder(
    hash_encoder, mini_benchmark
):
    # --data ../shared/data (the data root, not its benchmark folder) ran every task into
    # its own "file not found" and wrote a table of errors
    with pytest.raises(FileNotFoundError, match=r"pass --data .*benchmark"):
        evaluate(hash_encoder, tasks="turney", data=mini_benchmark, show_progress_bar=False)


def test_a_failing_task_is_recorded_not_fatal(hash_encoder, mini_benchmark):
    (mini_benchmark / "benchmark" / "bird" / "bird.txt").unlink()
    rec = _run(hash_encoder, mini_benchmark, tasks="bird,turney")
    assert rec["tasks"]["bird"]["status"] == "error"
    assert "bird.txt" in rec["tasks"]["bird"]["error"]  # the missing file is named
    assert rec["tasks"]["turney"]["status"] == "ok"


def test_select_tasks():
    assert select_tasks("phrase") == PHRASE_TASKS
    assert select_tasks("turney, bird,turney") == ["turney", "bird"]
    with pytest.raises(ValueError, match="unknown task 'nope'"):
        select_tasks("nope")


@pytest.mark.parametrize("index", ["flat", "ivfpq"])
def test_nearest_finds_exact_copies(index):
    rng = np.random.default_rng(0)
    names = rng.normal(size=(5000, 48)).astype(np.float32)
    queries = names[:50] + 0.01 * rng.normal(size=(50, 48)).astype(np.float32)
    ids = nearest(queries, names, index=index)
    assert (ids == np.arange(50)).mean() >= (1.0 if index == "flat" else 0.8)
    with pytest.raises(ValueError):
        nearest(queries, names, index="hnsw")


def test_paraphrase_probe_runs_average_seeded_probes(hash_encoder, mini_benchmark, monkeypatch):
    from pearl.evaluation.tasks import paraphrase

    seeds, real = [], paraphrase.train_probe

    def recording_probe(*args, seed, **kw):
        seeds.append(seed)
        res = real(*args, seed=seed, **kw)
        res.test_accuracy = seed / 100  # a distinct, known score per run
        return res

    monkeypatch.setattr(paraphrase, "train_probe", recording_probe)
    rec = _run(hash_encoder, mini_benchmark, tasks="ppdb,ppdb_filtered", seed=3, probe_runs=3)
    assert seeds == [3, 4, 5, 3, 4, 5]  # run r uses seed + r, for both tasks
    res = rec["tasks"]["ppdb"]
    assert res["details"]["runs"] == pytest.approx([3.0, 4.0, 5.0])
    assert res["score"] == pytest.approx(4.0)
    assert res["details"]["first_run"] == pytest.approx(3.0)  # the seed-0-style figure
    assert res["std"] == pytest.approx(np.std([3, 4, 5]), abs=1e-3)
    assert len(rec["tasks"]["ppdb_filtered"]["details"]["epochs_per_run"]) == 3
    assert rec["seeds"]["paraphrase_probe_runs"] == "seed + run, run = 0..2"
    seeds.clear()
    default = _run(hash_encoder, mini_benchmark, tasks="ppdb", seed=0)
    assert seeds == [0, 1, 2, 3, 4]  # five probe runs by default
    assert default["seeds"]["paraphrase_probe_runs"] == "seed + run, run = 0..4"
    seeds.clear()
    single = _run(hash_encoder, mini_benchmark, tasks="ppdb", seed=3, probe_runs=1)["tasks"]["ppdb"]
    assert seeds == [3] and single["score"] == pytest.approx(3.0)
    assert single["std"] is None and "runs" not in single["details"]
    with pytest.raises(ValueError, match="probe_runs"):
        _run(hash_encoder, mini_benchmark, tasks="ppdb", probe_runs=0)
