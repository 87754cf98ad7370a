import random

import numpy as np
import pandas as pd
import pytest

from pearl import PearlWarning, fuzzy_join
from pearl._validation import InputTypeError
from pearl.tables.record_linkage import FellegiSunter, field_kind, link_tables

FIRST = ["anna", "john", "maria", "peter", "lucy", "omar", "chen", "sara", "ivan", "nina"]
LAST = ["smith", "garcia", "muller", "kowalski", "nguyen", "okafor", "rossi", "berg"]
CITY = ["paris", "lyon", "berlin", "madrid", "oslo", "rome"]


def _typo(s: str, rng: random.Random) -> str:
    i = rng.randrange(len(s))
    return s[:i] + s[i + 1 :] if len(s) > 3 else s + "e"


def _people(n: int = 80, seed: int = 0):
    """A left table and a right table of the same people (shuffled, with typos, nulls
    and a few distractors); the true right id of each left row."""
    rng = random.Random(seed)
    rows = [
        {
            "first": rng.choice(FIRST),
            "last": rng.choice(LAST),
            "city": rng.choice(CITY),
            "born": pd.Timestamp("1950-01-01") + pd.Timedelta(days=rng.randrange(20000)),
            "zip": rng.randrange(10000, 99999),
        }
        for _ in range(n)
    ]
    left = pd.DataFrame(rows)
    right = left.copy()
    for i in range(n):
        if i % 3 == 0:
            right.loc[i, "last"] = _typo(right.loc[i, "last"], rng)
        if i % 5 == 0:
            right.loc[i, "city"] = None
    order = list(range(n))
    rng.shuffle(order)
    right = right.iloc[order].reset_index(drop=True)
    right["rid"] = [f"r{j}" for j in order]
    truth = [f"r{i}" for i in range(n)]
    return left, right, truth


def test_multi_column_join_finds_people_despite_typos_and_nulls(hash_encoder):
    left, right, truth = _people()
    keys = ["first", "last", "city", "born", "zip"]
    out = fuzzy_join(left, right, left_on=keys, right_on=keys, model=hash_encoder)
    assert len(out) == len(left)
    assert (out["rid"] == truth).mean() == 1.0
    assert out["match_score"].between(0, 1).all()
    # a name alone is ambiguous here (10 first names x 8 last names for 80 people)
    by_name = fuzzy_join(left, right, left_on="first", right_on="first", model=hash_encoder)
    assert (by_name["rid"] == truth).mean() < 0.5


def test_threshold_precision_and_inner(hash_encoder):
    left, right, truth = _people()
    keys = ["first", "last", "city", "born", "zip"]
    stranger = pd.DataFrame(
        [
            {
                "first": "zed",
                "last": "quux",
                "city": "lima",
                "born": pd.Timestamp("1900-01-01"),
                "zip": 1,
            }
        ]
    )
    both = pd.concat([left, stranger], ignore_index=True)
    out = fuzzy_join(both, right, on=keys, model=hash_encoder, threshold=0.5, how="inner")
    assert len(out) == len(left) and "zed" not in set(out["first"])
    # the stranger's best candidate would pull the expected precision under 80/81
    precise = fuzzy_join(both, right, on=keys, model=hash_encoder, precision=0.995)
    assert precise["rid"].isna().tolist() == [False] * len(left) + [True]


def test_null_fields_are_missing_evidence_not_mismatches(hash_encoder):
    left, right, truth = _people()
    keys = ["first", "last", "city", "born", "zip"]
    ids, proba, model = link_tables(left, right, keys, keys, encoder=hash_encoder)
    got = right["rid"].to_numpy()[ids[:, 0]]
    rows_with_null_city = [i for i in range(len(left)) if i % 5 == 0]
    assert all(got[i] == truth[i] for i in rows_with_null_city)
    # the model's levels: text 5, dates 4, numbers 3
    assert [len(m) for m in model.m_] == [5, 5, 5, 4, 3]
    # agreement on the last name raises the odds of a match, disagreement lowers them
    ratio = np.log(model.m_[1]) - np.log(model.u_[1])
    assert ratio[4] > 0 > ratio[0]


def test_fellegi_sunter_recovers_m_and_prior():
    rng = np.random.default_rng(0)
    m = [np.array([0.05, 0.15, 0.8]), np.array([0.1, 0.9])]
    u = [np.array([0.8, 0.15, 0.05]), np.array([0.7, 0.3])]

    def draw(probs, n):
        return np.stack([rng.choice(len(p), size=n, p=p) for p in probs], axis=1)

    matches, others = draw(m, 2000), draw(u, 8000)
    gamma = np.concatenate([matches, others])
    gamma[rng.random(gamma.shape) < 0.1] = -1  # missing evidence
    model = FellegiSunter([3, 2]).fit_u(draw(u, 50_000)).fit(gamma, prior=0.5)
    assert abs(model.prior_ - 0.2) < 0.03
    assert np.allclose(model.m_[0], m[0], atol=0.05)
    p = model.predict_proba(np.array([[2, 1], [0, 0], [-1, -1]]))
    assert p[0] > 0.9 > 0.05 > p[1]
    assert p[2] == pytest.approx(model.prior_)  # no evidence: the prior


def test_field_kinds():
    num, date = pd.Series([1, 2]), pd.Series(pd.to_datetime(["2020-01-01", "2021-01-01"]))
    assert field_kind(num, num) == "numeric"
    assert field_kind(date, date) == "date"
    assert field_kind(pd.Series(["a", "b"]), num) == "text"
    assert field_kind(pd.Series([True, False]), pd.Series([True, True])) == "text"
    # text columns are read by their values (a CSV gives every column as text)
    s = pd.Series
    assert field_kind(s(["1975-03-12", "2001-11-30"]), s(["12/03/1975", None])) == "date"
    assert field_kind(s(["310/246-1501", "(212) 555 0100"]), s(["310-246-1501"])) == "code"
    assert field_kind(s(["02139", "10001"]), s(["94110"])) == "code"  # postcodes
    assert field_kind(s(["1975", "2001"]), s(["1999"])) == "numeric"  # years
    assert field_kind(s(["New York", "Paris"]), s(["1975"])) == "text"


def test_codes_are_equal_after_normalisation_and_numbers_close_in_absolute_terms(
    hash_encoder,
):
    left = pd.DataFrame({"name": ["Art's Deli", "Smith & Wollensky"]})
    left["phone"] = ["818/762-1221", "212 753 1530"]
    left["year"] = ["1955", "1980"]
    right = pd.DataFrame({"name": ["Art's Delicatessen", "Wollensky's Grill"]})
    right["phone"] = ["818-762-1221", "212-753-0444"]
    right["year"] = ["1955", "1936"]
    from pearl.tables.comparisons import _levels
    from pearl.tables.record_linkage import _compared_fields

    cols = ["name", "phone", "year"]
    kinds, fields, *_ = _compared_fields(left, right, cols, cols, hash_encoder, None)
    assert kinds == ["text", "code", "numeric"]
    levels = _levels(fields, np.array([0, 1]), np.array([0, 1]))
    assert levels[:, 1].tolist() == [2, 0]  # the same phone written two ways; another
    assert levels[:, 2].tolist() == [2, 0]  # 1980 is not "within 1%" of 1936 any more


