"""The repository's lab (lab/pearl_lab, issue 51): shared by the benchmarks and experiments,
outside the product."""

import random
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_pearl_never_imports_the_lab():
    users = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "src" / "pearl").rglob("*.py")
        if "pearl_lab" in p.read_text(encoding="utf-8")
    ]
    assert not users


def test_no_script_edits_sys_path():
    scripts = [*(ROOT / "benchmarks").rglob("*.py"), *(ROOT / "experiments").glob("*.py")]
    editing = [
        str(p.relative_to(ROOT))
        for p in scripts
        if re.search(r"sys\.path\.(insert|append)", p.read_text(encoding="utf-8"))
    ]
    assert scripts and not editing


def test_people_tables_have_unmatched_rows_and_a_typo_per_partner():
    from pearl_lab.synthetic import people

    left, right, truth = people(200, share=0.7, seed=3)
    assert len(left) == len(right) == 200
    assert 110 < len(truth) < 170  # about 70% of the left rows have a partner
    for i, j in truth:
        a, b = left.loc[i, ["first", "surname", "city"]], right.loc[j, ["first", "surname", "city"]]
        differs = [x != y for x, y in zip(a, b, strict=True)]
        assert sum(differs) <= 1 and left.loc[i, "dob"] == right.loc[j, "dob"]
    again = people(200, share=0.7, seed=3)
    assert again[2] == truth and again[0].equals(left)


def test_companies_partners_keep_the_phone_digits():
    from pearl_lab.synthetic import companies

    left, right, truth = companies(100, seed=1)
    for i, j in truth:
        digits = re.sub(r"\D", "", left.loc[i, "phone"])
        assert digits == re.sub(r"\D", "", right.loc[j, "phone"])


def test_typo_generators_and_tasks():
    from pearl_lab.typos import GENERATORS, make_task, one_edit

    rng = random.Random(0)
    for _ in range(200):
        word = rng.choice(["Paris", "Acme Corporation", "ab"])
        edited = one_edit(word, rng)
        assert edited != word or len(set(word)) < len(word)
        assert abs(len(edited) - len(word)) <= 1
    values, truth = make_task(["Acme Corporation", "Globex Inc"], "mixed", 3, 2, seed=0)
    assert len(values) == len(truth) == 10 and sorted(set(truth)) == [0, 1]
    assert values.count("Acme Corporation") >= 3
    assert set(GENERATORS) == {"keyboard", "drop", "swap", "abbreviation"}


def test_dev_strings_cover_both_tasks():
    pytest.importorskip("pycountry")
    from pearl_lab.dev import dev_strings, tasks

    data = tasks()
    strings = set(dev_strings())
    assert {"France", "Bayern"} <= strings
    for queries, candidates, _ in data.values():
        assert set(queries) | set(candidates) <= strings
