import numpy as np
import pandas as pd

from pearl.tables import blocking
from pearl.tables.blocking import (
    RecordSearch,
    equal_value_pairs,
    record_ngrams,
    record_sketch,
    sample_rows,
    unique_pairs,
)
from pearl.tables.comparisons import _TextField
from pearl.tables.nearest import sketch


def test_candidates_without_identifier_like_fields(hash_encoder):
    left = pd.DataFrame({"city": ["paris", "lyon", "oslo"] * 4, "kind": ["a", "b"] * 6})
    right = left.iloc[::-1].reset_index(drop=True)
    fields = [_TextField(left[c], right[c], None) for c in ("city", "kind")]
    pairs = unique_pairs(equal_value_pairs(fields, 3) + RecordSearch(fields, None, 3).pairs())
    # no field is identifier-like: the joined fields' n-grams give each row 3 candidates
    assert len(pairs) == 3 * len(left)
    joined = [left.agg(" ".join, axis=1).tolist(), right.agg(" ".join, axis=1).tolist()]
    equal = {i for i, j in pairs if joined[0][i] == joined[1][j]}
    assert equal == set(range(len(left)))


def test_record_ngrams_put_each_fields_unit_row_side_by_side():
    # a record's n-gram vector: its fields' own unit rows in blocks of their own, scaled
    # by one over the root of the fields present, so that it is a unit vector and an
    # n-gram of one field never meets another field's
    left = pd.DataFrame(
        {
            "name": ["Ann  Lee", None, "Åsa Öberg", "", "Bob"],
            "city": ["new york", "Oslo", "Ἀθῆναι ΟΔΟΣ", "paris", None],
        }
    )
    right = pd.DataFrame({"name": ["Bob", "ann lee", "x"], "city": ["Oslo", "oslo", "new york"]})
    fields = [_TextField(left[c], right[c], None) for c in ("name", "city")]
    got = record_ngrams(fields, "left").toarray()
    width = fields[0].ngrams.shape[1]
    assert got.shape == (5, 2 * width)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, rtol=1e-5)
    name, city = fields[0].ngrams.toarray(), fields[1].ngrams.toarray()
    np.testing.assert_allclose(got[0, :width], name[fields[0].lid[0]] / np.sqrt(2), rtol=1e-6)
    np.testing.assert_allclose(got[1, :width], 0.0)  # a missing name: a zero block
    np.testing.assert_allclose(got[1, width:], city[fields[1].lid[1]], rtol=1e-6)
    right_rows = record_ngrams(fields, "right").toarray()
    cos = got @ right_rows.T
    # the same name (case and spaces aside) or the same city: half the way each
    np.testing.assert_allclose(cos[0], [0.0, 0.5, 0.5], atol=1e-6)
    # a city written as a name meets no city
    swapped = pd.DataFrame({"name": ["new york"], "city": [None]})
    fields_s = [_TextField(swapped[c], right[c], None) for c in ("name", "city")]
    cos_s = record_ngrams(fields_s, "left").toarray() @ record_ngrams(fields_s, "right").T
    np.testing.assert_allclose(cos_s[0, 2], 0.0, atol=1e-6)
    np.testing.assert_allclose(cos[4, 0], 1 / np.sqrt(2), rtol=1e-5)  # "Bob", no city
    rows = np.array([0, 4])
    np.testing.assert_allclose(record_ngrams(fields, "left", rows).toarray(), got[rows])


def test_record_sketch_is_the_sketch_of_the_record_ngrams():
    # made from the fields' distinct values (each projected once), the same unit rows as
    # the sketch of the records' own n-gram rows; a row without any value a zero row
    left = pd.DataFrame(
        {
            "name": ["Ann Lee", None, "Bob", "ann lee", None],
            "city": ["Oslo", "Rome", None, "Oslo", None],
        }
    )
    right = pd.DataFrame({"name": ["Bob", "ann lee"], "city": ["Oslo", "oslo"]})
    fields = [_TextField(left[c], right[c], None) for c in ("name", "city")]
    for side, rows in [("left", None), ("left", np.array([1, 3, 4])), ("right", None)]:
        want = sketch(record_ngrams(fields, side, rows))
        got = record_sketch(fields, side, rows)
        assert got.shape == want.shape and got.dtype == np.float32
        np.testing.assert_allclose(got, want, atol=1e-6)
    assert not record_sketch(fields, "left")[4].any()


