import random

import pytest
from conftest import SHARED_DATA, HashEncoder

from pearl.augment.phrase import (
    AcronymParaphraser,
    MinedParaphraser,
    Paraphraser,
    Seq2SeqParaphraser,
    WordNetParaphraser,
    token_overlap,
)

WORDNET = SHARED_DATA / "lexicon" / "wordnet"


def test_acronyms_and_abbreviations():
    a = AcronymParaphraser()
    assert {"NYT", "NYTimes", "NY Times"} <= set(a.options("The New York Times"))
    assert "General Electric Co." in a.options("General Electric Company")
    assert "HA" not in a.options("heart attack")  # lower-case phrases get no initials
    assert a("zebra", random.Random(0)) is None
    assert isinstance(a, Paraphraser)


@pytest.mark.skipif(not WORDNET.is_dir(), reason="shared WordNet not present")
def test_wordnet_whole_expression():
    w = WordNetParaphraser(str(WORDNET))
    assert "USA" in w.options("United States")
    assert w("qwzx vbnm", random.Random(0)) is None


def test_mined_paraphrases_have_low_overlap():
    phrases = ["purchase agreement", "purchase agreements", "sales contract", "blue whale"]

    class Fake(HashEncoder):
        def encode(self, texts, **kw):
            import numpy as np

            vec = {
                "purchase agreement": [1, 0],
                "purchase agreements": [1, 0.01],
                "sales contract": [0.95, 0.1],
                "blue whale": [0, 1],
            }
            return np.array([vec[t] for t in texts], dtype="float32")

    m = MinedParaphraser(Fake(), min_cosine=0.9, max_overlap=0.3, top_k=3).fit(
        phrases, show_progress_bar=False
    )
    assert m.table_["purchase agreement"] == ["sales contract"]  # the plural overlaps
    assert m("blue whale", random.Random(0)) is None
    assert token_overlap("a b", "b c") == pytest.approx(1 / 3)


def test_seq2seq_fails_clearly_offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    p = Seq2SeqParaphraser("some-org/t5-paraphraser")
    with pytest.raises(OSError, match="not available offline"):
        p("a phrase", random.Random(0))
