"""A multi-column join's links grow with the left table: a file of repeated records, or
one whose few rows have a partner in a register, links every pair that is equal on every
key, whatever its size (benchmarks/quality/linkage_scale.py runs it up to 1,000,000 rows)."""

import random

import numpy as np
import pandas as pd
import pytest

from pearl import fuzzy_join

WORDS = "acme global north star pacific united blue river summit pioneer atlas union".split()
LAST = "smith johnson williams brown jones garcia miller davis lopez wilson".split()
TRADES = "logistics foods systems partners holdings media energy motors labs".split()
CITY = "london paris berlin madrid rome vienna prague lisbon dublin oslo".split()


def _pool(n: int, numbered: bool, seed: int = 0) -> list[tuple[str, str]]:
    """``n`` distinct (name, city) records: names recur across cities, or (``numbered``)
    carry a number and are unique."""
    rng, pool = random.Random(seed), set()
    while len(pool) < n:
        name = f"{rng.choice(WORDS)} {rng.choice(LAST)} {rng.choice(TRADES)}".title()
        if numbered:
            name += f" {rng.randint(1, 99)}"
        pool.add((name, rng.choice(CITY).title()))
    return sorted(pool)


@pytest.mark.parametrize("numbered", [False, True], ids=["recurring names", "numbered names"])
@pytest.mark.parametrize("n_left", [1_000, 6_000])
def test_every_pair_equal_on_every_key_is_linked(hash_encoder, numbered, n_left):
    rng = random.Random(1)
    pool = _pool(1_000, numbered)
    rng.shuffle(pool)
    right = pd.DataFrame(pool[:100], columns=["title", "town"])
    left = pd.DataFrame([pool[rng.randrange(len(pool))] for _ in range(n_left)])
    left.columns = ["name", "city"]
    out = fuzzy_join(
        left, right, left_on=["name", "city"], right_on=["title", "town"], model=hash_encoder
    )
    equal = left.merge(right, left_on=["name", "city"], right_on=["title", "town"], how="left")
    should = equal["title"].notna().to_numpy()
    assert should.sum() > 0.05 * n_left  # a twentieth of the rows have a partner
    linked = out["match_score"].notna().to_numpy()
    assert linked[should].all()
    assert (out["title"][should] == left["name"][should]).all()
    assert linked[~should].sum() <= 0.01 * n_left


def test_repeated_rows_are_linked_once_and_answered_alike(hash_encoder):
    left = pd.DataFrame(
        {"name": ["Acme Corp", "Globex", "Acme Corp"], "city": ["Paris", "Rome"] * 1 + ["Paris"]}
    )
    right = pd.DataFrame({"name": ["ACME Corp", "Globex Inc"], "city": ["Paris", "Rome"]})
    out = fuzzy_join(left, right, on=["name", "city"], model=hash_encoder)
    assert out["match_score"][0] == out["match_score"][2]
    assert out["name_right"][0] == out["name_right"][2]
    assert np.isfinite(out["match_score"].astype(float)).sum() >= 2


def test_known_matches_of_repeated_rows_teach_their_one_record(hash_encoder):
    from pearl.tables.record_linkage import link_tables

    rng = random.Random(2)
    pool = _pool(300, numbered=True)
    right = pd.DataFrame(pool[:60], columns=["name", "city"])
    picks = [rng.randrange(len(pool)) for _ in range(900)]
    left = pd.DataFrame([pool[i] for i in picks], columns=["name", "city"])
    # every copy of the first partnered rows labelled, so a record is named several times
    known = [(row, pick) for row, pick in enumerate(picks) if pick < 60][:30]
    keys = ["name", "city"]
    ids, _, model = link_tables(left, right, keys, keys, encoder=hash_encoder, known_matches=known)
    assert model.m_from_labels_ and model.blocking_["distinct_left_rows"] < len(left)
    partnered = np.array([p < 60 for p in picks])
    assert (ids[partnered, 0] == np.array(picks)[partnered]).all()
