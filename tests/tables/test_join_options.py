"""The checked options of a fuzzy join: one frozen value, checked once."""

import dataclasses

import pytest

from pearl.tables.join_options import JOIN_THRESHOLD, JoinOptions


def test_defaults_are_resolved_with_the_matcher_known():
    one = JoinOptions.check(on="name")
    assert not one.multi and one.left_on == one.right_on == "name"
    assert one.threshold == JOIN_THRESHOLD  # a match probability: unlikely matches dropped
    assert JoinOptions.check(on="name", matcher="cosine").threshold == -1.0  # no threshold
    several = JoinOptions.check(on=["name", "city"], matcher="cosine")
    assert several.multi and several.left_on == ("name", "city")
    assert several.threshold == JOIN_THRESHOLD  # a Fellegi-Sunter probability


def test_the_value_is_frozen_and_replace_makes_a_copy():
    opts = JoinOptions.check(left_on="a", right_on="b", top_k=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.top_k = 3
    other = opts.replace(top_k=3)
    assert (opts.top_k, other.top_k, other.left_on) == (2, 3, "a")


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"on": "a", "how": "outer"}, ValueError, "how"),
        ({"on": "a", "top_k": 0}, ValueError, "top_k"),
        ({"on": "a", "one_to_one": True}, ValueError, "several key columns"),
        ({"on": "a", "matcher": "cosine", "precision": 0.9}, ValueError, "probability"),
        ({"on": "a", "threshold": 1.5}, ValueError, "threshold"),
        ({"on": ["a", "b"], "threshold": -0.5}, ValueError, "probability"),
        ({"left_on": ["a", "b"], "right_on": "a"}, ValueError, "as many columns"),
        ({"on": "a", "suffix": ""}, TypeError, "suffix"),
    ],
)
def test_a_bad_option_is_refused_naming_it(options, error, match):
    with pytest.raises(error, match=match):
        JoinOptions.check(**options)
