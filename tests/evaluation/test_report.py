from pearl.evaluation.report import load_records, render_markdown, save_record, write_report


def _record(name="m", quick=False, fingerprint="f", tasks=None):
    tasks = tasks or {
        "turney": {"status": "ok", "score": 50.0, "std": None, "n": 1, "wall_time_s": 1.0}
    }
    return {
        "model": name,
        "quick": quick,
        "fingerprint": fingerprint,
        "parameters": 22_700_000,
        "tasks": tasks,
        "averages": {"avg7": None, "avg9": None, "short_text": None},
    }


def test_table_has_measured_and_published_rows():
    md = render_markdown([_record()])
    assert "| m | 22.7M | measured | – | – | 50.0 |" in md
    assert "| PEARL-small | 40M | published | 97.2 | 69.2 | 56.1 | 69.7 |" in md
    assert "68.1" in md  # PEARL-small Avg-7
    assert "QUICK" not in md


def test_quick_runs_are_labelled():
    assert "QUICK RUN" in render_markdown([_record(quick=True)])


def test_na_and_errors_are_shown():
    rec = _record(
        tasks={
            "ppdb": {"status": "n/a", "reason": "x"},
            "bird": {"status": "error", "error": "boom"},
        }
    )
    md = render_markdown([rec])
    assert "n/a" in md and "boom" in md


def test_save_merges_tasks_of_the_same_model(tmp_path):
    save_record(_record(), tmp_path)
    save_record(
        _record(
            tasks={"bird": {"status": "ok", "score": 40.0, "std": None, "n": 1, "wall_time_s": 1.0}}
        ),
        tmp_path,
    )
    (rec,) = load_records(tmp_path)
    assert set(rec["tasks"]) == {"turney", "bird"}
    save_record(_record(fingerprint="other"), tmp_path)
    (rec,) = load_records(tmp_path)
    assert set(rec["tasks"]) == {"turney"}
    assert write_report(tmp_path).read_text().count("measured") >= 1


def test_mixed_probe_protocols_are_named():
    def ppdb(runs):
        details = {"runs": runs} if runs else {}
        return {
            "ppdb": {
                "status": "ok",
                "score": 90.0,
                "std": None,
                "n": 1,
                "wall_time_s": 1.0,
                "details": details,
            }
        }

    single, five = _record("a", tasks=ppdb(None)), _record("b", tasks=ppdb([90.0] * 5))
    md = render_markdown([single, five])
    assert "the single probe (seed 0): a; the mean of 5 probe runs: b" in md
    assert "PPDB and PPDB-f of the measured rows" not in render_markdown([five])


def test_seed0_scores_take_the_first_probe():
    from pearl.evaluation.report import seed0_scores

    tasks = {
        "ppdb": {"status": "ok", "score": 94.0, "details": {"first_run": 93.0, "runs": [93.0]}},
        "ppdb_filtered": {"status": "ok", "score": 65.0, "details": {"first_run": 58.0}},
        "bird": {"status": "ok", "score": 66.0},
        "turney": {"status": "error"},
    }
    assert seed0_scores({"tasks": tasks}) == {"ppdb": 93.0, "ppdb_filtered": 58.0, "bird": 66.0}
    # a single-probe record (no first_run) keeps its score
    assert seed0_scores({"tasks": {"ppdb": {"status": "ok", "score": 95.0}}}) == {"ppdb": 95.0}
