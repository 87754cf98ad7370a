from collections import Counter

from pearl.data.acronyms import find_definitions, long_form, mine_definitions


def test_long_form_is_the_shortest_matching_tail():
    words = "reports from the World Health Organization".split()
    assert long_form("WHO", words) == "World Health Organization"
    assert long_form("mtDNA", "the mitochondrial DNA".split()) == "mitochondrial DNA"
    assert long_form("XYZ", words) is None


def test_definitions_in_running_text():
    text = (
        "The National Football League ( NFL ) and the Australian Stock Exchange (ASX) "
        "met in Sydney ( Cardiff ) ; see (a) and ( 42 )."
    )
    found = find_definitions(text)
    assert ("National Football League", "NFL") in found
    assert ("Australian Stock Exchange", "ASX") in found
    # a place in brackets, a list marker and a number are not acronyms
    assert all(short not in {"Cardiff", "a", "42"} for _, short in found)
    assert find_definitions("") == [] and find_definitions("no brackets here") == []


def test_mine_definitions_counts_repeats():
    texts = [
        "the Food and Drug Administration (FDA) said",
        "Food and Drug Administration (FDA)",
        "emoji 🙂 ( 🙂 ) and unicode Zürich Grand Hotel (ZGH)",
    ]
    counts = mine_definitions(texts, show_progress_bar=False)
    assert isinstance(counts, Counter)
    assert counts[("Food and Drug Administration", "FDA")] == 2
    assert counts[("Zürich Grand Hotel", "ZGH")] == 1
