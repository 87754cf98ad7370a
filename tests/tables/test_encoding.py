import numpy as np
import pandas as pd
import pytest

from pearl.tables.encoding import to_string_list


class Name(str):
    """A str subclass: a cell the loop checks one by one."""


@pytest.mark.parametrize(
    "column",
    [
        ["Apple", "", "😀 emoji", "naïve"],
        pd.Series(["Apple", "", "😀 emoji", "naïve"], dtype="string"),
        np.array(["Apple", "", "😀 emoji", "naïve"], dtype=object),
    ],
)
def test_a_column_of_strings_comes_back_as_a_new_list_with_no_nulls(column):
    texts, null = to_string_list(column)
    assert texts == ["Apple", "", "😀 emoji", "naïve"] and texts is not column
    assert null.dtype == bool and not null.any() and len(null) == 4


def test_mixed_cells_are_checked_one_by_one():
    texts, null = to_string_list(["a", None, float("nan"), Name("b")])
    assert texts == ["a", "", "", "b"] and null.tolist() == [False, True, True, False]
    with pytest.raises(ValueError, match=r"values\[1\] is int"):
        to_string_list(["a", 3])
    with pytest.raises(ValueError, match=r"values\[1\] is missing"):
        to_string_list(["a", None], missing="error")
