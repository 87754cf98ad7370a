import numpy as np
import pandas as pd
import polars as pl
import pytest

from pearl import fuzzy_join

LEFT = pd.DataFrame(
    {"name": ["acme corp", "globex inc", None, "initech llc", 1984, "zzz"], "v": range(6)}
)
RIGHT = pd.DataFrame(
    {
        "title": [
            "Acme Corporation",
            "Globex Incorporated",
            "Initech LLC",
            None,
            "1984",
            "umbrella",
        ],
        "v": list("abcdef"),
    }
)


def test_left_join_keeps_rows_and_scores(hash_encoder):
    out = fuzzy_join(LEFT, RIGHT, "name", "title", model=hash_encoder)
    assert len(out) == len(LEFT)
    assert list(out.columns) == ["name", "v", "title", "v_right", "match_score"]
    assert out.loc[0, "title"] == "Acme Corporation"
    assert out.loc[3, "title"] == "Initech LLC"
    assert out.loc[4, "title"] == "1984"  # number matched through str()
    assert pd.isna(out.loc[2, "title"]) and pd.isna(out.loc[2, "match_score"])  # null key
    assert (out["title"].dropna() != "").all()  # the null right key is never matched


def test_threshold_left_vs_inner(hash_encoder):
    left = fuzzy_join(LEFT, RIGHT, "name", "title", threshold=0.5, model=hash_encoder)
    inner = fuzzy_join(LEFT, RIGHT, "name", "title", threshold=0.5, how="inner", model=hash_encoder)
    assert len(left) == len(LEFT)
    assert pd.isna(left.loc[5, "title"])  # "zzz" has no match above 0.5
    assert len(inner) == left["match_score"].notna().sum()
    assert (inner["match_score"] >= 0.5).all()


def test_top_k_rows_and_ranks(hash_encoder):
    out = fuzzy_join(
        LEFT.iloc[:2], RIGHT, "name", "title", top_k=3, model=hash_encoder, threshold=0
    )
    assert list(out["match_rank"]) == [1, 2, 3, 1, 2, 3]
    assert out.groupby("name")["match_score"].apply(lambda s: s.is_monotonic_decreasing).all()


def test_streamed_right_equals_one_shot(hash_encoder):
    one = fuzzy_join(LEFT, RIGHT, "name", "title", top_k=2, model=hash_encoder)
    chunks = [RIGHT.iloc[i : i + 2] for i in range(0, len(RIGHT), 2)]
    streamed = fuzzy_join(LEFT, iter(chunks), "name", "title", top_k=2, model=hash_encoder)
    by_size = fuzzy_join(
        LEFT, RIGHT, "name", "title", top_k=2, model=hash_encoder, right_chunksize=1
    )
    pd.testing.assert_frame_equal(one, streamed)
    pd.testing.assert_frame_equal(one, by_size)


def test_duplicate_keys(hash_encoder):
    left = pd.DataFrame({"k": ["acme", "acme"]})
    right = pd.DataFrame({"k": ["acme", "acme", "other"], "id": [1, 2, 3]})
    out = fuzzy_join(left, right, "k", "k", model=hash_encoder, threshold=0)
    assert list(out["id"]) == [1, 1]  # ties go to the first right row, deterministically
    assert "k_right" in out.columns


def test_empty_tables(hash_encoder):
    out = fuzzy_join(LEFT.iloc[:0], RIGHT, "name", "title", model=hash_encoder)
    assert len(out) == 0 and "match_score" in out.columns
    out = fuzzy_join(LEFT, RIGHT.iloc[:0], "name", "title", model=hash_encoder)
    assert len(out) == len(LEFT) and out["match_score"].isna().all()
    allnull = pd.DataFrame({"title": [None, None]})
    out = fuzzy_join(LEFT, allnull, "name", "title", model=hash_encoder)
    assert out["match_score"].isna().all()


def test_polars_in_polars_out(hash_encoder):
    out = fuzzy_join(
        pl.from_pandas(LEFT.astype({"name": str})),
        pl.from_pandas(RIGHT),
        "name",
        "title",
        model=hash_encoder,
    )
    assert isinstance(out, pl.DataFrame) and out.height == len(LEFT)


