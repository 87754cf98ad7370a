import random

import pytest
from conftest import SHARED_DATA

from pearl.augment.names import NameVariants, alias_groups, as_pairs, wordnet_alias_groups
from pearl.data.corpus import PhraseRecord
from pearl.training.finetune import LabelledGroups

WORDNET = SHARED_DATA / "lexicon" / "wordnet"


def test_organisation_forms_include_figure_one():
    forms = NameVariants().options("The New York Times", "NP-ORG")
    assert {"NYTimes", "nytimes.com", "newyorktimes.com", "NYT", "the new york times"} <= set(forms)
    assert "The New York Times" not in forms


def test_person_forms_and_types_without_forms():
    v = NameVariants()
    assert {"J. Smith", "Smith, John Paul", "John Smith"} <= set(
        v.options("John Paul Smith", "NP-PERSON")
    )
    assert v.options("Paris", "NP-GPE") == []  # one word: no form a table would hold
    assert "paris.com" not in v.options("Paris Saint Germain", "NP-GPE")
    assert v.options("the red car", "NP-OTHER") == []  # not a name
    assert v.options("new york times", "NP-ORG") == []  # no capital: not a name
    assert v.options("", "NP-ORG") == []
    picked = NameVariants(max_variants=2)("The New York Times", "NP-ORG", random.Random(0))
    assert len(picked) == 2


def _records():
    return [
        PhraseRecord("The New York Times", "NP-ORG", 3, "test"),
        PhraseRecord("John Smith", "NP-PERSON", 2, "test"),
        PhraseRecord("red car", "NP-OTHER", 2, "test"),
    ]


def test_alias_groups_sources_uniqueness_and_exclusion():
    frame = alias_groups(
        records=_records(),
        definitions=[("National Football League", "NFL")],
        wordnet=[["The Hague", "Den Haag"], ["Nicaragua", "Republic of Nicaragua"]],
        replay=[("red car", "red automobile"), ("x", "x")],
        n_replay=5,
        exclude=["republic of nicaragua"],
        max_variants=20,
    )
    assert list(frame.columns) == ["text", "group", "source"]
    assert set(frame["source"]) == {"wordnet", "definition", "variants", "replay"}
    assert not frame["text"].duplicated().any()  # a string has one group
    assert "Nicaragua" not in set(frame["text"])  # its group held an excluded string
    groups = frame.groupby("group")["text"].apply(set)
    assert {"The Hague", "Den Haag"} in groups.tolist()
    assert (frame.groupby("group").size() >= 2).all()
    nyt = frame.loc[frame["text"] == "The New York Times", "group"].item()
    assert {"NYTimes", "nytimes.com"} <= set(frame.loc[frame["group"] == nyt, "text"])
    again = alias_groups(records=_records(), definitions=[("National Football League", "NFL")])
    assert again.equals(
        alias_groups(records=_records(), definitions=[("National Football League", "NFL")])
    )


@pytest.mark.skipif(not WORDNET.is_dir(), reason="shared WordNet not present")
def test_wordnet_alias_groups_are_proper_names():
    groups = wordnet_alias_groups(str(WORDNET))
    assert any({"The Hague", "Den Haag"} <= set(g) for g in groups)
    assert all(len(g) >= 2 for g in groups)
    assert not any("dog" in g for g in groups)


def test_case_variants_and_forms_of_grouped_strings_join_one_group():
    records = [
        PhraseRecord("NYTimes", "NP-ORG", 2, "t"),
        PhraseRecord("The New York Times", "NP-ORG", 3, "t"),
        PhraseRecord("the New York Times", "NP-ORG", 3, "t"),
    ]
    frame = alias_groups(
        records=records, replay=[("NYTimes", "The New York Times")], n_replay=1, max_variants=20
    )
    nyt = frame.loc[frame["text"] == "NYTimes", "group"].item()
    assert frame.loc[frame["text"] == "The New York Times", "group"].item() == nyt
    assert frame.loc[frame["text"] == "the New York Times", "group"].item() == nyt
    assert frame["group"].nunique() == 1 and not frame["text"].duplicated().any()


