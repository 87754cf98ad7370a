import numpy as np

from pearl import cluster, deduplicate
from pearl.tables.words import word_apart, worded_apart


def test_a_word_swapped_for_another_is_apart():
    apart = [
        ("North Korea", "South Korea"),
        ("Jane Smith", "John Smith"),
        ("Oxford University", "Cambridge University"),
        ("Bank of America", "Bank of England"),
        ("New York Post", "New York Times"),
        ("Red Cross", "red crescent"),  # case aside
    ]
    assert all(word_apart(a, b) and word_apart(b, a) for a, b in apart)
    alike = [
        ("Jon Smith", "John Smith"),  # a typo
        ("Acme Corp", "Acme Corporation"),  # an abbreviation
        ("Intl Paper", "International Paper"),
        ("Main St Cafe", "Main Street Cafe"),  # "St": too short to be another word
        ("Bank of America", "Bank of America Corp"),  # a word added
        ("Oxford University", "University of Oxford"),  # words reordered
        ("Korea", "Japan"),  # one word: the matcher's
        ("Apollo 11", "Apollo 13"),  # numbers: pearl.tables.numbers
        ("New York", "New York"),  # equal
        ("North Korea", "South Korean"),  # two words differ
    ]
    assert not any(word_apart(a, b) for a, b in alike)
    texts = ["North Korea", "South Korea", "Jon Smith", "John Smith"]
    got = worded_apart(texts, np.array([0, 2, 0]), np.array([1, 3, 3]))
    assert got.tolist() == [True, False, False]


def test_names_a_word_apart_are_not_merged():
    # with pearl-static these were merged: the matcher gives a pair a word apart 0.56-0.70,
    # above the cut of 0.6, as it gives "Jon Smith" and "John Smith"
    values = [
        "North Korea",
        "South Korea",
        "Jane Smith",
        "John Smith",
        "Jon Smith",
        "Oxford University",
        "University of Oxford",
        "Cambridge University",
    ]
    labels = cluster(values, model="pearl-static").tolist()
    assert labels[0] != labels[1] and labels[2] != labels[3]
    assert labels[3] == labels[4] and labels[5] == labels[6] != labels[7]
    out = deduplicate(["North Korea", "North Korea", "South Korea"], model="pearl-static")
    assert out.tolist() == ["North Korea", "North Korea", "South Korea"]
