import pytest

from pearl.evaluation.diversity import lexical_diversity, longest_common_substring


def test_longest_common_substring():
    assert longest_common_substring("natural language", "language model") == 8
    assert longest_common_substring("abc", "xyz") == 0
    assert longest_common_substring("", "abc") == 0
    # frequent characters count (difflib's junk heuristic would skip them past 200 chars)
    assert longest_common_substring("a" * 300 + "b", "x" + "a" * 250) == 250


def test_a_surface_space_is_less_diverse(hash_encoder):
    vocab = [
        "new york",
        "new york city",
        "new yorker",
        "the big apple",
        "manhattan",
        "york",
        "new jersey",
        "boston",
        "newark",
        "yorkshire",
        "brooklyn",
        "queens",
    ]
    res = lexical_diversity(hash_encoder, vocab, ["new york", "boston"], top_k=3)
    assert res["queries"] == 2 and res["top_k"] == 3
    assert 0 <= res["lcs_precision"] <= 100 and res["levenshtein"] > 0
    with pytest.raises(ValueError, match="vocabulary"):
        lexical_diversity(hash_encoder, vocab[:3], ["new york"], top_k=3)
