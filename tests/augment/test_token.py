import random

import pytest
from conftest import SHARED_DATA

from pearl.augment.token import GloveSynonyms, WordNetSynonyms, swap_tokens

WORDNET = SHARED_DATA / "lexicon" / "wordnet"
needs_wordnet = pytest.mark.skipif(not WORDNET.is_dir(), reason="shared WordNet not present")


def test_swap_tokens():
    rng = random.Random(0)
    assert swap_tokens("single", rng) == "single"
    out = swap_tokens("new york times", rng)
    assert out != "new york times" and sorted(out.split()) == ["new", "times", "york"]


@needs_wordnet
def test_wordnet_synonyms_replace_one_word():
    aug = WordNetSynonyms(str(WORDNET))
    assert "automobile" in aug.synonyms("car")
    out = aug("fast car", random.Random(0))
    assert out != "fast car" and len(out.split()) >= 2
    assert aug("The New York Times", random.Random(0)) == "The New York Times"  # names kept


def test_glove_neighbours_respect_threshold():
    strict = GloveSynonyms(threshold=0.99)
    loose = GloveSynonyms(threshold=0.5)
    assert strict.neighbours("house") == []
    assert loose.neighbours("house")
    out = loose("big house", random.Random(0))
    assert out != "big house"
    assert strict("big house", random.Random(0)) == "big house"


def test_glove_can_leave_names_alone():
    names = GloveSynonyms(threshold=0.5, keep_names=True)
    plain = GloveSynonyms(threshold=0.5)
    assert plain.neighbours("falls")  # the common word has neighbours ...
    # ... so by default the name's token is replaced, with keep_names it never is
    assert plain("Victoria Falls", random.Random(0)) != "Victoria Falls"
    for seed in range(20):
        assert names("Victoria Falls", random.Random(seed)) == "Victoria Falls"
        out = names("Victoria falls", random.Random(seed)).split()
        assert out[0] == "Victoria" and out[1] != "falls"