def _partnered_people(n: int, share: float = 0.7, seed: int = 0):
    """The linkage issue's synthetic people (the lab's generator,
    :func:`pearl_lab.synthetic.people`): a right table of ``n`` people (first name,
    surname, city, date of birth as text); a left table whose rows are, with probability
    ``share``, a right row with one typo in a name or the city, else a new person; and the
    true right row of each left row (-1: none)."""
    from pearl_lab.synthetic import people

    left, right, pairs = people(n, share=share, seed=seed)
    truth = np.full(n, -1)
    for i, j in pairs:
        truth[i] = j
    return left.drop(columns="rec_id"), right.drop(columns="rec_id"), truth


def _link_scores(out, truth) -> tuple[float, float]:
    pred = out["rid"].fillna(-1).astype(int).to_numpy()
    linked = pred >= 0
    tp = int(((pred == truth) & linked).sum())
    precision = tp / max(int(linked.sum()), 1)
    recall = tp / max(int((truth >= 0).sum()), 1)
    return precision, 2 * precision * recall / max(precision + recall, 1e-9)


@pytest.mark.integration
def test_rows_without_a_partner_stay_unmatched():
    # 30% of the left rows are new people: they used to be linked all the same (300 of
    # 300 at threshold=0.5, EM prior 0.99, m saying matches disagree on the birth date)
    left, right, truth = _partnered_people(1000)
    right["rid"] = range(len(right))
    keys = ["first", "surname", "city", "dob"]
    out = fuzzy_join(left, right, on=keys, model="pearl-static")
    precision, f1 = _link_scores(out, truth)
    assert f1 >= 0.95 and precision >= 0.95
    assert out["rid"][truth < 0].notna().mean() < 0.05
    out = fuzzy_join(left, right, on=keys, model="pearl-static", precision=0.9)
    assert _link_scores(out, truth)[0] >= 0.87


def test_the_prior_never_exceeds_what_the_tables_allow(hash_encoder):
    left, right, _ = _partnered_people(300, share=1.0, seed=1)
    keys = ["first", "surname", "city", "dob"]
    from pearl.tables.blocking import RecordSearch, equal_value_pairs, unique_pairs
    from pearl.tables.record_linkage import _compared_fields

    _, fields = _compared_fields(left, right, keys, keys, hash_encoder, None)
    found = equal_value_pairs(fields, 10) + RecordSearch(fields, hash_encoder, 10).pairs()
    n_pairs = len(unique_pairs(found))
    _, _, model = link_tables(left, right, keys, keys, encoder=hash_encoder)
    assert model.prior_ <= min(len(left), len(right)) / n_pairs + 1e-12


def test_key_lists_are_checked(hash_encoder):
    left, right, _ = _people(10)
    with pytest.raises(ValueError, match="as many columns"):
        fuzzy_join(left, right, left_on=["first", "last"], right_on="first", model=hash_encoder)
    with pytest.raises(ValueError, match="as many columns"):
        fuzzy_join(
            left, right, left_on=["first", "last"], right_on=["first"] * 3, model=hash_encoder
        )
    with pytest.raises(InputTypeError, match="non-empty list"):
        fuzzy_join(left, right, left_on=[], right_on=[], model=hash_encoder)
    with pytest.raises(KeyError, match="nope"):
        fuzzy_join(left, right, on=["first", "nope"], model=hash_encoder)
    with pytest.raises(InputTypeError, match="stream"):
        fuzzy_join(left, iter([right]), on=["first", "last"], model=hash_encoder)
    # a list of one column is that column
    one = fuzzy_join(left, right, on=["first"], model=hash_encoder)
    assert one.equals(fuzzy_join(left, right, on="first", model=hash_encoder))


def test_multi_column_join_keeps_polars(hash_encoder):
    pl = pytest.importorskip("polars")
    left, right, truth = _people(30)
    keys = ["first", "last", "zip"]
    # threshold=0: every row's best candidate (the default leaves a row unmatched below
    # 0.5, as "berg" -> "beg" with three fields and 30 rows: 0.40)
    out = fuzzy_join(
        pl.from_pandas(left), pl.from_pandas(right), on=keys, model=hash_encoder, threshold=0.0
    )
    assert isinstance(out, pl.DataFrame) and out["rid"].to_list() == truth


def test_comparison_levels_of_text_numbers_and_dates(hash_encoder):
    from pearl.tables.comparisons import _numeric_levels, _TextField, embed_fields
    from pearl.tables.dates import _date_levels

    a = pd.Series(["Anna Smith", "anna smith ", None, "", "Bob"])
    b = pd.Series(["anna smith", "Anna Smyth", "x", "x", "Zyx Qwv"])
    field = _TextField(a, b, None)
    embed_fields([field], hash_encoder)
    i = np.arange(5)
    levels = field.levels(i, i)
    assert levels[0] == 4  # equal but for case and spaces
    assert 0 <= levels[1] < 4 and levels[4] < levels[1]  # a typo beats a different name
    assert levels[2] == levels[3] == -1  # null and blank: missing evidence
    x, y = pd.Series([10.0, 100.0, 5.0, None]), pd.Series([10.0, 100.5, 9.0, 1.0])
    assert _numeric_levels(x, y, np.arange(4), np.arange(4)).tolist() == [2, 1, 0, -1]
    d = pd.Series(pd.to_datetime(["2020-01-01", "2020-01-01", "2020-01-01", None]))
    e = pd.Series(pd.to_datetime(["2020-01-01", "2020-01-20", "2023-05-01", "2020-01-01"]))
    assert _date_levels(d, e, np.arange(4), np.arange(4)).tolist() == [3, 1, 0, -1]


def test_a_date_one_digit_apart_is_a_typo_not_a_stranger():
    from pearl.tables.dates import _date_levels

    d = pd.Series(["1962-12-12", "1962-12-12", "1962-12-12", "1962-12-12", "1962-12-12"])
    e = pd.Series(["1962-12-21", "1926-12-12", "1962-12-13", "1962-02-12", "1972-02-12"])
    # swapped digits, swapped digits, one digit (within 31 days too), one digit, two digits
    assert _date_levels(d, e, np.arange(5), np.arange(5)).tolist() == [2, 2, 2, 2, 0]


def test_a_column_of_day_first_dates_is_read_day_first():
    from pearl.tables.dates import _dates

    iso = pd.Series(["1989-07-02", "1975-12-31", "2001-01-13", None])
    want = pd.to_datetime(iso).to_numpy()
    for written in (
        ["02/07/1989", "31/12/1975", "13/01/2001", None],  # day first: 31 and 13 say so
        ["02.07.1989", "31.12.1975", "13.01.2001", ""],
        ["07/02/1989", "12/31/1975", "01/13/2001", None],  # month first: 31 and 13 say so
    ):
        got = _dates(pd.Series(written))
        np.testing.assert_array_equal(got[:3], want[:3])
        assert pd.isna(got[3])
    # nothing says which comes first: month first, as pandas reads it
    assert _dates(pd.Series(["02/07/1989"]))[0] == np.datetime64("1989-02-07")


def test_partners_are_found_when_one_table_writes_dates_day_first(hash_encoder):
    # read month first, every date of a day up to 12 became another date: 2 July 1989
    # became 7 February, and 40% of the partners were lost (recall 0.60)
    left, right, truth = _partnered_people(400)
    right["dob"] = pd.to_datetime(right["dob"]).dt.strftime("%d/%m/%Y")
    keys = ["first", "surname", "city", "dob"]
    out = fuzzy_join(left, right.assign(rid=range(len(right))), on=keys, model=hash_encoder)
    precision, recall = _link_scores(out, truth)
    assert precision >= 0.98 and recall >= 0.98