def test_errors(hash_encoder):
    with pytest.raises(KeyError, match="no column 'nope'"):
        fuzzy_join(LEFT, RIGHT, "nope", "title", model=hash_encoder)
    with pytest.raises(KeyError, match="right has no column"):
        fuzzy_join(LEFT, RIGHT, "name", "nope", model=hash_encoder)
    with pytest.raises(ValueError, match="how"):
        fuzzy_join(LEFT, RIGHT, "name", "title", how="outer", model=hash_encoder)
    with pytest.raises(ValueError, match="threshold"):
        fuzzy_join(LEFT, RIGHT, "name", "title", threshold=2, model=hash_encoder)
    with pytest.raises(TypeError, match="pandas, polars"):
        fuzzy_join([1, 2], RIGHT, "name", "title", model=hash_encoder)
    with pytest.raises(ValueError, match=r"\[0\] is list"):
        fuzzy_join(pd.DataFrame({"name": [["a"]]}), RIGHT, "name", "title", model=hash_encoder)


def test_cli_join_refuses_bytes_that_do_not_decode(tiny_model_dir, tmp_path, capsys):
    # row 1 is UTF-8, row 2 a stray latin-1 byte: replacing it wrote "M\ufffdnchen" into
    # the output's own column (and made "München" and "Münzen" one value); now a clear
    # error names --encoding, and --encoding latin-1 reads every byte
    from pearl.cli import main

    (tmp_path / "l.csv").write_bytes(b"name\nCaf\xc3\xa9 Central\nM\xfcnchen\n")
    (tmp_path / "r.csv").write_text("title,id\nCafe Central,1\nMunich,2\n", encoding="utf-8")
    argv = ["join", str(tmp_path / "l.csv"), str(tmp_path / "r.csv"), "--left-on", "name"]
    argv += ["--right-on", "title", "-o", str(tmp_path / "j.csv"), "-m", str(tiny_model_dir)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "l.csv is not utf-8 text" in err and "--encoding" in err and "0xfc" in err
    assert not (tmp_path / "j.csv").exists()
    assert main([*argv, "--encoding", "latin-1"]) == 0
    out = pd.read_csv(tmp_path / "j.csv")
    assert out["name"].tolist() == ["CafÃ© Central", "München"]  # nothing replaced
    with pytest.raises(SystemExit):  # argparse's usage error
        main([*argv, "--encoding", "no-such-codec"])
    assert "unknown encoding 'no-such-codec'" in capsys.readouterr().err
    argv = ["join", str(tmp_path / "x.csv"), str(tmp_path / "r.csv"), "--left-on", "a"]
    assert main([*argv, "--right-on", "b", "-o", str(tmp_path / "o.csv")]) == 2


def test_cli_streamed_right_table_that_does_not_decode(tiny_model_dir, tmp_path, capsys):
    # the right CSV is read a chunk at a time: a bad byte in a later chunk fails clearly
    from pearl.cli import main

    (tmp_path / "l.csv").write_text("name\nMunich\n", encoding="utf-8")
    rows = b"".join(b"city %d,%d\n" % (i, i) for i in range(50)) + b"M\xfcnchen,50\n"
    (tmp_path / "r.csv").write_bytes(b"title,id\n" + rows)
    argv = ["join", str(tmp_path / "l.csv"), str(tmp_path / "r.csv"), "--left-on", "name"]
    argv += ["--right-on", "title", "-o", str(tmp_path / "j.csv"), "-m", str(tiny_model_dir)]
    assert main([*argv, "--right-chunksize", "10"]) == 2
    assert "r.csv is not utf-8 text" in capsys.readouterr().err
    assert main([*argv, "--right-chunksize", "10", "--encoding", "cp1252"]) == 0
    assert len(pd.read_csv(tmp_path / "j.csv")) == 1


def test_whole_floats_match_their_integers(hash_encoder):
    # pandas keeps integers with a missing value as floats: 1984.0 read as "1984.0" never
    # equalled the other table's 1984
    left = pd.DataFrame({"year": [1984.0, None, 2001.0]})
    right = pd.DataFrame({"year": [2001, 1984, 1999]})
    out = fuzzy_join(left, right, on="year", model=hash_encoder, matcher="cosine")
    assert out["year_right"].tolist()[::2] == [1984, 2001]
    assert out["match_score"].iloc[0] == pytest.approx(1.0)
    from pearl.tables.encoding import to_string_list

    texts, _ = to_string_list([1.0, 2.5, float("inf"), 1e300, 7, True], non_string="str")
    assert texts == ["1", "2.5", "inf", "1e+300", "7", "True"]


def test_all_null_left_column(hash_encoder):
    left = pd.DataFrame({"name": [None, float("nan")], "v": [1, 2]})
    out = fuzzy_join(left, RIGHT, "name", "title", model=hash_encoder)
    assert len(out) == 2 and out["title"].isna().all()
    assert len(fuzzy_join(left, RIGHT, "name", "title", how="inner", model=hash_encoder)) == 0


@pytest.mark.integration
def test_a_one_row_reference_does_not_match_everything():
    # the probability of a best candidate read its lead over a runner-up; with one row
    # there is none, and "no rival" gave every left row a probability near 1
    left = pd.DataFrame({"name": ["The New York Times", "Boston Globe", "le monde"]})
    out = fuzzy_join(
        left,
        pd.DataFrame({"title": ["Le Monde"]}),
        on=None,
        left_on="name",
        right_on="title",
        model="all-MiniLM-L6-v2",
        threshold=0,
    )
    p = dict(zip(out["name"], out["match_score"], strict=True))
    assert p["The New York Times"] < 0.5 and p["Boston Globe"] < 0.5
    assert p["le monde"] > 0.9


def test_key_names_may_come_as_an_array(hash_encoder):
    import numpy as np

    left = pd.DataFrame({"a": ["acme corp", "globex"], "b": ["x", "y"]})
    right = pd.DataFrame({"c": ["Acme Corporation", "Globex"], "d": ["x", "y"]})
    as_list = fuzzy_join(left, right, left_on=["a", "b"], right_on=["c", "d"], model=hash_encoder)
    as_array = fuzzy_join(
        left, right, left_on=np.array(["a", "b"]), right_on=pd.Index(["c", "d"]), model=hash_encoder
    )
    pd.testing.assert_frame_equal(as_array, as_list)
    one = fuzzy_join(left, right, left_on=np.array(["a"]), right_on=["c"], model=hash_encoder)
    assert list(one["c"]) == ["Acme Corporation", "Globex"]


def test_a_repeated_right_key_is_encoded_once(hash_encoder):
    from pearl.tables import clear_caches

    clear_caches()  # the left keys may be in the process cache from another test
    left = pd.DataFrame({"name": ["acme corp", "globex", "initech"]})
    right = pd.DataFrame({"name": ["acme corporation", "globex inc"] * 50 + ["initech llc"]})
    out = fuzzy_join(left, right, on="name", model=hash_encoder, matcher="cosine")
    # 3 distinct left keys and 3 distinct right keys: 6 strings, not 3 + 101
    assert hash_encoder.calls == 6
    assert list(out["name_right"]) == ["acme corporation", "globex inc", "initech llc"]


def test_a_large_reference_is_searched_approximately_with_the_same_matches(
    hash_encoder, monkeypatch
):
    import random

    from pearl.tables import join, search

    rng = random.Random(0)
    names = sorted({"".join(rng.choice("abcdefghij") for _ in range(9)) for _ in range(300)})
    right = pd.DataFrame({"name": names})
    left = pd.DataFrame({"q": [n[:4] + n[5:] for n in names[:60]]})  # one letter dropped
    exact = fuzzy_join(left, right, left_on="q", right_on="name", model=hash_encoder)
    made = []
    for name in ("_hnsw", "_sketch_index"):
        real = getattr(search, name)
        monkeypatch.setattr(search, name, lambda *a, _r=real, _n=name: made.append(_n) or _r(*a))
    monkeypatch.setattr(join, "REFERENCE_EXACT_MAX", 50)  # 300 references: approximate
    monkeypatch.setattr(search, "EXACT_QUERIES", 10)  # and 60 queries are many
    approx = fuzzy_join(left, right, left_on="q", right_on="name", model=hash_encoder)
    assert sorted(set(made)) == ["_hnsw", "_sketch_index"]
    assert (exact["name"] == names[:60]).all()
    assert (approx["name"] == exact["name"]).mean() >= 0.95


def test_each_distinct_left_key_is_searched_once(hash_encoder, monkeypatch):
    from pearl.tables.reference import Reference

    seen = []
    real = Reference.rank_evidence

    def spy(self, queries, *args, **kwargs):
        seen.append(list(queries))
        return real(self, queries, *args, **kwargs)

    monkeypatch.setattr(Reference, "rank_evidence", spy)
    left = pd.DataFrame({"k": ["Paris", "Londn", "Paris", None, "Londn", "Paris"]})
    right = pd.DataFrame({"k": ["London", "Paris", "Berlin"], "id": [1, 2, 3]})
    out = fuzzy_join(left, right, on="k", model=hash_encoder, threshold=0.0)
    assert seen == [["Paris", "Londn"]]
    assert out["k_right"].tolist()[:3] == [out["k_right"][0], out["k_right"][1], out["k_right"][0]]
    assert out["match_score"].tolist()[5] == out["match_score"].tolist()[0]
    assert out["k_right"].isna().tolist()[3]


def test_a_huge_query_list_is_encoded_outside_the_process_cache(hash_encoder, monkeypatch):
    import pearl.tables.encoding as encoding

    queries = ["alpha", "beta", "gamma"]
    encoding.clear_caches(models=False)
    monkeypatch.setattr(encoding, "QUERY_CACHE_MAX", 2)
    big = encoding.query_vectors(queries, hash_encoder, 64)
    assert encoding.get_cache(hash_encoder).n_encoded == 0  # nothing kept twice
    monkeypatch.setattr(encoding, "QUERY_CACHE_MAX", 10)
    small = encoding.query_vectors(queries, hash_encoder, 64)
    assert encoding.get_cache(hash_encoder).n_encoded == 3
    np.testing.assert_allclose(big, small, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(big, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("copy", ["new york", "New York", "new  york ", "NEW YORK"])
def test_a_reference_name_listed_twice_is_no_rival_to_itself(hash_encoder, copy):
    # a match's probability reads its lead over the best other candidate: with "New
    # York" listed twice (or as "new york") an exact match got 0.52, a typo 0.16, where
    # a table listing it once gives 0.99 and 0.83; the typo then fell below threshold
    left = pd.DataFrame({"city": ["New York", "new yrok", "Boston"]})
    once = pd.DataFrame({"city": ["New York", "Boston", "Paris", "Berlin", "Madrid"]})
    twice = pd.concat([once, pd.DataFrame({"city": [copy]})], ignore_index=True)
    a = fuzzy_join(left, once, on="city", model=hash_encoder, threshold=0.0)
    b = fuzzy_join(left, twice, on="city", model=hash_encoder, threshold=0.0)
    assert b["city_right"].str.casefold().str.split().str.join(" ").tolist() == [
        "new york",
        "new york",
        "boston",
    ]
    assert a["match_score"].iloc[0] > 0.9
    np.testing.assert_allclose(b["match_score"].iloc[[0, 2]], a["match_score"].iloc[[0, 2]])
    # the typo's n-gram weights move with the table's words, not its lead over a twin
    assert b["match_score"].iloc[1] == pytest.approx(a["match_score"].iloc[1], abs=0.1)


def test_name_ids_are_equal_for_one_name_written_in_other_cases_and_spaces():
    from pearl.tables.matcher import name_ids, names_of_texts

    assert name_ids(["New York", "new  york ", "NEW YORK", "Boston", "New-York"]).tolist() == [
        0,
        0,
        0,
        1,
        2,
    ]
    assert name_ids([]).tolist() == []
    assert name_ids(["Jos\u00e9", "Jose\u0301", "Jose"]).tolist() == [0, 0, 1]  # one "é"
    ids = np.array([[2, 0, -1], [1, 2, 0]])
    names = names_of_texts(ids, ["a", "B", "b ", "c"])  # row 3 is no candidate
    assert names[0, 0] == names[1, 0] == names[1, 1] != names[0, 1] and names[0, 2] == -1


def test_a_key_of_codes_numbers_or_dates_is_compared_by_its_value(hash_encoder, tmp_path):
    # a phone written another way was another string: "212 555 0101" never met
    # "2125550101" (their digit runs differ, so the numbers rule kept them apart), and a
    # date in another format was scored as text
    left = pd.DataFrame({"phone": ["(310) 246-1501", "212 555 0101", "+1 415 555 0199", None]})
    right = pd.DataFrame({"phone": ["310-246-1501", "2125550101", "415 555 0198"], "i": [0, 1, 2]})
    out = fuzzy_join(left, right, on="phone", model=hash_encoder, threshold=0)
    assert out["i"].tolist()[:2] == [0, 1] and (out["match_score"][:2] > 0.9).all()
    # one digit off: another phone
    assert out["match_score"][2] <= np.float32(0.05) and out["match_score"].isna()[3]
    assert out["phone"].tolist()[:3] == left["phone"].tolist()[:3]  # the values as given
    assert fuzzy_join(left, right, on="phone", model=hash_encoder)["i"].isna().tolist() == [
        False,
        False,
        True,
        True,
    ]
    # the same through a streamed right table (the CLI reads a CSV in chunks)
    chunks = fuzzy_join(left, right, on="phone", model=hash_encoder, right_chunksize=1)
    assert chunks["i"].tolist()[:2] == [0, 1]
    # dates: equal days in any of the column's formats; another day (the same numbers in
    # another order) is no match
    left = pd.DataFrame({"d": ["1975-03-12", "1980-07-02", "1999-12-31"]})
    right = pd.DataFrame({"d": ["12/03/1975", "02/07/1980", "31/12/1999", "03/12/1975"]})
    out = fuzzy_join(left, right, on="d", model=hash_encoder)
    assert out["d_right"].tolist() == ["12/03/1975", "02/07/1980", "31/12/1999"]
    # numbers: 34 and "34.0" are one value
    out = fuzzy_join(
        pd.DataFrame({"n": ["34", "35.5"]}),
        pd.DataFrame({"n": [34.0, 35.0]}),
        on="n",
        model=hash_encoder,
        threshold=0,
    )
    assert out["n_right"][0] == 34.0 and out["match_score"][1] <= np.float32(0.05)
    # text keys, and the cosine matcher, read the keys as they are
    out = fuzzy_join(left, right, on="d", model=hash_encoder, matcher="cosine")
    assert out["match_score"].lt(0.999).any()


def test_a_blank_key_is_a_value_that_matches_nothing_by_default(hash_encoder):
    from pearl import EntityIndex

    left = pd.DataFrame({"k": ["", "   ", "Paris"]})
    right = pd.DataFrame({"k": ["Paris", "London"]})
    out = fuzzy_join(left, right, on="k", model=hash_encoder)
    assert out["k_right"].isna().tolist() == [True, True, False]
    low = fuzzy_join(left, right, on="k", model=hash_encoder, threshold=0)
    assert (low["match_score"][:2] < 0.5).all() and low["k_right"].notna().all()
    got = EntityIndex(hash_encoder).build(["Paris", "London"]).search(["", "paris"], top_k=1)
    assert got.scores[0, 0] < 0.5 < got.scores[1, 0]


def test_a_typo_of_one_reference_name_is_matched_at_the_floor(hash_encoder):
    # a one-letter slip in a name of a small lookup table was left unmatched (0.19-0.65
    # with pearl-static); the best candidate a typo of its query, and no other name one,
    # is matched with at least TYPO_FLOOR's probability
    from pearl.tables.matcher import TYPO_FLOOR

    right = pd.DataFrame({"name": ["Microsoft", "Google LLC", "Amazon", "Apple", "Micrasoft"]})
    left = pd.DataFrame({"q": ["Microsfot", "Googel LLC", "Micrxsoft", "Amazn"]})
    out = fuzzy_join(left, right, left_on="q", right_on="name", model=hash_encoder, threshold=0)
    score = dict(zip(out["q"], out["match_score"], strict=True))
    assert out["name"][0] == "Microsoft" and score["Microsfot"] >= np.float32(TYPO_FLOOR[0])
    assert score["Googel LLC"] >= np.float32(TYPO_FLOOR[0])
    assert score["Micrxsoft"] < np.float32(TYPO_FLOOR[0])  # two names one slip away
    assert score["Amazn"] < np.float32(TYPO_FLOOR[0])  # under 6 letters: no floor
    # a typo of a code, number or date is another value: no floor
    codes = fuzzy_join(
        pd.DataFrame({"id": ["AB123456"]}),
        pd.DataFrame({"id": ["AB123457", "ZZ999999"]}),
        on="id",
        model=hash_encoder,
        threshold=0,
    )
    assert codes["match_score"][0] < np.float32(TYPO_FLOOR[0])