def test_as_pairs_with_hard_negatives():
    frame = alias_groups(records=_records(), wordnet=[["The Hague", "Den Haag"]], max_variants=20)
    negatives = {
        "The New York Times": ["The New Yorker", "NYT", "the New York Mets"],
        "The Hague": ["The Hagu"],
    }
    pairs = as_pairs(frame, negatives, per_group=5, exclude=["the new york mets"])
    assert list(pairs.columns) == ["left", "right", "label", "source"]
    neg = pairs[pairs["label"] == 0]
    assert set(neg["right"]) == {"The New Yorker", "The Hagu"}  # NYT is in the group
    assert (pairs["label"] == 1).sum() == len(frame) - frame["group"].nunique()
    groups = LabelledGroups.from_frame(pairs)
    gid = dict(zip(groups.texts, groups.groups.tolist(), strict=True))
    assert gid["NYT"] == gid["The New York Times"] != gid["The New Yorker"]
    assert tuple(sorted((gid["The New York Times"], gid["The New Yorker"]))) in groups.different
    assert (as_pairs(frame)["label"] == 1).all()


@pytest.mark.skipif(not WORDNET.is_dir(), reason="shared WordNet not present")
def test_build_aliases_is_the_aliases_workflow(training_files, tmp_path):
    from pearl.augment.names import build_aliases

    text = tmp_path / "text"
    text.mkdir()
    (text / "a.txt").write_text("The National Football League ( NFL ) said so.\n", encoding="utf-8")
    groups, report = build_aliases(
        training_files["corpus"], text=text, wordnet=WORDNET, show_progress_bar=False
    )
    assert {"National Football League", "NFL"} <= set(groups["text"])
    assert report["strings"] == len(groups) and report["by_source"]["definition"]["groups"] == 1
    pairs, report = build_aliases(
        training_files["corpus"],
        text=text,
        wordnet=WORDNET,
        negatives=training_files["negatives"],
        show_progress_bar=False,
    )
    assert {"left", "right", "label"} <= set(pairs.columns)
    assert report["negative_pairs"] == int((pairs["label"] == 0).sum())
    worded, report = build_aliases(
        training_files["corpus"],
        text=text,
        wordnet=WORDNET,
        word_negatives=True,
        show_progress_bar=False,
    )
    neg = worded[worded["label"] == 0]
    assert report["negative_pairs"] == len(neg) > 0
    from pearl.mining.shared_words import content_words

    # each word-sharing negative shares a word with its left name and names another group
    assert all(
        content_words(a) & content_words(b) for a, b in zip(neg["left"], neg["right"], strict=True)
    )
    positives = set(zip(worded["left"], worded["right"], strict=True)) - set(
        zip(neg["left"], neg["right"], strict=True)
    )
    assert not set(zip(neg["left"], neg["right"], strict=True)) & positives


def test_a_short_form_several_names_share_never_merges_them():
    records = [
        PhraseRecord("The Washington Post", "NP-ORG", 3, "t"),
        PhraseRecord("West Papua", "NP-GPE", 3, "t"),
        PhraseRecord("West Point", "NP-FAC", 3, "t"),
        PhraseRecord("The New York Times", "NP-ORG", 3, "t"),
    ]
    frame = alias_groups(
        records=records,
        definitions=[("World Peace", "WP"), ("New York Times", "NYT")],
        wordnet=[
            ["WP", "word processor"],
            ["Ford", "Henry Ford", "H. Ford"],
            ["Ford", "Gerald Ford", "Gerald R. Ford"],
        ],
        max_variants=20,
    )
    group = dict(zip(frame["text"], frame["group"], strict=True))
    names = ["The Washington Post", "West Papua", "West Point", "The New York Times"]
    assert all(n in group for n in names) and len({group[n] for n in names}) == len(names)
    assert not frame["text"].str.casefold().isin(["wp", "ford"]).any()  # in no group
    assert "World Peace" not in group and "word processor" not in group  # left alone
    assert group["Henry Ford"] == group["H. Ford"] != group["Gerald Ford"]
    # a form of one name only still joins: NYT names nothing else here
    assert group["NYT"] == group["The New York Times"] == group.get("New York Times")
