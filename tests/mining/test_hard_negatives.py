from itertools import combinations

from conftest import HashEncoder
from rapidfuzz import fuzz

from pearl.mining import edit_candidates, mine_hard_negatives

PHRASES = [
    "New York Times",
    "New York Post",
    "New York City",
    "Boston Globe",
    "Boston Glove",
    "Paris",
    "Parish",
    "Pariss",
    "Zurich",
    "Zürich",
    "apple pie",
    "apple pies",
]


def _brute(phrases, min_ratio):
    low = [p.lower() for p in phrases]
    return {
        (i, j)
        for i, j in combinations(range(len(low)), 2)
        if low[i] != low[j] and fuzz.ratio(low[i], low[j]) >= min_ratio
    }


def test_blocking_finds_exactly_the_close_pairs_when_blocks_cover_all():
    got = edit_candidates(PHRASES, min_ratio=75, block_size=100, show_progress_bar=False)
    assert set(got) == _brute(PHRASES, 75)


def test_small_blocks_find_a_subset_and_neighbours():
    got = edit_candidates(PHRASES, min_ratio=75, block_size=4, show_progress_bar=False)
    assert set(got) <= _brute(PHRASES, 75)
    assert (5, 6) in got  # Paris / Parish are neighbours in sorted order


def test_negatives_are_far_in_meaning(tmp_path):
    res = mine_hard_negatives(
        PHRASES,
        HashEncoder(),
        tmp_path / "n.tsv",
        min_ratio=70,
        max_cosine=0.8,
        top_k=2,
        show_progress_bar=False,
    )
    lines = (tmp_path / "n.tsv").read_text().splitlines()
    assert lines[0] == "phrase\tnegative\tedit_ratio\tcosine"
    assert all(float(line.split("\t")[3]) < 0.8 for line in lines[1:])
    assert all(len(v) <= 2 for v in res["negatives"].values())
    assert res["candidate_pairs"] >= len(lines[1:]) // 2
    again = tmp_path / "m.tsv"
    mine_hard_negatives(
        PHRASES,
        HashEncoder(),
        again,
        min_ratio=70,
        max_cosine=0.8,
        top_k=2,
        show_progress_bar=False,
    )
    assert again.read_bytes() == (tmp_path / "n.tsv").read_bytes()
