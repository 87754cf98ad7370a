"""The fitted reference: fitted once, ranked many times, and the one place of the ranking
rules."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pearl
from pearl.tables.reference import Reference, rank_candidates

SRC = Path(pearl.__file__).parent
PHONES = ["212-555-0101", "212-555-0102", "310-246-1501", "415-555-2671", "646-555-0199"]


def test_a_fitted_reference_ranks_queries_without_encoding_its_keys_again(hash_encoder):
    from pearl.tables import clear_caches

    clear_caches(models=False)  # the queries may be in the process cache from another test
    keys = ["The New York Times", "Boston Globe", "Chicago Tribune", None]
    ref = Reference(hash_encoder).fit(keys)
    assert hash_encoder.calls == 3  # the null key is kept (ids stay aligned), not encoded
    ids, scores = ref.rank(["new york times", "boston glob", "chicago tribune"], top_k=2)
    assert ids[:, 0].tolist() == [0, 1, 2]
    assert (3 not in ids) and scores.dtype == np.float32
    assert (scores[:, 0] >= scores[:, 1]).all()
    calls = hash_encoder.calls
    ref.rank(["boston globe"])
    assert hash_encoder.calls == calls + 1  # the query only


def test_ranking_as_a_join_ranks(hash_encoder):
    right = pd.DataFrame({"k": ["Apollo 11", "Apollo 13", "Mercury", "Gemini"]})
    left = pd.DataFrame({"k": ["Apollo 13", "apollo 11", "Mercuri"]})
    joined = pearl.fuzzy_join(left, right, on="k", model=hash_encoder, threshold=0.0)
    ids, scores = Reference(hash_encoder).fit(right["k"]).rank(left["k"])
    assert right["k"][ids[:, 0]].tolist() == joined["k_right"].tolist()
    np.testing.assert_allclose(scores[:, 0], joined["match_score"], rtol=1e-6)


def test_codes_are_compared_by_their_normalised_value(hash_encoder):
    ref = Reference(hash_encoder).fit(PHONES)
    assert ref.value_rule_ is not None and ref.value_rule_.kind == "code"
    ids, scores = ref.rank(["(212) 555 0101", "4155552671", "(310) 246 1502"])
    assert ids[:2, 0].tolist() == [0, 3]
    assert scores[2, 0] <= 0.05  # one digit off: another phone, however close its text
    cosine = Reference(hash_encoder, matcher="cosine").fit(PHONES)
    assert cosine.value_rule_ is None  # a cosine ranks the text as written


def test_the_reference_follows_scikit_learns_conventions(hash_encoder):
    from sklearn.base import clone

    ref = Reference(hash_encoder, candidates=5)
    copy = clone(ref.fit(["a"]))  # an unfitted copy with the same parameters
    assert isinstance(copy, Reference) and copy.candidates == 5 and not hasattr(copy, "keys_")
    assert ref.set_params(candidates=3).candidates == 3
    with pytest.raises(ValueError, match="no parameter"):
        ref.set_params(width=3)
    with pytest.raises(ValueError, match="not fitted"):
        Reference(hash_encoder).rank(["x"])
    empty = Reference(hash_encoder).fit([None, None])
    ids, scores = empty.rank(["x", "y"])
    assert ids.shape == scores.shape == (2, 0)


def test_rank_candidates_reads_copies_numbers_and_values():
    from pearl.tables.matcher import MatchScorer

    scorer = MatchScorer((4.0, 6.0, 0.0), -5.0, "test", margin=(0.5, 2.0, 0.0, 3.0))
    refs = ["Apollo 13", "Apollo 11", "apollo 13"]
    ids = np.array([[0, 1, 2]])
    raw = np.array([[3.0, 2.9, 2.8]])
    top_i, top_p = rank_candidates(scorer, ["Apollo 11"], ids, raw, 3, refs)
    assert top_i[0].tolist() == [1, 0, 2]  # numbered apart: ranked after the others
    assert top_p[0, 1] <= 0.05 and top_p[0, 2] <= 0.05
    same, _ = rank_candidates(scorer, ["Apollo 13"], ids, raw, 1, refs)
    alone, p_alone = rank_candidates(scorer, ["Apollo 13"], ids[:, :2], raw[:, :2], 1, refs)
    p_copies = rank_candidates(scorer, ["Apollo 13"], ids, raw, 1, refs)[1]
    assert same[0, 0] == 0 and p_copies[0, 0] == pytest.approx(p_alone[0, 0])
    values, p_values = rank_candidates(
        scorer,
        ["2125550101"],
        np.array([[0, 1]]),
        raw[:, :2],
        2,
        ["2125550102", "2125550101"],
        values=True,
    )
    assert values[0].tolist() == [1, 0] and p_values[0, 1] <= 0.05


def _calls_of(names: set[str]) -> dict[str, set[str]]:
    """The modules of the package that call each of ``names``."""
    found: dict[str, set[str]] = {n: set() for n in names}
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)
                if name in found:
                    found[name].add(str(path.relative_to(SRC)))
    return found


def test_the_ranking_rules_are_written_once():
    rules = {"keep_top", "candidates_apart", "candidates_unequal", "unrivalled_typos"}
    callers = _calls_of(rules)
    assert callers == {name: {"tables/reference.py"} for name in rules}
