import zipfile

import pytest

from pearl.evaluation.chunking import conll2000_gold, score_spans


def test_score_spans():
    pred = {(0, 2, "NP"), (2, 3, "VP"), (3, 5, "NP")}
    gold = {(0, 2, "NP"), (2, 3, "VP"), (3, 6, "NP")}
    s = score_spans([(pred, gold)])
    assert s["NP"]["precision"] == 0.5 and s["NP"]["recall"] == 0.5
    assert s["VP"]["f1"] == 1.0
    assert s["ADJP"]["predicted"] == 0 and s["ADJP"]["precision"] == 0.0


def test_conll_pp_merges_with_following_np(tmp_path):
    with zipfile.ZipFile(tmp_path / "conll2000.zip", "w") as z:
        z.writestr(
            "conll2000/test.txt",
            "He PRP B-NP\nlives VBZ B-VP\nin IN B-PP\nNew NNP B-NP\nYork NNP I-NP\n. . O\n",
        )
    ((words, gold),) = list(conll2000_gold(tmp_path / "conll2000.zip"))
    assert words == ["He", "lives", "in", "New", "York", "."]
    assert gold == {(0, 1, "NP"), (1, 2, "VP"), (2, 5, "PP"), (3, 5, "NP")}


@pytest.mark.integration
def test_agreement_on_real_conll(tmp_path):
    from conftest import SHARED_DATA

    from pearl.evaluation.chunking import measure_agreement

    nltk_dir = SHARED_DATA / "corpus" / "nltk"
    if not nltk_dir.is_dir():
        pytest.skip("shared corpus not present")
    res = measure_agreement(nltk_dir)
    assert res["conll2000"]["classes"]["NP"]["precision"] > 0.8
