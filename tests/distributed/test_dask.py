"""pearl on Dask: a LocalCluster of 2 worker processes and tiny models."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import pearl  # noqa: E402
from pearl.cli import main  # noqa: E402
from pearl.distributed import dask as pdk  # noqa: E402

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import _faults  # noqa: E402


@pytest.fixture(scope="module")
def client():
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), old]))
    c = pdk.local_client(2, torch_threads=1, dashboard=False)
    try:
        yield c
    finally:
        pdk_close(c)
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


def pdk_close(c):
    cluster = c.cluster
    c.close()
    cluster.close()


def tables(n_left=60, n_right=40):
    names = [
        f"{w} {v} club"
        for w in ("alpha", "bravo", "charlie", "delta", "echo")
        for v in ("one", "two", "three", "four", "five", "six", "seven", "eight")
    ]
    right = pd.DataFrame({"title": names[:n_right], "rid": [f"r{i}" for i in range(n_right)]})
    left_names = [names[i % n_right].replace("club", "clubs") for i in range(n_left)]
    left_names[3] = None
    left_names[7] = names[0]  # duplicates on the right side tie: the earlier row wins
    left = pd.DataFrame({"name": left_names, "lid": range(n_left)})
    right.loc[10, "title"] = names[0]
    return left, right


def _dask_join(left, right, **kw):
    """``pearl.dask.fuzzy_join`` of ``left`` (3 partitions) and ``right`` (2) on name and
    title, computed: what the single-process join is compared with."""
    left, right = dd.from_pandas(left, npartitions=3), dd.from_pandas(right, npartitions=2)
    return pdk.fuzzy_join(left, right, "name", "title", **kw).compute()


@pytest.mark.parametrize("shards, top_k, how", [(1, 1, "left"), (3, 2, "inner")])
def test_join_equals_the_single_process_join_row_for_row(
    client, tiny_model_dir, shards, top_k, how
):
    left, right = tables()
    single = pearl.fuzzy_join(
        left,
        right,
        left_on="name",
        right_on="title",
        top_k=top_k,
        how=how,
        model=str(tiny_model_dir),
    )
    out = pdk.fuzzy_join(
        dd.from_pandas(left, npartitions=4),
        dd.from_pandas(right, npartitions=3),
        "name",
        "title",
        model=str(tiny_model_dir),
        top_k=top_k,
        how=how,
        right_shards=shards,
    ).compute()
    pd.testing.assert_frame_equal(out.reset_index(drop=True), single, check_dtype=False, rtol=1e-5)


def test_model_is_loaded_once_per_worker(client, tiny_model_dir, tmp_path):
    import shutil

    model = tmp_path / "fresh-model"  # a path no worker has loaded yet
    shutil.copytree(tiny_model_dir, model)
    client.run(_faults.count_loads)
    left, right = tables(200, 40)
    pdk.fuzzy_join(
        dd.from_pandas(left, npartitions=8),
        dd.from_pandas(right, npartitions=4),
        "name",
        "title",
        model=str(model),
    ).compute()
    per_worker = client.run(_faults.loads)
    loads = [m for v in per_worker.values() for m in v if m == str(model)]
    assert 1 <= len(loads) <= len(per_worker), per_worker  # 12 partitions, <= 1 load each


def test_encode_equals_the_encoder(client, tiny_model_dir):
    left, _ = tables()
    texts = left.dropna()
    vecs = pdk.encode(
        dd.from_pandas(texts, npartitions=3), "name", model=str(tiny_model_dir)
    ).compute()
    expected = pearl.PhraseEncoder(tiny_model_dir).encode(texts.name.tolist())
    np.testing.assert_allclose(vecs, expected, rtol=1e-4, atol=1e-5)
    # missing values: embedded as "" by default, as PhraseEmbedder does (issue 37)
    full = pdk.encode(
        dd.from_pandas(left, npartitions=2), "name", model=str(tiny_model_dir)
    ).compute()
    single = pearl.PhraseEncoder(tiny_model_dir).encode(left["name"].fillna("").tolist())
    np.testing.assert_allclose(full, single, rtol=1e-4, atol=1e-5)
    # with handle_missing="error", the error names the row's label in the whole table
    late = left.fillna({"name": "x"})
    late.loc[45, "name"] = None  # in the second partition: position 15 there
    with pytest.raises(ValueError, match="at row 45"):
        pdk.encode(
            dd.from_pandas(late, npartitions=2),
            "name",
            model=str(tiny_model_dir),
            handle_missing="error",
        ).compute()


def test_index_build_and_search(client, tiny_model_dir):
    _, right = tables()
    idx = pdk.build_index(dd.from_pandas(right, npartitions=3), "title", model=str(tiny_model_dir))
    queries = pd.DataFrame({"q": ["alpha one clubs", "delta two club"]})
    hits = pdk.search(idx, dd.from_pandas(queries, npartitions=2), "q", top_k=3).compute()
    local = idx.search(queries.q.tolist(), top_k=3).to_frame()
    pd.testing.assert_frame_equal(hits.reset_index(drop=True), local, check_dtype=False)
    # the combined matcher: the same candidate rule and scores as the single-process search
    q = dd.from_pandas(queries, npartitions=2)
    hits = pdk.search(idx, q, "q", top_k=2, matcher="combined", candidates=4).compute()
    local = idx.search(queries.q.tolist(), top_k=2, matcher="combined", candidates=4).to_frame()
    pd.testing.assert_frame_equal(hits.reset_index(drop=True), local, check_dtype=False)


def test_an_index_of_phones_is_searched_on_dask_as_in_one_process(client, tiny_model_dir):
    phones = ["212-555-0101", "212-555-0102", "310-246-1501", "415-555-2671"]
    idx = pearl.EntityIndex(str(tiny_model_dir)).build(phones)
    queries = pd.DataFrame({"q": ["(212) 555 0101", "4155552671", "310 246 1502"]})
    hits = pdk.search(idx, dd.from_pandas(queries, npartitions=2), "q", top_k=2).compute()
    local = idx.search(queries.q.tolist(), top_k=2).to_frame()
    pd.testing.assert_frame_equal(hits.reset_index(drop=True), local, check_dtype=False)
    # an index built on the cluster compares them as one built in one process
    built = pdk.build_index(
        dd.from_pandas(pd.DataFrame({"p": phones}), npartitions=2), "p", model=str(tiny_model_dir)
    )
    again = built.search(queries.q.tolist(), top_k=2).to_frame()
    pd.testing.assert_frame_equal(again, local, check_dtype=False, rtol=1e-5)


def _parquet(tmp_path):
    left, right = tables()
    lp, rp = tmp_path / "left.parquet", tmp_path / "right.parquet"
    left.to_parquet(lp)
    right.to_parquet(rp)
    return left, right, lp, rp


def test_worker_killed_mid_job_loses_and_duplicates_no_row(client, tmp_path):
    left, right, lp, rp = _parquet(tmp_path)
    marker = tmp_path / "killed"
    model = _faults.KillOnce(trigger="charlie", marker=str(marker))
    out = pdk.join_to_parquet(
        lp,
        rp,
        tmp_path / "out",
        left_on="name",
        right_on="title",
        model=model,
        partitions=4,
        show_progress_bar=False,
    )
    assert marker.exists()  # a worker did die
    got = pd.read_parquet(out).sort_values("lid", kind="stable").reset_index(drop=True)
    single = pearl.fuzzy_join(
        left, right, left_on="name", right_on="title", model=_faults.TrigramEncoder()
    )
    assert got.lid.tolist() == single.lid.tolist()  # every row once
    pd.testing.assert_frame_equal(got, single, check_dtype=False, rtol=1e-5)
    assert not list(out.glob(".*.tmp"))


def test_rerun_skips_finished_parts_and_refuses_another_job(client, tiny_model_dir, tmp_path):
    *_, lp, rp = _parquet(tmp_path)
    kwargs = dict(
        left_on="name",
        right_on="title",
        model=str(tiny_model_dir),
        partitions=3,
        show_progress_bar=False,
    )
    out = pdk.join_to_parquet(lp, rp, tmp_path / "out", **kwargs)
    parts = sorted(out.glob("part-*.parquet"))
    assert len(parts) == 3 and (out / "_SUCCESS").exists()
    stamps = {p.name: p.stat().st_mtime_ns for p in parts}
    parts[1].unlink()  # as if the run had stopped before this partition
    pdk.join_to_parquet(lp, rp, out, **kwargs)
    assert parts[1].exists()
    assert stamps[parts[0].name] == parts[0].stat().st_mtime_ns  # not written again
    with pytest.raises(ValueError, match="another job"):
        pdk.join_to_parquet(lp, rp, out, **{**kwargs, "top_k": 2})
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    with pytest.raises(FileExistsError):
        pdk.join_to_parquet(lp, rp, mine, **kwargs)


def test_cli_encode_and_join_on_a_scheduler(client, tiny_model_dir, tmp_path):
    left, right, lp, rp = _parquet(tmp_path)
    address = client.scheduler.address
    assert (
        main(
            [
                "encode",
                "--input",
                str(rp),
                "--column",
                "title",
                "--keys",
                "rid",
                "-m",
                str(tiny_model_dir),
                "--output",
                str(tmp_path / "emb"),
                "--scheduler",
                address,
                "-q",
            ]
        )
        == 0
    )
    emb = pd.read_parquet(tmp_path / "emb")
    assert emb.columns.tolist() == ["rid", "title", "embedding"] and len(emb) == len(right)
    assert len(emb.embedding[0]) == 32
    assert (
        main(
            [
                "join",
                str(lp),
                str(rp),
                "--left-on",
                "name",
                "--right-on",
                "title",
                "-m",
                str(tiny_model_dir),
                "-o",
                str(tmp_path / "joined"),
                "--scheduler",
                address,
            ]
        )
        == 0
    )
    joined = pd.read_parquet(tmp_path / "joined")
    assert sorted(joined.lid.tolist()) == list(range(len(left)))
    json.loads((tmp_path / "joined" / "_pearl_job.json").read_text())
    common = [str(lp), str(rp), "--left-on", "name", "--right-on", "title"]
    common += ["-m", str(tiny_model_dir), "--scheduler", address]
    out = tmp_path / "precise"
    assert main(["join", *common, "-o", str(out), "--target-precision", "0.9"]) == 0
    assert json.loads((out / "_pearl_job.json").read_text())["precision"] == 0.9
    assert sorted(pd.read_parquet(out).lid.tolist()) == list(range(len(left)))


@pytest.mark.parametrize("name", ["joined.parquet", "joined.csv"])
def test_cli_join_on_dask_writes_the_file_it_was_asked_for(
    client, tiny_model_dir, tmp_path, capsys, name
):
    left, right, lp, rp = _parquet(tmp_path)
    argv = ["join", str(lp), str(rp), "--left-on", "name", "--right-on", "title"]
    argv += ["-m", str(tiny_model_dir), "--scheduler", client.scheduler.address, "-q"]
    out = tmp_path / name
    assert main([*argv, "-o", str(out)]) == 0
    assert out.is_file()  # not a folder of parts
    joined = pd.read_parquet(out) if name.endswith(".parquet") else pd.read_csv(out)
    assert sorted(joined.lid.tolist()) == list(range(len(left)))
    assert not list(tmp_path.glob(".*parts"))  # the parts were removed
    err = capsys.readouterr().err
    assert "INFO distributed" not in err and "wrote" not in err  # -q, and Dask at WARNING


def test_the_client_of_a_dask_join_does_not_load_the_model(
    client, tiny_model_dir, tmp_path, monkeypatch
):
    # the workers run the model; the client only picks the matcher's weights, by the
    # folder's fingerprint (loading the transformer there cost 7 of a 23 s 4-row join)
    import pearl.distributed.graph as graph
    import pearl.tables.encoding as encoding

    def refuse(*args, **kwargs):
        raise AssertionError("the client built the encoder")

    monkeypatch.setattr(encoding, "get_encoder", refuse)
    monkeypatch.setattr(graph, "get_encoder", refuse, raising=False)
    left, right, lp, rp = _parquet(tmp_path)
    out = pdk.join_to_parquet(
        lp,
        rp,
        tmp_path / "out",
        left_on="name",
        right_on="title",
        model=str(tiny_model_dir),
        show_progress_bar=False,
    )
    assert sorted(pd.read_parquet(out).lid.tolist()) == list(range(len(left)))


def test_pearl_imports_and_works_without_dask():
    code = (
        "import sys, pearl, pandas as pd; "
        "assert not any(m == 'dask' or m.startswith('dask.') for m in sys.modules); "
        "print('ok')"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stderr


def test_bad_arguments_are_named(tiny_model_dir):
    left, right = tables()
    with pytest.raises(TypeError, match="dask DataFrame"):
        pdk.fuzzy_join(left, right, "name", "title")
    with pytest.raises(KeyError, match="nope"):
        pdk.fuzzy_join(
            dd.from_pandas(left, npartitions=1),
            dd.from_pandas(right, npartitions=1),
            "nope",
            "title",
        )
    with pytest.raises(TypeError, match="right_shards"):
        pdk.fuzzy_join(
            dd.from_pandas(left, npartitions=1),
            dd.from_pandas(right, npartitions=1),
            "name",
            "title",
            right_shards=1.5,
        )


@pytest.mark.integration
def test_packaged_minilm_on_a_few_thousand_rows(client, tmp_path):
    rng = np.random.default_rng(0)
    words = [
        "north",
        "south",
        "river",
        "bank",
        "trust",
        "media",
        "group",
        "city",
        "union",
        "global",
        "first",
        "national",
        "energy",
        "foods",
        "motors",
        "labs",
    ]
    right = pd.DataFrame(
        {
            "title": list(
                dict.fromkeys(" ".join(rng.choice(words, 3)) + " inc" for _ in range(3000))
            )[:1000]
        }
    )
    left = pd.DataFrame(
        {
            "name": [
                right.title[i % len(right)].replace(" inc", " incorporated") for i in range(3000)
            ]
        }
    )
    single = pearl.fuzzy_join(
        left, right, left_on="name", right_on="title", model="all-MiniLM-L6-v2"
    )
    out = pdk.fuzzy_join(
        dd.from_pandas(left, npartitions=6),
        dd.from_pandas(right, npartitions=2),
        "name",
        "title",
        model="all-MiniLM-L6-v2",
    ).compute()
    pd.testing.assert_frame_equal(out.reset_index(drop=True), single, check_dtype=False, rtol=1e-4)


def test_hnsw_shards_find_the_exact_matches_on_a_small_table(client, tiny_model_dir):
    left, right = tables()
    ldd, rdd = dd.from_pandas(left, npartitions=2), dd.from_pandas(right, npartitions=2)
    exact = pdk.fuzzy_join(ldd, rdd, "name", "title", model=str(tiny_model_dir)).compute()
    approx = pdk.fuzzy_join(
        ldd, rdd, "name", "title", model=str(tiny_model_dir), index="hnsw", right_shards=2
    ).compute()
    assert (approx.rid.fillna("") == exact.rid.fillna("")).mean() >= 0.95
    np.testing.assert_allclose(approx.match_score, exact.match_score, rtol=1e-4)


@pytest.mark.parametrize(
    "top_k,margin", [(2, None), (1, (0.5, 2.0, 0.0, 3.0)), (2, (0.5, 2.0, 0.0, 3.0))]
)
def test_combined_matcher_on_one_shard_equals_the_single_process_join(
    client, tiny_model_dir, top_k, margin
):
    # with a margin model, the probability of a match reads its runner-up: the shards
    # must keep one candidate more than top_k
    from pearl.tables.matcher import MatchScorer

    scorer = MatchScorer((4.0, 6.0, 0.0), -5.0, "test", margin=margin)
    left, right = tables()
    single = pearl.fuzzy_join(
        left,
        right,
        left_on="name",
        right_on="title",
        top_k=top_k,
        model=str(tiny_model_dir),
        matcher=scorer,
    )
    out = _dask_join(left, right, model=str(tiny_model_dir), top_k=top_k, matcher=scorer)
    pd.testing.assert_frame_equal(out.reset_index(drop=True), single, check_dtype=False, rtol=1e-5)


def test_numbered_names_are_ranked_alike_on_dask(client, tiny_model_dir):
    # a candidate whose numbers differ from its query's is capped and ranked last, in
    # each partition as in one process (the partition passes its queries along)
    from pearl.tables.matcher import MatchScorer
    from pearl.tables.numbers import NUMBERED_APART

    scorer = MatchScorer((4.0, 6.0, 0.0), -5.0, "test", margin=(0.5, 2.0, 0.0, 3.0))
    words = ("alpha", "bravo", "charlie", "delta", "echo")
    right = pd.DataFrame({"title": [f"{w} {i} club" for w in words for i in range(1, 7)]})
    left = pd.DataFrame({"name": [f"{w} {i} clubs" for w in words for i in (1, 5, 9)]})
    kw = dict(model=str(tiny_model_dir), matcher=scorer, top_k=2, threshold=0)
    single = pearl.fuzzy_join(left, right, left_on="name", right_on="title", **kw)
    out = _dask_join(left, right, **kw)
    pd.testing.assert_frame_equal(out.reset_index(drop=True), single, check_dtype=False, rtol=1e-5)
    nines = single[single["name"].str.contains(" 9 ")]
    assert (nines["match_score"] <= np.float32(NUMBERED_APART)).all()  # no club 9 exists


def _worker_settings():
    import torch

    return (
        {
            k: os.environ.get(k)
            for k in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "OMP_NUM_THREADS")
        },
        torch.get_num_threads(),
    )


def test_workers_get_their_threads_and_a_dynamic_size_mmap_threshold(client):
    # any malloc threshold in the environment (Dask sets one) freezes glibc's mmap threshold
    # at 128 kB unless MALLOC_MMAP_THRESHOLD_ is given too: tensor buffers then page-fault
    for env, threads in client.run(_worker_settings).values():
        assert env == {
            "MALLOC_MMAP_THRESHOLD_": str(1 << 25),
            "MALLOC_TRIM_THRESHOLD_": str(1 << 28),
            "OMP_NUM_THREADS": "1",
        }
        assert threads == 1


def test_deduplicate_equals_the_single_process_deduplicate(client, hash_encoder):
    names = ["Acme Inc", "Acme Inc", "Acme Inc.", "ACME inc", "Globex", "Globex Corp", None]
    names += ["Initech", "Initech", "Initech LLC", "Umbrella", 42]
    df = pd.DataFrame({"company": names * 3, "n": range(3 * len(names))})
    ddf = dd.from_pandas(df, npartitions=4)
    got = pdk.deduplicate(ddf, "company", model=hash_encoder, threshold=0.5).compute()
    want = pearl.deduplicate(df["company"], model=hash_encoder, threshold=0.5)
    assert got.index.equals(df.index)
    assert got.tolist() == want.tolist()  # no tie between equally frequent spellings here
    assert got.isna().sum() == 3 and "42" in set(got)
    with pytest.raises(KeyError, match="nope"):
        pdk.deduplicate(ddf, "nope", model=hash_encoder)
    # a list of one column, as the Dask join takes its key; several: a clear error (was
    # "TypeError: unhashable type: 'list'")
    one = pdk.deduplicate(ddf, ["company"], model=hash_encoder, threshold=0.5).compute()
    assert one.tolist() == got.tolist()
    with pytest.raises(ValueError, match=r"one column.*in one process"):
        pdk.deduplicate(ddf, ["company", "n"], model=hash_encoder)


def test_the_dask_join_takes_one_key_column_and_checks_options_first(tiny_model_dir):
    import dask.dataframe as dd

    left, right = tables()
    left["city"] = right["city"] = "x"
    ld, rd = dd.from_pandas(left, npartitions=2), dd.from_pandas(right, npartitions=1)
    with pytest.raises(ValueError, match="one key column.*in one process"):
        pdk.fuzzy_join(ld, rd, ["name", "city"], ["title", "city"], model=str(tiny_model_dir))
    with pytest.raises(ValueError, match="one key column"):  # on=, as pearl.fuzzy_join
        pdk.fuzzy_join(ld, rd.rename(columns={"title": "name"}), on=["name", "city"])
    with pytest.raises(ValueError, match="how"):
        pdk.fuzzy_join(ld, rd, "name", "title", how="outer", model=str(tiny_model_dir))
    with pytest.raises(ValueError, match="on= .*or left_on= and right_on="):
        pdk.fuzzy_join(ld, rd, model=str(tiny_model_dir))


def test_the_dask_join_takes_on_and_a_list_of_one_key(tiny_model_dir):
    import dask.dataframe as dd

    left, right = tables()
    right = right.rename(columns={"title": "name"})
    ld, rd = dd.from_pandas(left, npartitions=2), dd.from_pandas(right, npartitions=1)
    want = pearl.fuzzy_join(left, right, on="name", model=str(tiny_model_dir))
    for keys in ({"on": "name"}, {"on": ["name"]}, {"left_on": ["name"], "right_on": "name"}):
        got = pdk.fuzzy_join(ld, rd, model=str(tiny_model_dir), **keys).compute()
        pd.testing.assert_frame_equal(got.reset_index(drop=True), want, check_dtype=False)


def test_cli_refuses_several_keys_on_dask_before_a_cluster_starts(tmp_path, monkeypatch, capsys):
    import pearl.cli.tables as cli_tables

    def no_cluster(args):
        raise AssertionError("a cluster was started")

    monkeypatch.setattr(cli_tables, "dask_client", no_cluster)
    left = tmp_path / "l.csv"
    left.write_text("name,city\nApple,Paris\n", encoding="utf-8")
    args = ["join", str(left), str(left), "--on", "name", "city", "-o", str(tmp_path / "o")]
    assert main([*args, "--workers", "1"]) != 0
    assert "one key column" in capsys.readouterr().err


def test_precision_chooses_one_threshold_over_every_partition(client, tiny_model_dir, tmp_path):
    from pearl.tables.matcher import MatchScorer

    scorer = MatchScorer((4.0, 6.0, 0.0), -5.0, "test")
    left, right = tables()
    single = pearl.fuzzy_join(
        left,
        right,
        left_on="name",
        right_on="title",
        model=str(tiny_model_dir),
        matcher=scorer,
        precision=0.9,
    )
    assert single["title"].isna().any() and single["title"].notna().any()  # a real cut
    out = _dask_join(left, right, model=str(tiny_model_dir), matcher=scorer, precision=0.9)
    pd.testing.assert_frame_equal(out.reset_index(drop=True), single, check_dtype=False, rtol=1e-5)
    with pytest.raises(ValueError, match="precision"):
        pdk.fuzzy_join(
            dd.from_pandas(left, npartitions=2),
            dd.from_pandas(right, npartitions=2),
            "name",
            "title",
            model=str(tiny_model_dir),
            matcher="cosine",
            precision=0.9,
        )


def test_read_table_decodes_a_csv_strictly(tmp_path):
    # replaced bytes changed the values the output carries; no cluster needed to read
    f = tmp_path / "t.csv"
    f.write_bytes("name\nZürich\n".encode("latin-1"))
    with pytest.raises(UnicodeDecodeError):
        pdk.read_table(f).compute(scheduler="synchronous")
    frame = pdk.read_table(f, encoding="latin-1").compute(scheduler="synchronous")
    assert frame["name"].tolist() == ["Zürich"]


def test_cli_refuses_an_encoding_on_dask(tmp_path, capsys):
    (tmp_path / "l.csv").write_text("name\nx\n", encoding="utf-8")
    argv = ["join", str(tmp_path / "l.csv"), str(tmp_path / "l.csv"), "--on", "name"]
    argv += ["-o", str(tmp_path / "out"), "--workers", "1", "--encoding", "cp1252"]
    assert main(argv) == 2
    assert "--encoding is not offered on Dask" in capsys.readouterr().err


def test_copies_of_a_name_are_no_rivals_on_dask_as_in_one_process(client, tiny_model_dir):
    # the right table lists names[0] twice (rows 0 and 10, in two shards) and "Bravo One
    # Club" beside "bravo one club": each copy was its twin's rival, so an exact match
    # got the probability of a close call
    from pearl.tables.matcher import MatchScorer

    scorer = MatchScorer((4.0, 6.0, 0.0), -5.0, "test", margin=(0.5, 2.0, 0.0, 3.0))
    left, right = tables()
    right.loc[20, "title"] = right.loc[8, "title"].title()
    left.loc[[5, 6], "name"] = [right.loc[0, "title"], right.loc[8, "title"]]
    kw = dict(model=str(tiny_model_dir), matcher=scorer, threshold=0.0)
    single = pearl.fuzzy_join(left, right, left_on="name", right_on="title", **kw)
    alone = pearl.fuzzy_join(
        left, right.drop(index=[10, 20]), left_on="name", right_on="title", **kw
    )
    # each exact query scores as it does against a table that lists its name once
    assert single.loc[[5, 6], "title"].tolist() == left.loc[[5, 6], "name"].tolist()
    np.testing.assert_allclose(
        single.loc[[5, 6], "match_score"], alone.loc[[5, 6], "match_score"], rtol=1e-4
    )
    out = _dask_join(left, right, **kw)
    # which copy is taken is a tie that float noise between shards' batches can turn
    same = ["name", "lid", "title", "match_score"]
    pd.testing.assert_frame_equal(
        out.reset_index(drop=True)[same], single[same], check_dtype=False, rtol=1e-5
    )


@pytest.mark.parametrize(
    "keys, queries",
    [
        (
            ["212-555-0101", "212-555-0102", "310-246-1501", "415-555-2671", "646-555-0199"],
            ["(212) 555 0101", "2125550102", "310 246 1502", "4155552671", None, "646.555.0199"],
        ),
        (
            ["1975-12-03", "1980-01-02", "1990-07-30", "2001-11-11"],
            ["03/12/1975", "1980-01-02", "1990-07-31", "11/11/2001", "2001-11-11", None],
        ),
    ],
)
def test_codes_and_dates_are_compared_normalised_on_dask_as_in_one_process(
    client, tiny_model_dir, keys, queries
):
    from pearl.tables.matcher import MatchScorer

    scorer = MatchScorer((4.0, 6.0, 0.0), -5.0, "test", margin=(0.5, 2.0, 0.0, 3.0))
    right = pd.DataFrame({"title": keys, "rid": range(len(keys))})
    left = pd.DataFrame({"name": queries, "lid": range(len(queries))})
    kw = dict(model=str(tiny_model_dir), matcher=scorer)
    single = pearl.fuzzy_join(left, right, left_on="name", right_on="title", **kw)
    assert single["rid"].notna().sum() >= 3  # written another way, still linked
    out = _dask_join(left, right, **kw).reset_index(drop=True)
    same = ["name", "lid", "title", "rid", "match_score"]
    pd.testing.assert_frame_equal(
        out[same].astype(object).where(out[same].notna(), None),
        single[same].astype(object).where(single[same].notna(), None),
        check_dtype=False,
        rtol=1e-5,
    )


def test_the_tables_decision_on_dask_equals_one_process(client, hash_encoder, monkeypatch):
    """A matcher whose scale does not fit the tables (right partners at 0.1-0.4): the
    decision estimated on the tables links them, on Dask as in one process, with 2
    shards and with 1."""
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "tables"))
    from test_calibration import _names, _variants

    from pearl.tables.matcher import MatchScorer

    rng = np.random.default_rng(0)
    right = pd.DataFrame({"title": _names(300, rng)})
    left = pd.DataFrame({"name": _variants(right.title[:150]) + _names(150, rng)})
    low = MatchScorer((0.6, 1.6, 0.0), -2.5, "test")
    kw = dict(left_on="name", right_on="title", model=hash_encoder, matcher=low)
    single = pearl.fuzzy_join(left, right, **kw)
    assert single.title.notna().sum() >= 140  # the matcher alone: none at 0.5
    for shards in (1, 2):
        out = pdk.fuzzy_join(
            dd.from_pandas(left, npartitions=3),
            dd.from_pandas(right, npartitions=2),
            right_shards=shards,
            **kw,
        ).compute()
        pd.testing.assert_frame_equal(
            out.reset_index(drop=True), single, check_dtype=False, rtol=1e-5
        )
    with_precision = pdk.fuzzy_join(
        dd.from_pandas(left, npartitions=3), dd.from_pandas(right, npartitions=2),
        precision=0.9, **kw,
    ).compute()  # fmt: skip
    pd.testing.assert_frame_equal(
        with_precision.reset_index(drop=True),
        pearl.fuzzy_join(left, right, precision=0.9, **kw),
        check_dtype=False,
        rtol=1e-5,
    )
