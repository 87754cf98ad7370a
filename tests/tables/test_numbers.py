import numpy as np
import pandas as pd

from pearl import cluster, fuzzy_join
from pearl.tables.numbers import NUMBERED_APART, candidates_apart, number_ids, numbered_apart


def test_numbers_of_a_name_compare_as_integers():
    ids = number_ids(["Apollo 11", "apollo 011", "Apollo 13", "Apollo", "1,000 Oaks", "1000 oaks"])
    assert ids[0] == ids[1] != ids[2] and ids[3] == 0 and ids[4] == ids[5] > 0
    pairs = np.array([[0, 1], [0, 2], [0, 3], [4, 5]])
    assert numbered_apart(ids, pairs[:, 0], pairs[:, 1]).tolist() == [False, True, False, False]
    # a decimal point is no thousands separator
    assert number_ids(["v3.5", "v35"]).tolist() == [1, 2]
    # Roman numerals of I, V and X in capitals count, but not as the first word (the
    # pronoun) nor words of other letters
    roman = ["World War II", "World War 2", "Louis XIV", "I Am Legend", "Washington DC", "MIX"]
    ids = number_ids(roman)
    assert ids[0] == ids[1] > 0 and ids[2] > 0 and ids[2] != ids[0]
    assert ids[3:].tolist() == [0, 0, 0]


def test_a_list_numbered_at_once_is_numbered_as_each_text_alone():
    # the texts are searched joined by newlines: a numeral at a text's end or start, a
    # newline inside a text, and empty texts find what each text alone finds
    texts = ["Henry VIII", "X", "a\nI", "I\nb", "", "\n", "IV\n", "٣ arabic", "no number"]
    texts += ["Apollo 11", "World War II"]
    together = number_ids(texts)
    alone = [number_ids([t])[0] > 0 for t in texts]
    assert (together > 0).tolist() == alone
    assert alone[:8] == [True, False, True, False, False, False, False, True]
    assert together[0] != together[-2] and together[-1] > 0


def test_candidates_apart_from_their_query():
    refs = ["Apollo 13", "Apollo 11", "Apollo program"]
    ids = np.array([[0, 1, 2], [2, -1, -1]])
    apart = candidates_apart(["Apollo 11", "Windows 7"], ids, refs)
    assert apart.tolist() == [[True, False, False], [False, False, False]]
    # the references numbered once beforehand (an index): the same answers
    table: dict = {}
    numbered = (number_ids(refs, table), table)
    assert candidates_apart(["Apollo 11", "Windows 7"], ids, refs, numbered).tolist() == [
        [True, False, False],
        [False, False, False],
    ]
    assert len(table) == 3  # the references' table is not grown by the queries


def test_a_sequel_is_no_typo_of_its_original(hash_encoder):
    # one edit apart, so linked at 0.95 as a typo: "Apollo 11" and "Apollo 13" were one
    labels = cluster(
        ["Apollo 11", "Apollo 13", "apollo 11", "Windows 7", "Windows 8"], model=hash_encoder
    )
    assert labels[0] == labels[2] and len({labels[0], labels[1], labels[3], labels[4]}) == 4
    kings = cluster(["Henry VII", "Henry VIII", "Henry VIII"], model=hash_encoder)
    assert kings[1] == kings[2] != kings[0]


def test_a_join_does_not_take_another_number_for_the_name(hash_encoder):
    left = pd.DataFrame({"q": ["Apollo 11", "Boeing 747", "Route 66"]})
    right = pd.DataFrame({"r": ["Apollo 13", "Boeing 747-400", "Boeing 747", "Route 66 Diner"]})
    out = fuzzy_join(left, right, left_on="q", right_on="r", model=hash_encoder, threshold=0)
    assert out["match_score"][0] <= np.float32(NUMBERED_APART)  # the only Apollo is another
    assert out["r"][1] == "Boeing 747" and out["r"][2] == "Route 66 Diner"
    default = fuzzy_join(left, right, left_on="q", right_on="r", model=hash_encoder)
    assert default["r"].isna()[0]


def test_candidates_numbered_apart_come_after_the_others_not_after_nothing(hash_encoder):
    # ranked after the others, they were sorted behind the lists' padding too: a search of
    # every name returned -1 in their places ("Windows 7" missing for "windows 8")
    from pearl import EntityIndex

    names = ["Apollo 11", "Apollo 13", "Windows 7", "Louis XIV", "New York", "Boston"]
    index = EntityIndex(hash_encoder).build(names)
    for k in (3, 6, 10):
        got = index.search(["windows 8", "apollo 11"], top_k=k, matcher="combined")
        assert got.ids.shape == (2, min(k, len(names))) and (got.ids >= 0).all()
        assert all(len(set(row)) == len(row) for row in got.ids)
    # "windows 8": the two names without numbers first, the numbered ones after them
    first = got.ids[0].tolist()
    assert set(first[:2]) == {4, 5}
    assert got.scores[0][first.index(2)] <= np.float32(NUMBERED_APART)
    out = fuzzy_join(
        pd.DataFrame({"q": ["windows 8"]}),
        pd.DataFrame({"r": names}),
        left_on="q",
        right_on="r",
        model=hash_encoder,
        threshold=0,
        top_k=6,
    )
    assert sorted(out["r"]) == sorted(names)