def test_infinite_numbers_compare_without_a_numpy_warning():
    # inf - inf is NaN: numpy warned "invalid value encountered in subtract" to the user
    import warnings

    from pearl.tables.comparisons import _numeric_levels

    x = pd.Series([np.inf, np.inf, -np.inf, 3.0])
    y = pd.Series([np.inf, 5.0, np.inf, 3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        levels = _numeric_levels(x, y, np.arange(4), np.arange(4))
    assert levels.tolist() == [2, 0, 0, 2]


def test_a_fields_idf_is_the_right_columns_own():
    # each value counted once, weighted by how often the right column holds it
    from pearl.tables.ngrams import NgramVectorizer
    from pearl.tables.record_linkage import _TextField

    left = pd.Series(["acme corp", "beta", None, "acme corp"])
    right = pd.Series(["acme corp", "acme corp", "gamma ltd", None, "beta"])
    field = _TextField(left, right, None)
    cells = [v if isinstance(v, str) else "" for v in right]  # None, or NaN in pandas 3
    want = NgramVectorizer().fit(cells).transform(field.values)
    assert (field.ngrams != want).nnz == 0
    np.testing.assert_array_equal(field.ngrams.data, want.data)


def test_fields_are_embedded_in_one_call_and_records_sum_their_fields(hash_encoder):
    from pearl.encoders.base import normalize_rows
    from pearl.tables.blocking import record_vectors
    from pearl.tables.comparisons import _TextField, embed_fields

    calls = []

    class Counting:
        def encode(self, texts, **kwargs):
            calls.append(list(texts))
            return hash_encoder.encode(texts)

    left = pd.DataFrame({"name": ["Anna", "Paris", None], "city": ["Paris", "Lyon", ""]})
    right = pd.DataFrame({"name": ["Anna", "Bob", "Lyon"], "city": ["Oslo", "Paris", None]})
    fields = [_TextField(left[c], right[c], None) for c in ("name", "city")]
    embed_fields(fields, Counting())
    # one call; "Paris" and "Lyon", values of both fields, embedded once
    assert len(calls) == 1 and sorted(calls[0]) == ["Anna", "Bob", "Lyon", "Oslo", "Paris"]
    unit = dict(zip(calls[0], normalize_rows(hash_encoder.encode(calls[0])), strict=True))
    for tf in fields:  # a missing cell ("") gets a zero row, not an embedding
        want = [unit[v] if v else np.zeros_like(unit["Anna"]) for v in tf.values]
        np.testing.assert_allclose(tf.emb, np.stack(want), atol=1e-6)
    rec = record_vectors(fields, "left")
    np.testing.assert_allclose(rec[0], normalize_rows((unit["Anna"] + unit["Paris"])[None])[0])
    np.testing.assert_allclose(rec[1], normalize_rows((unit["Paris"] + unit["Lyon"])[None])[0])
    assert not rec[2].any()  # every field missing: a zero vector, never NaN
    right_rec = record_vectors(fields, "right")
    np.testing.assert_allclose(right_rec[2], unit["Lyon"], atol=1e-6)  # a missing city


def test_cluster_and_deduplicate_rows_of_a_table(hash_encoder):
    from pearl import cluster, deduplicate

    left, right, _ = _people(40)
    right = right.drop(columns="rid")
    both = pd.concat([left, right], ignore_index=True)  # every person twice
    labels = cluster(both, model=hash_encoder)
    _, with_ids, _ = _people(40)
    person = list(range(40)) + [int(r[1:]) for r in with_ids["rid"]]
    from pearl.evaluation.pairs import pairwise_cluster_scores

    scores = pairwise_cluster_scores(labels, person)
    assert scores["f1"] >= 0.9
    out = deduplicate(both, model=hash_encoder)
    assert list(out.columns) == list(both.columns) and out.index.equals(both.index)
    # each cluster's rows become one of its rows
    for lab in set(labels):
        rows = out[labels == lab].astype(str).drop_duplicates()
        assert len(rows) == 1
    with pytest.raises(ValueError, match="n_clusters"):
        cluster(both, n_clusters=3, model=hash_encoder)


def test_rows_with_every_field_missing_stay_alone(hash_encoder):
    from pearl import cluster

    others = [(f"{f} {ln}", c) for f, ln, c in zip(FIRST * 3, LAST * 4, CITY * 5, strict=False)][
        :24
    ]
    rows = [("anna smith", "oslo"), ("anna smith", "oslo"), (None, None), (None, None), *others]
    labels = cluster(pd.DataFrame(rows, columns=["name", "city"]), model=hash_encoder)
    assert labels[0] == labels[1] and labels[2] == labels[3] == -1
    assert (labels[4:] >= 0).all()


def test_fellegi_sunter_learns_m_from_known_matches_and_fits_only_the_prior():
    rng = np.random.default_rng(1)
    m = [np.array([0.05, 0.15, 0.8]), np.array([0.1, 0.9])]
    u = [np.array([0.8, 0.15, 0.05]), np.array([0.7, 0.3])]

    def draw(probs, n):
        return np.stack([rng.choice(len(p), size=n, p=p) for p in probs], axis=1)

    gamma = np.concatenate([draw(m, 1000), draw(u, 9000)])
    model = FellegiSunter([3, 2]).fit_u(draw(u, 50_000)).fit_m(draw(m, 300))
    learned = [x.copy() for x in model.m_]
    model.fit(gamma, prior=0.5)
    assert all(np.array_equal(a, b) for a, b in zip(learned, model.m_, strict=True))
    assert np.allclose(model.m_[0], m[0], atol=0.05)
    assert abs(model.prior_ - 0.1) < 0.02
    with pytest.raises(ValueError, match="no known matches"):
        FellegiSunter([3, 2]).fit_m(np.zeros((0, 2), dtype=int))


def test_known_matches_that_look_like_strangers_are_warned_of(hash_encoder):
    # labels given as positions of another order (or as (right, left)) taught m that
    # matches look like random pairs: a third of the partners were linked, silently
    import warnings

    left, right, truth = _partnered_people(1000)
    keys = ["first", "surname", "city", "dob"]
    partnered = np.flatnonzero(truth >= 0)[:30]
    right_ones = [(int(i), int(truth[i])) for i in partnered]
    wrong = [(i, (j + 1) % len(right)) for i, j in right_ones]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        fuzzy_join(left, right, on=keys, model=hash_encoder, known_matches=right_ones)
    assert not [w for w in seen if "known_matches" in str(w.message)]
    with pytest.warns(UserWarning, match=r"known_matches: .* \(left, right\) pairs") as caught:
        fuzzy_join(left, right, on=keys, model=hash_encoder, known_matches=wrong)
    assert any(w.filename == __file__ for w in caught)  # pointed at the caller


def test_join_learns_from_known_matches_given_by_index_labels(hash_encoder):
    left, right, truth = _people()
    left.index = [f"L{i}" for i in range(len(left))]
    right = right.set_index("rid", drop=False)
    keys = ["first", "last", "city", "born", "zip"]
    known = [(f"L{i}", truth[i]) for i in range(0, 40, 2)]
    out = fuzzy_join(left, right, on=keys, model=hash_encoder, known_matches=known)
    assert (out["rid"].to_numpy() == np.array(truth)).mean() == 1.0
    # m is the known pairs' level frequencies, not EM's
    pos = [(i, right.index.get_loc(truth[i])) for i in range(0, 40, 2)]
    l2, r2 = left.reset_index(drop=True), right.reset_index(drop=True)
    *_, model = link_tables(l2, r2, keys, keys, encoder=hash_encoder, known_matches=pos)
    *_, unsupervised = link_tables(l2, r2, keys, keys, encoder=hash_encoder)
    assert model.m_from_labels_ and not hasattr(unsupervised, "m_from_labels_")
    assert not np.allclose(model.m_[1], unsupervised.m_[1])
    with pytest.raises(ValueError, match="not a row of the right table"):
        fuzzy_join(left, right, on=keys, model=hash_encoder, known_matches=[("L0", "nope")])
    with pytest.raises(ValueError, match="pairs"):
        fuzzy_join(left, right, on=keys, model=hash_encoder, known_matches=["L0"])
    with pytest.raises(ValueError, match="several key columns"):
        fuzzy_join(left, right, on="last", model=hash_encoder, known_matches=known)


def test_fields_compared_on_several_threads_give_the_one_thread_result(hash_encoder, monkeypatch):
    from pearl.tables import blocking, nearest

    left, right, _ = _people()
    keys = ["first", "last", "city", "born", "zip"]
    seen = []
    per_field = blocking._per_field
    monkeypatch.setattr(
        blocking, "_per_field", lambda fn, items: seen.append(1) or per_field(fn, items)
    )
    monkeypatch.setattr(nearest.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    ids2, p2, _ = link_tables(left, right, keys, keys, encoder=hash_encoder)
    assert seen  # candidates and levels went through the per-field map
    monkeypatch.setattr(nearest.os, "sched_getaffinity", lambda pid: {0}, raising=False)
    ids1, p1, _ = link_tables(left, right, keys, keys, encoder=hash_encoder)
    np.testing.assert_array_equal(ids1, ids2)
    np.testing.assert_array_equal(p1, p2)


def test_one_to_one_gives_each_right_row_to_one_left_row():
    from pearl.tables.record_linkage import one_to_one_links

    # left 0 and 1 both prefer right 0; left 0 is likelier, so left 1 gets right 1
    pairs = np.array([[0, 0], [1, 0], [1, 1], [2, 1]])
    proba = np.array([0.9, 0.8, 0.6, 0.5])
    ids, scores = one_to_one_links(pairs, proba, 4)
    assert ids[:, 0].tolist() == [0, 1, -1, -1]  # left 2's only candidate is taken
    assert scores[:, 0].tolist()[:2] == pytest.approx([0.9, 0.6])
    assert np.isneginf(scores[2:, 0]).all()


def test_one_to_one_join_never_links_a_right_row_twice(hash_encoder):
    left, right, _ = _partnered_people(200, seed=3)
    left = pd.concat([left, left.iloc[:20]], ignore_index=True)  # 20 rows twice
    right["rid"] = range(len(right))
    keys = ["first", "surname", "city", "dob"]
    out = fuzzy_join(left, right, on=keys, model=hash_encoder, one_to_one=True, threshold=0.0)
    linked = out["rid"].dropna()
    assert linked.is_unique and len(linked) > 100
    plain = fuzzy_join(left, right, on=keys, model=hash_encoder, threshold=0.0)
    assert not plain["rid"].dropna().is_unique  # the repeated rows share their partner
    with pytest.raises(ValueError, match="several key columns"):
        fuzzy_join(left, right, on="first", model=hash_encoder, one_to_one=True)


def test_a_shared_rare_value_counts_for_more_than_a_shared_common_one(hash_encoder):
    from pearl.tables.comparisons import _levels
    from pearl.tables.record_linkage import _compared_fields
    from pearl.tables.value_frequency import tf_offset as _tf_offset

    left = pd.DataFrame({"city": ["New York", "Tromso"], "phone": ["212-555-0100", "77 64 12"]})
    right = pd.DataFrame(
        {
            "city": ["new york"] * 8 + ["Tromso", "Oslo"],
            "phone": ["(212) 555 0100"] * 8 + ["776412", "22 11 00 00"],
        }
    )
    cols = ["city", "phone"]
    kinds, fields, *_ = _compared_fields(left, right, cols, cols, hash_encoder, None)
    pairs = np.array([[0, 0], [1, 8]])
    gamma = _levels(fields, pairs[:, 0], pairs[:, 1])
    assert gamma.tolist() == [[4, 2], [4, 2]]  # both agree on both fields
    model = FellegiSunter([5, 3])
    model.u_ = [np.array([0.6, 0.05, 0.03, 0.02, 0.3]), np.array([0.6, 0.1, 0.3])]
    model.random_u_ = model.u_
    offset = _tf_offset(fields, kinds, model, pairs, gamma)
    # each value is 1 of 2 left values and, at most once on each side, half the matches
    # (q = 0.5); "new york" is 8 of 10 right values, "tromso" 1 of 10: two random records
    # agree with chance 0.5 * 0.8 + 0.5 * 0.1 = 0.45, and log(q / (l r)) + log(0.45) is
    # added in each of the two fields
    assert offset[0] == pytest.approx(2 * np.log(0.5 / (0.5 * 0.8) * 0.45))
    assert offset[1] == pytest.approx(2 * np.log(0.5 / (0.5 * 0.1) * 0.45))
    assert offset[1] > 0 > offset[0]


def test_a_register_joined_by_a_larger_file_gives_its_unique_names_no_penalty(hash_encoder):
    # every right name is held once; the left file holds them among many others: each is
    # as rare as its neighbours, so no term-frequency adjustment (weighing its share of
    # the right column alone against the random pairs' agreement took 4.6 from each)
    from pearl.tables.comparisons import _levels
    from pearl.tables.record_linkage import _compared_fields
    from pearl.tables.value_frequency import tf_offset as _tf_offset

    names = [f"firm {i}" for i in range(400)]
    left, right = pd.DataFrame({"name": names}), pd.DataFrame({"name": names[:40]})
    kinds, fields, *_ = _compared_fields(left, right, ["name"], ["name"], hash_encoder, None)
    pairs = np.array([[i, i] for i in range(40)])
    gamma = _levels(fields, pairs[:, 0], pairs[:, 1])
    offset = _tf_offset(fields, kinds, FellegiSunter([5]), pairs, gamma)
    assert np.allclose(offset, 0.0)


def test_matches_agree_on_names_more_often_than_they_differ_by_a_typo(hash_encoder):
    # one typo per partner, in one of three fields: m counted on pairs equal on every
    # other field saw each field mistyped in every sure pair (m(equal) 0.09, m(one
    # edit) 0.90), so an equal name counted for less than a mistyped one
    left, right, truth = _partnered_people(1000)
    keys = ["first", "surname", "city", "dob"]
    ids, _, model = link_tables(left, right, keys, keys, encoder=hash_encoder)
    for f in range(3):  # the text fields: level 4 equal, 3 one edit apart
        assert model.m_[f][4] > model.m_[f][3]
        assert np.log2(model.m_[f][4] / model.u_[f][4]) > 2  # an equal name is evidence
    assert model.m_[3][3] > 0.9  # the date of birth is the same in every partner
    partnered = truth >= 0
    assert (ids[partnered, 0] == truth[partnered]).mean() > 0.95


def test_records_sharing_a_date_of_birth_are_candidates(hash_encoder):
    # names of few distinct values: a record's nearest records by text are its many
    # namesakes, which left its partner out; the partner shares its date of birth
    rng = random.Random(0)
    n = 3000
    rows = [
        {
            "first": rng.choice(FIRST[:4]),
            "surname": rng.choice(LAST[:4]),
            "dob": f"{rng.randint(1940, 2005)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        }
        for _ in range(n)
    ]
    right = pd.DataFrame(rows)
    left = right.copy()
    left["surname"] = [s[:-1] + "x" for s in left["surname"]]
    keys = ["first", "surname", "dob"]
    ids, _, _ = link_tables(left, right, keys, keys, encoder=hash_encoder)
    assert (ids[:, 0] == np.arange(n)).mean() > 0.95


def test_large_tables_search_records_approximately_with_the_same_links(hash_encoder, monkeypatch):
    from pearl.tables import search

    left, right, truth = _people(200, seed=3)
    keys = ["first", "last", "city", "born", "zip"]
    exact = fuzzy_join(left, right, on=keys, model=hash_encoder)
    graphs = []
    make = search._hnsw
    monkeypatch.setattr(search, "_hnsw", lambda *a, **k: graphs.append(1) or make(*a, **k))
    monkeypatch.setattr(search, "EXACT_MAX", 50)  # 200 right records: approximate
    few = fuzzy_join(left, right, on=keys, model=hash_encoder)
    assert not graphs  # but 200 left records are few: searched exactly, no graph
    monkeypatch.setattr(search, "EXACT_QUERIES", 100)
    approx = fuzzy_join(left, right, on=keys, model=hash_encoder)
    assert graphs  # the records' embeddings went through an HNSW graph
    pd.testing.assert_frame_equal(few, exact)
    assert (approx["rid"] == truth).mean() == (exact["rid"] == truth).mean() == 1.0


def test_small_tables_link_records_that_agree_on_every_field(hash_encoder):
    # five and four rows: the random pairs are all 20 pairs, two or three of them
    # matches, so a shared phone or city looked common by chance: no row was linked
    # (0.43 and 0.31 for the first two); the emoji row may go either way (its phone is
    # written in another format, its name and city agree)
    left = pd.DataFrame(
        {
            "name": ["Acme Corp", "Globex Inc.", "Initech", "\U0001f600 Emoji Co", None],
            "city": ["Boston", None, "Austin", "Paris", "Berlin"],
            "phone": ["617-555-0101", "(212) 555 0199", None, "+33 1 23 45 67 89", "030 1234567"],
        }
    )
    right = pd.DataFrame(
        {
            "name": ["ACME Corporation", "Globex Incorporated", "Umbrella", "Emoji Company"],
            "city": ["Boston", "New York", "Raccoon City", "Paris"],
            "phone": ["6175550101", "212-555-0199", "555-0000", "0123456789"],
        }
    )
    out = fuzzy_join(left, right, on=["name", "city", "phone"], model=hash_encoder)
    assert out["name_right"].iloc[0] == "ACME Corporation" and out["match_score"][0] > 0.6
    assert out["name_right"].iloc[[2, 4]].isna().all()  # no partner
    ranked = fuzzy_join(left, right, on=["name", "city", "phone"], model=hash_encoder, threshold=0)
    assert ranked["name_right"][1] == "Globex Incorporated"  # its city missing: less sure
    assert ranked["match_score"][1] > 0.4 > ranked["match_score"][[2, 4]].max()


@pytest.mark.parametrize("n", [2, 3])
def test_two_or_three_identical_records_are_matches(hash_encoder, n):
    # the candidates are every pair, so u from random pairs was the candidates' own
    # distribution and the EM settled on "no match at all" (0.0); and a column of close
    # whole numbers (1, 2, 3) was switched off as "agreement no likelier among matches"
    # because every pair was close by chance
    table = pd.DataFrame({"name": ["anna smith", "bob jones", "carl berg"], "n": ["1", "2", "3"]})
    out = fuzzy_join(table[:n], table[:n], on=["name", "n"], model=hash_encoder)
    assert out["name_right"].tolist() == out["name"].tolist()
    assert out["match_score"].gt(0.6).all()


def _companies(n: int):
    from pearl_lab.synthetic import companies

    left, right, truth = companies(n, seed=2)
    return left, right, ["name", "street", "city", "phone", "postcode"], truth


def _linked(left, right, ids, proba=None) -> set:
    """(left rec_id, right rec_id) of each row's best candidate (with ``proba``: those of
    probability 0.5 or more, the default decision)."""
    keep = ids[:, 0] >= 0 if proba is None else (ids[:, 0] >= 0) & (proba[:, 0] >= 0.5)
    rows = np.flatnonzero(keep)
    return set(zip(left["rec_id"][rows], right["rec_id"][ids[rows, 0]], strict=True))


def _spy_on_searches(monkeypatch) -> list:
    """The ``rows`` of every ``RecordSearch.pairs`` call (None: the whole table), as they
    come."""
    from pearl.tables import blocking

    searched: list = []
    search = blocking.RecordSearch.pairs
    monkeypatch.setattr(
        blocking.RecordSearch,
        "pairs",
        lambda self, rows=None: searched.append(rows) or search(self, rows),
    )
    return searched


def test_shared_codes_replace_the_search_when_a_sample_shows_it_adds_nothing(
    hash_encoder, monkeypatch
):
    from pearl.tables import blocking

    left, right, keys, truth = _companies(600)
    searched = _spy_on_searches(monkeypatch)
    whole_ids, whole_p, model = link_tables(left, right, keys, keys, encoder=hash_encoder)
    assert model.blocking_["search"] == "whole table" and model.blocking_["sample_rows"] == 0
    monkeypatch.setattr(blocking, "SAMPLE_ROWS", 100)  # 600 rows: a sample of 100 decides
    searched.clear()
    ids, p, model = link_tables(left, right, keys, keys, encoder=hash_encoder)
    # every true pair shares a phone and a postcode: the search ran on the sample alone
    assert model.blocking_["search"] == "skipped" and model.blocking_["search_gain"] < 1
    # an eighth of the sample, then the rest (none of the whole table)
    assert [len(rows) for rows in searched] == [12, 88]
    linked, whole = _linked(left, right, ids, p), _linked(left, right, whole_ids, whole_p)
    assert len(linked & truth) >= len(whole & truth) - 2 and len(linked & truth) > 300
    assert len(linked - truth) <= len(whole - truth) + 2


def test_the_whole_table_is_searched_when_matches_share_no_code(hash_encoder, monkeypatch):
    from pearl.tables import blocking

    left, right, keys, truth = _companies(600)
    # a third of the partners lost their phone and postcode: only the search finds them
    partnered = sorted({i for i, _ in truth})
    gone = partnered[::3]
    left.loc[gone, ["phone", "postcode"]] = None
    monkeypatch.setattr(blocking, "SAMPLE_ROWS", 100)
    ids, p, model = link_tables(left, right, keys, keys, encoder=hash_encoder)
    assert model.blocking_["search"] == "whole table" and model.blocking_["search_gain"] >= 1
    found = _linked(left, right, ids, p) & truth
    assert len({i for i, _ in found} & set(gone)) >= 0.9 * len(gone)


def _stacked_companies(n: int, drop_codes: bool = False):
    """The companies tables stacked into one (each partnered left row a duplicate of a
    right row), and the true pairs of row positions; ``drop_codes``: a third of the
    duplicates lost their phone and postcode."""
    left, right, keys, truth = _companies(n)
    if drop_codes:
        left.loc[sorted({i for i, _ in truth})[::3], ["phone", "postcode"]] = None
    both = pd.concat([left[keys], right[keys]], ignore_index=True)
    return both, {(i, len(left) + j) for i, j in truth}


def _clustered_pairs(labels) -> set:
    """The pairs of row positions that share a cluster."""
    rows = pd.Series(range(len(labels)))[np.asarray(labels) >= 0]
    groups = rows.groupby(np.asarray(labels)[rows.to_numpy()])
    return {(a, b) for g in groups for a in g[1] for b in g[1] if a < b}


@pytest.mark.parametrize("drop_codes", [False, True])
def test_deduplication_checks_on_a_sample_whether_the_search_adds_duplicates(
    hash_encoder, monkeypatch, drop_codes
):
    # a table of 100,000 companies took 40 s to cluster where record linkage of the same
    # rows took 15 s: deduplication searched every row with no sample check
    from pearl import cluster
    from pearl.tables import blocking

    both, truth = _stacked_companies(300, drop_codes)  # 600 rows
    searched = _spy_on_searches(monkeypatch)
    whole = _clustered_pairs(cluster(both, model=hash_encoder))
    assert searched == [None]  # a small table: searched whole
    monkeypatch.setattr(blocking, "SAMPLE_ROWS", 100)  # 600 rows: a sample of 100 decides
    searched.clear()
    found = _clustered_pairs(cluster(both, model=hash_encoder))
    if drop_codes:  # duplicates that share no code: the sample shows the search is needed
        assert searched[-1] is None
    else:  # every duplicate shares a phone and a postcode: the sample alone is searched
        assert [None if rows is None else len(rows) for rows in searched] == [12, 88]
    assert len(found & truth) >= len(whole & truth) - 2 >= 0.95 * len(truth)
    assert len(found - truth) <= len(whole - truth) + 2


def test_a_table_compared_with_itself_reads_each_column_once_with_the_same_fields():
    from pearl.tables.record_linkage import _compared_fields, _levels

    both, _ = _stacked_companies(100)
    both["founded"] = pd.Series(range(len(both))) % 50 + 1950  # a number field too
    cols = list(both.columns)
    kinds, one = _compared_fields(both, both, cols, cols, None, None)
    same_kinds, two = _compared_fields(both, both.copy(), cols, cols, None, None)
    assert kinds == same_kinds == ["text", "text", "text", "code", "code", "numeric"]
    li, ri = np.arange(len(both)), np.arange(len(both))[::-1].copy()
    np.testing.assert_array_equal(_levels(one, li, ri), _levels(two, li, ri))
    for a, b in zip(one, two, strict=True):
        for side_a, side_b in zip(a.keys(), b.keys(), strict=True):
            np.testing.assert_array_equal(side_a, side_b)
        np.testing.assert_array_equal(a.rnull, b.rnull)


def test_a_column_that_never_agrees_leaves_rows_without_a_partner_unmatched(hash_encoder):
    # one table writes a placeholder postcode in every row: no sure pair agreed on every
    # field, EM alone took "same name" for a match, and all 3,000 rows were linked
    left, right, keys, truth = _companies(3000)
    right["postcode"] = "00000"
    ids, p, _ = link_tables(left, right, keys, keys, encoder=hash_encoder)
    linked = _linked(left, right, ids, p)
    assert len(linked & truth) >= 0.99 * len(truth)
    assert len(linked - truth) <= 0.01 * len(truth)


def test_the_sample_check_warns_of_an_insane_field_once(hash_encoder, monkeypatch):
    import warnings

    from pearl.tables import blocking

    left, right, keys, truth = _companies(600)
    # matches always disagree on "flag", random pairs agree half the time
    right["flag"] = np.where(np.arange(len(right)) % 2, "yes", "no")
    partner, flag = dict(truth), dict(zip(right["rec_id"], right["flag"], strict=True))
    left["flag"] = [
        ("no" if flag[partner[r]] == "yes" else "yes") if r in partner else "yes"
        for r in left["rec_id"]
    ]
    monkeypatch.setattr(blocking, "SAMPLE_ROWS", 100)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        _, _, model = link_tables(
            left, right, [*keys, "flag"], [*keys, "flag"], encoder=hash_encoder
        )
    assert model.blocking_["sample_rows"] == 100  # a model was fitted on the sample too
    said = [w for w in seen if "'flag'" in str(w.message)]
    assert len(said) == 1 and model.off_[-1]


def test_strangers_sharing_a_birthday_city_and_surname_are_not_linked(hash_encoder):
    # candidates found because they share a date of birth were then credited for that
    # rare agreement as if drawn at random: with the candidates' own share of matches as
    # the prior, a stranger of the same birthday, city and surname scored about 0.8. The
    # posterior is now a random pair's (the chance that two random records match)
    left, right, truth = _partnered_people(2000)
    rng = random.Random(1)
    strangers = np.flatnonzero(truth < 0)
    for i in strangers:  # another first name, the rest of a right record's
        j = rng.randrange(len(right))
        first = right.loc[j, "first"]
        left.loc[i] = right.loc[j]
        left.loc[i, "first"] = rng.choice([f for f in set(right["first"]) if f != first])
    keys = ["first", "surname", "city", "dob"]
    ids, proba, model = link_tables(left, right, keys, keys, encoder=hash_encoder)
    linked = proba[:, 0] >= 0.5
    assert linked[strangers].mean() < 0.05  # were all linked
    partnered = truth >= 0
    assert (linked & (ids[:, 0] == truth))[partnered].mean() > 0.98
    n_pairs = len(left) * len(right)
    # at most one partner a row (the bound, up to rounding: the prior can reach it)
    assert model.random_prior_ <= min(len(left), len(right)) / n_pairs * (1 + 1e-9)
    assert model.random_prior_ < model.prior_


def test_a_typo_in_a_three_letter_name_is_weaker_evidence_than_a_longer_ones(hash_encoder):
    from pearl.tables.comparisons import _TextField

    field = _TextField(
        pd.Series(["lme", "tomas", "lee", "abc", "340 River Rd", "Acme Tools Ltd", "martin"]),
        pd.Series(
            ["lee", "thomas", "lee", "xyz", "340 River Road", "Acme Tools Limited", "martinez"]
        ),
        None,
    )
    field.emb = None
    idx = np.arange(7)
    levels = field.levels(idx, idx)
    assert levels[2] == 4  # equal
    assert levels[1] >= 3  # one edit, five letters or more
    assert levels[0] >= 2 and levels[0] < levels[1]  # one edit in three letters
    assert levels[3] <= 1  # nothing alike
    # a word written short is as strong as a typo (partners writing "Rd" for "Road" were
    # left out of a street's sure pairs, and a different street counts against a match)
    assert (levels[4:6] >= 3).all()
    assert levels[6] < 3  # a prefix of one word: often another name


def test_a_table_of_two_fields_learns_m_from_its_many_strong_pairs(hash_encoder):
    # surname and date of birth, 2,000 rows: a strong pair is too common by chance for the
    # fixed bound (one left row in a hundred), so EM alone fitted m and took "same
    # surname" for a match (m of the same birthday 0.06): the matches scored 0.65-0.71
    # and precision=0.9 linked 21 of 1,400 partners
    left, right, truth = _partnered_people(2000)
    keys = ["surname", "dob"]
    ids, proba, model = link_tables(left, right, keys, keys, encoder=hash_encoder)
    assert model.m_fixed_ == [True, True]
    assert model.m_[1][-1] > 0.9  # partners share their birthday
    partnered = truth >= 0
    found = (ids[:, 0] == truth) & partnered
    assert np.median(proba[found, 0]) > 0.95
    right["rid"] = range(len(right))
    out = fuzzy_join(left, right, on=keys, model=hash_encoder, precision=0.9)
    precision, f1 = _link_scores(out, truth)
    assert precision > 0.87 and f1 > 0.9  # every partner, at about the precision asked


def test_a_row_with_every_key_missing_is_never_linked(hash_encoder):
    # at threshold=0 (every row's best candidate) it named an arbitrary record, and at
    # precision=0.9, with nothing reaching it, every row was linked (a float64 threshold
    # just above the best score rounded back onto the float32 scores)
    left = pd.DataFrame(
        {"name": [None, "anna smith", "john garcia"], "city": [None, "oslo", "lyon"]}
    )
    right = pd.DataFrame({"name": ["anna smith", "john garcia", "maria rossi"]})
    right["city"] = ["oslo", "lyon", "rome"]
    out = fuzzy_join(left, right, on=["name", "city"], model=hash_encoder, threshold=0)
    assert out["name_right"].isna().tolist() == [True, False, False]
    empty = pd.DataFrame({"name": [None, None], "city": [None, None]})
    for kw in ({"threshold": 0}, {"precision": 0.9}, {}):
        with pytest.warns(PearlWarning, match="hold no value"):
            out = fuzzy_join(empty, right, on=["name", "city"], model=hash_encoder, **kw)
        assert out["match_score"].isna().all()


def test_a_second_linkage_of_the_same_tables_embeds_nothing_again(hash_encoder):
    # the fields' values go through the process's embedding cache, as a single-key join's
    # queries do: trying another decision point on the same tables costs no model time
    from pearl.tables.encoding import clear_caches

    clear_caches(models=False)
    left, right, _ = _people(60, seed=11)
    keys = ["first", "last", "city"]
    first = link_tables(left, right, keys, keys, encoder=hash_encoder)
    embedded = hash_encoder.calls
    assert embedded > 0
    second = link_tables(left, right, keys, keys, encoder=hash_encoder)
    assert hash_encoder.calls == embedded
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_allclose(first[1], second[1])


def test_in_a_small_table_an_exact_record_outscores_a_mistyped_one(hash_encoder):
    # the term-frequency adjustment weighed a value's share of the right column (a name
    # held once in 5 rows: 1/5) against u with the matches taken out: agreeing on every
    # field scored 0.61 and a name one letter apart 0.73
    left = pd.DataFrame(
        {
            "name": ["John Smith", "Mary Jones", "Peter Brown", "Alice Green"],
            "city": ["Leeds", "York", "Bath", "Hull"],
        }
    )
    right = pd.DataFrame(
        {
            "name": ["Jon Smith", "Mary Jones", "Karl Marx", "Alic Green", "Zed"],
            "city": ["Leeds", "York", "Trier", "Hull", "Oslo"],
        }
    )
    out = fuzzy_join(left, right, on=["name", "city"], model=hash_encoder, threshold=0.0)
    score = dict(zip(out["name"], out["match_score"], strict=True))
    assert score["Mary Jones"] > 0.99
    assert score["Mary Jones"] > score["John Smith"] > 0.5
    assert score["Alice Green"] > 0.5


def test_a_code_that_lost_its_leading_zeros_on_one_side_keeps_its_partners():
    from pearl.tables.comparisons import _CodeField

    # a postcode column of numbers lost its leading zeros; the other table writes them
    left = pd.Series([2134, 1001, 90210, 501, np.nan])
    right = pd.Series(["02134", "01001", "90210", "00501", "0"])
    field = _CodeField(left, right)
    lk, rk = field.keys()
    assert (lk[:4] == rk[:4]).all() and field.lnull.tolist() == [False] * 4 + [True]
    assert field.right[4] == "0"
    # so did a column of text saved by a spreadsheet
    saved = _CodeField(pd.Series(["02134", "00501 "]), pd.Series(["2134", "501"]))
    assert (saved.keys()[0] == saved.keys()[1]).all()
    # where both sides write leading zeros, they count: "007" is not "7"
    both = _CodeField(pd.Series(["007", "0123"]), pd.Series(["7", "0123"]))
    assert both.keys()[0][0] != both.keys()[1][0] and both.keys()[0][1] == both.keys()[1][1]


def test_names_written_in_either_unicode_form_are_equal(hash_encoder):
    # "Łukasz Żółw, Łódź" with its accents as combining marks in one table scored 0.03:
    # another string, other n-grams and embeddings
    import unicodedata

    names = ["José García", "Zoë Müller", "Łukasz Żółw", "Renée Côté", "Ana Pérez"]
    cities = ["Málaga", "Zürich", "Łódź", "Québec", "León"]
    left = pd.DataFrame({"name": names, "city": cities})
    right = left.map(lambda s: unicodedata.normalize("NFD", s))
    assert (left != right).all().all()
    out = fuzzy_join(left, right, on=["name", "city"], model=hash_encoder, threshold=0.0)
    assert (out["name_right"] == right["name"]).all()  # the right table's own strings
    assert out["match_score"].min() > 0.9


def test_text_values_are_equal_case_and_spaces_aside():
    from pearl.tables.comparisons import _TextField

    # as the docs say; a double space, a tab or a no-break space made another value
    left = pd.Series(["New  York", "New\xa0York", "new york ", "Acme\tCorp", "Jean-Luc"])
    right = pd.Series(["New York", "New York", "New York", "Acme Corp", "Jean Luc"])
    lk, rk = _TextField(left, right, None).keys()
    assert (lk[:4] == rk[:4]).all() and lk[4] != rk[4]  # a hyphen is no space


def test_a_tiny_table_with_missing_cells_still_finds_its_matches(hash_encoder):
    # 4 x 3 rows, every pair a candidate, a name missing on one side and a postcode on the
    # other: the EM took the matches out of the random pairs' u as the prior times a
    # smoothed m over all pairs, which left a fifth of the agreeing postcodes in u; the
    # prior then fell to 1e-6 and nothing was linked (p 9e-7)
    left = pd.DataFrame(
        {"name": ["Acme Corp", "Globex Ltd", None, "Initech"], "zip": [2134, 10001, 75001, None]}
    )
    right = pd.DataFrame(
        {
            "company": ["ACME Corporation", "Globex Limited", "Initech Inc"],
            "postcode": ["02134", "10001", "73301"],
        }
    )
    out = fuzzy_join(
        left, right, left_on=["name", "zip"], right_on=["company", "postcode"], model=hash_encoder
    )
    linked = dict(zip(out["name"], out["company"], strict=True))
    assert linked["Acme Corp"] == "ACME Corporation"
    assert linked["Globex Ltd"] == "Globex Limited"
    assert out.loc[out["name"].isna(), "company"].isna().all()  # no evidence, no link


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("blank", [None, "", "  "])
def test_an_empty_key_column_is_no_evidence_and_costs_no_link(hash_encoder, side, blank):
    left = pd.DataFrame({"name": ["Acme Corp", "Globex Inc.", "Initech LLC", "Umbrela"]})
    right = pd.DataFrame({"name": ["ACME Corp", "Globex Inc", "Initech", "Umbrella Corp"]})
    alone = fuzzy_join(left, right, on="name", model=hash_encoder)
    (left if side == "left" else right)["city"] = blank
    (right if side == "left" else left)["city"] = ["Paris", "Rome", "Oslo", "Lima"]
    with pytest.warns(UserWarning, match=f"'city' \\(empty in the {side} table\\)"):
        out = fuzzy_join(left, right, on=["name", "city"], model=hash_encoder)
    assert out["match_score"].notna().sum() == alone["match_score"].notna().sum() > 0
    assert out["name_right"].tolist() == alone["name_right"].tolist()


def test_a_closer_level_is_never_weaker_evidence():
    # "similar" seen among candidates but never among random pairs, "equal" seen among
    # both: m / u must still rise with the level
    model = FellegiSunter([5])
    model.fit_u(np.array([[0]] * 9_000 + [[1]] * 900 + [[4]] * 100))
    model.m_, model.m_seen_ = [np.zeros(5)], [np.zeros(5, bool)]
    model._set_m_counts(0, np.array([0.0, 0.0, 300.0, 0.0, 30.0]))
    ratios = model.m_[0] / model.u_[0]
    assert np.all(np.diff(ratios) >= -1e-12)
    assert model.m_[0].sum() == pytest.approx(1.0)


def test_the_chance_of_equal_values_is_counted_from_the_columns(hash_encoder):
    from pearl.tables.record_linkage import _compared_fields
    from pearl.tables.value_frequency import equal_chances as _equal_chances

    left = pd.DataFrame({"name": ["a", "a", "b", "c"]})
    right = pd.DataFrame({"name": ["a", "b", "b", "d", "e"]})
    kinds, fields, *_ = _compared_fields(left, right, ["name"], ["name"], hash_encoder, None)
    # a: 2/4 * 1/5, b: 1/4 * 2/5
    assert _equal_chances(fields, kinds, False) == [pytest.approx(0.5 * 0.2 + 0.25 * 0.4)]
    kinds, fields, *_ = _compared_fields(left, left, ["name"], ["name"], hash_encoder, None)
    assert _equal_chances(fields, kinds, True) == [pytest.approx(2 / 12)]  # the two "a"s


def test_a_linkage_that_finds_no_match_says_so(hash_encoder):
    # unrelated tables: the model finds no match and links no row; that is said, with
    # what to do
    rng = random.Random(0)
    word = lambda: "".join(rng.choice("abcdefghij") for _ in range(8))  # noqa: E731
    left = pd.DataFrame({"name": [word() for _ in range(40)], "city": ["paris"] * 40})
    right = pd.DataFrame({"name": [word() for _ in range(30)], "city": ["lima"] * 30})
    with pytest.warns(UserWarning, match="found no match among"):
        out = fuzzy_join(left, right, on=["name", "city"], model=hash_encoder)
    assert out["match_score"].isna().all()


def test_a_one_row_right_table_is_joined_on_its_fields_as_one_key(hash_encoder):
    # 4 pairs teach the model nothing and it linked no row, where the name alone links:
    # too few pairs to fit, the fields joined into one key are matched instead
    left = pd.DataFrame(
        {
            "name": ["Acme Corp", "Globex Inc.", "Initech LLC", "Umbrela"],
            "city": ["Paris", "Rome", "Oslo", "Lima"],
        }
    )
    right = pd.DataFrame({"name": ["Initech"], "city": ["Oslo"]})
    out = fuzzy_join(left, right, on=["name", "city"], model=hash_encoder)
    assert out.columns.tolist() == ["name", "city", "name_right", "city_right", "match_score"]
    assert out["name_right"].tolist()[2] == "Initech"
    assert out["name_right"].drop(index=2).isna().all()
    stranger = pd.DataFrame({"name": ["Initek"], "city": ["Tromso"]})
    out = fuzzy_join(left, stranger, on=["name", "city"], model=hash_encoder)
    assert out["match_score"].isna().all()


def test_a_digit_typo_in_a_birth_date_is_evidence_not_a_veto(hash_encoder):
    # partners equal on names and city, a third with one digit of the date mistyped:
    # with "more than 31 days apart" their only level, they weighed as strangers
    rng = random.Random(3)
    n = 300
    first = [f"{a}{b}" for a in ("an", "jo", "ma", "pe", "lu", "om") for b in ("na", "ri", "ko")]
    rows = [
        {
            "first": rng.choice(first),
            "last": rng.choice(LAST + ["lopez", "young", "moore", "clark"]),
            "city": rng.choice(CITY),
            "dob": f"{rng.randint(1940, 2005)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        }
        for _ in range(n)
    ]
    right = pd.DataFrame(rows).assign(rid=range(n))
    left = right.drop(columns="rid").copy()
    typo = []
    for i in range(0, n, 3):
        dob = left.loc[i, "dob"]
        k = rng.choice([0, 1, 2, 3, 5, 6, 8, 9])
        new = dob[:k] + str((int(dob[k]) + rng.choice([2, 5])) % 10) + dob[k + 1 :]
        if pd.notna(pd.to_datetime(new, errors="coerce")):
            left.loc[i, "dob"] = new
            typo.append(i)
    keys = ["first", "last", "city", "dob"]
    out = fuzzy_join(left, right, on=keys, model=hash_encoder)
    assert len(typo) > 40
    linked = out.loc[typo]
    assert (linked["rid"] == linked.index).all()
    assert (linked["match_score"] >= 0.5).mean() > 0.95


def test_a_date_that_does_not_parse_one_digit_from_the_other_is_a_typo():
    from pearl.tables.dates import _date_levels

    d = pd.Series(["1977-12-04", "1949-12-03", "1977-12-04", None, "1977-12-04"])
    e = pd.Series(["1977-15-04", "1549-12-03", "1977-15-09", "1977-15-04", "unknown"])
    i = np.arange(5)
    assert _date_levels(d, e, i, i).tolist() == [2, 2, -1, -1, -1]


def test_identical_records_are_linked_where_strong_levels_are_common(hash_encoder):
    # a city of six values and names one edit apart in their initials: every pair strong
    # on both fields looked likely by chance, no pair was sure, and EM took "a similar
    # name in the same city" for a match: none of 591 identical pairs was linked
    rng = random.Random(0)
    initials = [f"{i}. {j}." for i in "ABCDEFGHJKLMNPRSTW" for j in "ABCDEFGHJ"]
    names = sorted({f"{f} {i} {s}" for f in FIRST for i in initials for s in LAST})
    records = sorted({(rng.choice(names), rng.choice(CITY)) for _ in range(24_000)})
    rng.shuffle(records)
    records = records[:8000]
    right = pd.DataFrame(records[:400], columns=["title", "town"])
    drawn = [rng.randrange(len(records)) for _ in range(12_000)]
    left = pd.DataFrame([records[i] for i in drawn], columns=["name", "city"])
    out = fuzzy_join(
        left, right, left_on=["name", "city"], right_on=["title", "town"], model=hash_encoder
    )
    partner = np.array([i < 400 for i in drawn])
    assert partner.sum() > 500
    linked = out["title"].notna().to_numpy()
    assert linked[partner].all() and not linked[~partner].any()


def test_pairs_equal_on_every_field_left_unlinked_are_warned_of():
    from pearl.tables.record_linkage import _warn_equal_unlinked

    levels = np.array([0] * 9000 + [3] * 900 + [4] * 100)  # equal on a field: 1 in 100
    model = FellegiSunter([5, 5]).fit_u(np.stack([levels, np.roll(levels, 5000)], axis=1))
    gamma = np.array([[4, 4]] * 100 + [[0, 0]] * 900)  # 100 equal pairs; 1 by chance
    with pytest.warns(PearlWarning, match="100 of 100 candidate pairs equal on every field"):
        _warn_equal_unlinked(model, gamma, np.zeros(1000), all_pairs=10_000)
    _warn_equal_unlinked(model, gamma, np.ones(1000), all_pairs=10_000)  # linked: silent
    # as many equal pairs as chance gives (1,000,000 pairs: 100): no sign of lost matches
    _warn_equal_unlinked(model, gamma, np.zeros(1000), all_pairs=1_000_000)
