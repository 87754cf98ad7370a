import pandas as pd
import pytest

from pearl.mining.shared_words import content_words, shared_word_negatives


def _groups(*names_of_groups):
    rows = [(t, g, "variants") for g, names in enumerate(names_of_groups) for t in names]
    return pd.DataFrame(rows, columns=["text", "group", "source"])


def test_content_words_drop_stopwords_digits_and_case():
    assert content_words("The Bank of New-York 1999, Inc.") == {"bank", "new", "york", "inc"}
    assert content_words("") == frozenset() and content_words("of the") == frozenset()
    assert content_words("Ångström Café 東京") == {"ångström", "café", "東京"}


def test_the_names_sharing_most_words_that_are_not_contained_in_each_other():
    groups = _groups(
        ["The New York Times", "NYTimes", "nytimes.com"],
        ["New York Post"],
        ["New York"],  # all its words are in the Times: perhaps the same thing, never used
        ["Washington Post"],
        ["The Times of London"],
        ["Acme Corp"],
    )
    out = shared_word_negatives(groups, per_name=5)
    assert out["The New York Times"] == ["New York Post"]  # shares two words, the Times one
    assert set(out["New York Post"]) == {"The New York Times"}
    assert "New York" not in out  # its words are inside every name sharing them
    assert out["Washington Post"] == ["New York Post"]
    assert "Acme Corp" not in out
    assert "NYTimes" not in [n for negs in out.values() for n in negs]  # names only


def test_options_common_words_exclusions_and_seed():
    many = _groups(*[[f"Alpha {c}{d}x Company"] for c in "bcdefgh" for d in "klmn"])
    out = shared_word_negatives(many, per_name=2, max_groups_per_word=100)
    assert all(len(v) == 2 for v in out.values()) and len(out) == 28
    assert out == shared_word_negatives(many, per_name=2, max_groups_per_word=100)
    assert out != shared_word_negatives(many, per_name=2, max_groups_per_word=100, seed=1)
    # "alpha" and "company" held by 28 groups: above the cap, no name shares a word
    assert shared_word_negatives(many, per_name=2, max_groups_per_word=27) == {}
    assert shared_word_negatives(many, per_name=0) == {}
    excluded = shared_word_negatives(
        _groups(["New York Times"], ["New York Post"], ["New York Mets"]),
        exclude=["new york post"],
    )
    assert excluded["New York Times"] == ["New York Mets"]
    with pytest.raises(ValueError, match="per_name"):
        shared_word_negatives(many, per_name=-1)


def test_corpus_names_get_word_sharing_negatives_and_the_cli_writes_them(tmp_path, capsys):
    import json

    from pearl.cli import main
    from pearl.data.corpus import PhraseRecord as CorpusRow
    from pearl.mining.hard_negatives import read_hard_negatives
    from pearl.mining.shared_words import corpus_word_negatives

    rows = [
        CorpusRow("The New York Times", "NP-ORG", 5, "x"),
        CorpusRow("New York Post", "NP-ORG", 3, "x"),
        CorpusRow("New York", "NP-GPE", 9, "x"),  # all its words in the Times: not one
        CorpusRow("the New York rain", "NP-OTHER", 2, "x"),  # not a name
        CorpusRow("Washington Post", "NP-ORG", 4, "x"),
    ]
    got = corpus_word_negatives(rows)
    assert got["The New York Times"] == ["New York Post"]
    assert "the New York rain" not in got and "New York" not in got
    assert got["Washington Post"] == ["New York Post"]
    assert corpus_word_negatives(rows, exclude=["new york post"]) == {}

    corpus = tmp_path / "corpus.tsv"
    corpus.write_text(
        "phrase\tlabel\tfrequency\tsource\n"
        + "".join(f"{r.phrase}\t{r.label}\t{r.frequency}\t{r.source}\n" for r in rows)
    )
    out = tmp_path / "neg.tsv"
    assert main(["mine", str(corpus), "--shared-words", "-k", "2", "-o", str(out), "-q"]) == 0
    assert json.loads(capsys.readouterr().out)["names_with_negatives"] == len(got)
    assert read_hard_negatives(out) == got
    skip = tmp_path / "skip.txt"
    skip.write_text("New York Post\n")
    assert (
        main(["mine", str(corpus), "--shared-words", "--exclude", str(skip), "-o", str(out)]) == 0
    )
    assert read_hard_negatives(out) == {}
    assert main(["mine", str(corpus), "--exclude", str(skip), "-o", str(out)]) == 2
