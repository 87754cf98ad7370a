import random

import pytest

from pearl.augment.char import (
    QWERTY_NEIGHBOURS,
    drop_char,
    insert_char,
    keyboard_typo,
    swap_chars,
)

FUNCS = [swap_chars, drop_char, insert_char, keyboard_typo]


@pytest.mark.parametrize("f", FUNCS)
def test_seeded_and_changing(f):
    a = [f("The New York Times", random.Random(s)) for s in range(20)]
    b = [f("The New York Times", random.Random(s)) for s in range(20)]
    assert a == b
    assert all(x != "The New York Times" for x in a)
    assert len(set(a)) > 3


@pytest.mark.parametrize("f", FUNCS)
def test_edge_cases(f):
    rng = random.Random(0)
    assert f("", rng) == ""
    assert f("123 !", rng) == "123 !"
    out = f("café 🙂 東京", rng)
    assert "🙂" in out


def test_edit_shapes():
    rng = random.Random(1)
    assert len(drop_char("london", rng)) == 5
    assert len(insert_char("london", rng)) == 7
    assert sorted(swap_chars("london", rng)) == sorted("london")
    typo = keyboard_typo("q", rng)
    assert typo in QWERTY_NEIGHBOURS["q"]
    assert keyboard_typo("Q", rng).isupper()
