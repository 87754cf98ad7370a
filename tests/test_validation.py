import math

import numpy as np
import pytest

from pearl._validation import check_texts


def test_single_string_is_wrapped():
    assert check_texts("New York") == ["New York"]


def test_whitespace_only_strings_become_empty():
    assert check_texts(["", " ", "\t\n", "a b"]) == ["", "", "", "a b"]


@pytest.mark.parametrize(
    "bad, what", [(None, "None"), (math.nan, "NaN"), (np.float64("nan"), "NaN")]
)
def test_missing_values_name_the_index(bad, what):
    with pytest.raises(ValueError, match=rf"texts\[2\] is {what}"):
        check_texts(["a", "b", bad])


@pytest.mark.parametrize("bad", [3, 2.5, b"bytes", ["nested"]])
def test_non_strings_name_the_index_and_type(bad):
    with pytest.raises(ValueError, match=r"texts\[1\] is " + type(bad).__name__):
        check_texts(["a", bad])


def test_none_as_the_whole_input():
    with pytest.raises(ValueError, match="got None"):
        check_texts(None)


def test_generators_and_unicode_pass_through():
    texts = (t for t in ["café", "東京", "🙂 emoji", "a" * 10_000])
    assert check_texts(texts) == ["café", "東京", "🙂 emoji", "a" * 10_000]


def test_text_is_put_in_composed_form():
    # "é" as one code point, or "e" and a combining accent (macOS file names, some exports)
    composed, decomposed = "Ren\u00e9e C\u00f4t\u00e9", "Rene\u0301e Co\u0302te\u0301"
    assert composed != decomposed
    assert check_texts([decomposed, composed]) == [composed, composed]
    assert check_texts(["\ud800 e\u0301"]) == ["\ufffd \u00e9"]  # surrogates replaced first


def test_a_pyarrow_array_is_a_sequence_of_texts():
    import pyarrow as pa

    from pearl._validation import check_texts

    assert check_texts(pa.array(["a", " "])) == ["a", ""]
    assert check_texts(pa.chunked_array([["a"], ["b"]])) == ["a", "b"]
    with pytest.raises(ValueError, match=r"texts\[1\] is None"):
        check_texts(pa.array(["a", None]))
