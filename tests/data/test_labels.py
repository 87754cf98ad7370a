import pytest

from pearl.data.labels import LABELS, make_label, split_label


def test_95_labels():
    assert len(LABELS) == len(set(LABELS)) == 95
    assert "NP-ORG" in LABELS and "ADVP-OTHER" in LABELS


def test_make_and_split():
    assert make_label("NP", "GPE") == "NP-GPE"
    assert make_label("VP", None) == "VP-OTHER"
    assert make_label("NP", "MISC") == "NP-OTHER"
    assert split_label("NP-WORK_OF_ART") == ("NP", "WORK_OF_ART")
    with pytest.raises(ValueError):
        make_label("XP", "ORG")