def test_a_large_right_table_is_searched_by_its_sketch(monkeypatch):
    # above the exact search's size the record and field indexes hold sketches, made
    # from the distinct values; each record still finds its copy
    names = [f"{a} {b}" for a in ("ann", "bob", "eve", "joe") for b in ("lee", "kim", "ray")]
    left = pd.DataFrame({"name": names * 3, "city": ["oslo", "rome", "lima"] * 12})
    right = left.sample(frac=1.0, random_state=0).reset_index(drop=True)
    fields = [_TextField(left[c], right[c], None) for c in ("name", "city")]
    monkeypatch.setattr("pearl.tables.search.exact_ngrams", lambda n, exact_max=0: False)
    search = RecordSearch(fields, None, 3)
    pairs = unique_pairs(search.pairs())
    assert search._records.ngram_rows is None and search._records.ngram_sketch is not None
    same = left.to_numpy()[pairs[:, 0]] == right.to_numpy()[pairs[:, 1]]
    assert set(pairs[same.all(axis=1), 0]) == set(range(len(left)))
    # an identifier-like field (its values distinct) is searched by itself, sketched too
    left["label"] = [f"{n} no {i}" for i, n in enumerate(left["name"])]
    right = left.sample(frac=1.0, random_state=1).reset_index(drop=True)
    fields = [_TextField(left[c], right[c], None) for c in ("label", "city")]
    search = RecordSearch(fields, None, 3)
    pairs = unique_pairs(search.pairs())
    assert search._fields[0][1].ngram_sketch is not None
    same = left["label"].to_numpy()[pairs[:, 0]] == right["label"].to_numpy()[pairs[:, 1]]
    assert set(pairs[same, 0]) == set(range(len(left)))


def _companies(n: int, seed: int = 0):
    """The lab's synthetic companies (name, street, city, phone, postcode; 30% of the left
    rows without a partner), as pearl's fields, and the true pairs."""
    from pearl_lab.synthetic import companies

    from pearl.tables.record_linkage import _compared_fields

    left, right, truth = companies(n, seed=seed)
    keys = ["name", "street", "city", "phone", "postcode"]
    return left, right, keys, truth, _compared_fields


def test_a_samples_search_finds_what_the_whole_search_finds_for_its_rows(hash_encoder):
    left, right, keys, _, compared = _companies(300)
    _, fields = compared(left, right, keys, keys, hash_encoder, None)
    whole = unique_pairs(RecordSearch(fields, hash_encoder, 5).pairs())
    rows = np.array([0, 7, 8, 100, 299])
    search = RecordSearch(fields, hash_encoder, 5)
    part = unique_pairs(search.pairs(rows))
    np.testing.assert_array_equal(part, whole[np.isin(whole[:, 0], rows)])
    # the right side prepared for the sample serves the whole table's search unchanged
    np.testing.assert_array_equal(unique_pairs(search.pairs()), whole)
    assert set(part[:, 0]) == set(rows)


def test_equal_values_pair_rows_sharing_a_rare_code(hash_encoder):
    left, right, keys, truth, compared = _companies(300)
    _, fields = compared(left, right, keys, keys, hash_encoder, None)
    pairs = unique_pairs(equal_value_pairs(fields, 10))
    # phones written another way and the same postcode: every true pair shares a code
    shared = zip(left["rec_id"][pairs[:, 0]], right["rec_id"][pairs[:, 1]], strict=True)
    assert truth <= set(shared)


class _Values:
    """A code field's stand-in: both sides' values as integers, none missing."""

    def __init__(self, left, right):
        self.left, self.right = np.asarray(left), np.asarray(right)
        self.lnull = np.zeros(len(self.left), bool)
        self.rnull = np.zeros(len(self.right), bool)

    def keys(self):
        return self.left, self.right


def test_equal_values_are_values_held_by_few_right_rows_within_a_pair_budget(monkeypatch):
    # 10,000 right rows: value 0 a placeholder (2,000 rows), values 1-100 held by 12
    # rows each (a date of birth of a large table: more than the cap of 10, fewer than
    # the square root of the rows), values 101-... held once
    right = [0] * 2000 + [v for v in range(1, 101) for _ in range(12)]
    right += list(range(101, 101 + 10_000 - len(right)))
    left = [0, 5, 100, 150, 99_999]
    pairs = blocking._equal_value_pairs(_Values(left, right), cap=10)
    got = {(int(i), int(j)) for i, j in pairs}
    assert {j for i, j in got if i == 1} == {2000 + 4 * 12 + k for k in range(12)}
    assert {i for i, _ in got} == {1, 2, 3}  # the placeholder and the unseen value: none
    # the rarest values first, until the pairs reach the budget per left row
    monkeypatch.setattr(blocking, "EQUAL_PAIRS_PER_ROW", 4)  # 20 pairs for 5 left rows:
    got = {(int(i), int(j)) for i, j in blocking._equal_value_pairs(_Values(left, right), 10)}
    assert {i for i, _ in got} == {3, 1} and len(got) == 13  # 1 + 12, not + 12 more


def test_only_large_tables_are_sampled(monkeypatch):
    rng = np.random.default_rng(0)
    assert sample_rows(4 * blocking.SAMPLE_ROWS - 1, rng) is None
    monkeypatch.setattr(blocking, "SAMPLE_ROWS", 10)
    rows = sample_rows(40, rng)
    assert len(rows) == 10 == len(set(rows))
    assert rows.min() >= 0 and rows.max() < 40
