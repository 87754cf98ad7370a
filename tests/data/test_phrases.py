import pytest

from pearl.data.corpus import load_spacy
from pearl.data.phrases import extract_spans, phrase_entity


@pytest.fixture(scope="module")
def nlp():
    return load_spacy()


def _phrases(nlp, text):
    doc = nlp(text)
    return {(doc[a:b].text, lex, phrase_entity(doc, a, b)) for a, b, lex in extract_spans(doc)}


def test_five_classes_and_types(nlp):
    got = _phrases(
        nlp,
        "The New York Times reported that Apple has not quickly bought a very "
        "small startup in London.",
    )
    assert ("The New York Times", "NP", "ORG") in got
    assert ("has not quickly bought", "VP", None) in got
    assert ("in London", "PP", None) in got
    assert ("London", "NP", "GPE") in got
    got = _phrases(nlp, "They moved to Paris and were very happy there.")
    assert ("very happy", "ADJP", None) in got
    assert ("there", "ADVP", None) in got


def test_spans_do_not_overlap_except_pp(nlp):
    doc = nlp("She wants to buy the house because it is very cheap and extremely well located.")
    spans = [s for s in extract_spans(doc) if s[2] != "PP"]
    covered = [i for a, b, _ in spans for i in range(a, b)]
    assert len(covered) == len(set(covered))
