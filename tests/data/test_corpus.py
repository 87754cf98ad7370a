import zipfile

import pytest

from pearl.data.corpus import build_corpus, is_junk, read_corpus
from pearl.data.labels import LABELS


@pytest.fixture
def raw(tmp_path):
    root = tmp_path / "corpus"
    (root / "nltk").mkdir(parents=True)
    text = (
        "Apple bought a small startup in London.\n" * 2
        + "The New York Times reported that Apple bought a startup.\n"
        + "She walked very slowly to the station 🙂.\n\n"
    )
    (root / "news.txt").write_text(text, encoding="utf-8")
    with zipfile.ZipFile(root / "nltk" / "names.zip", "w") as z:
        z.writestr("names/female.txt", "Abigail\nAda\n")
    lex = tmp_path / "lexicon" / "wordnet"
    lex.mkdir(parents=True)
    (lex / "index.noun").write_text("  header line\nheart_attack n 1 0 1 0 1\n")
    (lex / "lexnames").write_text("03\tnoun.Tops\t1\n15\tnoun.location\t1\n14\tnoun.group\t1\n")
    (lex / "data.noun").write_text(
        "  1 header line\n"
        "00000010 03 n 01 heart_attack 0 000 | a gloss\n"
        "00000020 15 n 01 city 0 000 | a city\n"
        "00000030 15 n 02 Paris 0 City_of_Light 0 001 @i 00000020 n 0000 | French capital\n"
        "00000040 14 n 01 NATO 0 000 | an alliance\n"
        "00000050 15 n 01 Apple 0 001 @i 00000020 n 0000 | not the company\n"
    )
    return root, tmp_path / "lexicon"


def test_build_writes_typed_phrases(raw, tmp_path):
    root, lexicon = raw
    stats = build_corpus(
        root, tmp_path / "out", lexicon_root=lexicon, show_progress_bar=False, list_types="lists"
    )
    rows = {r.phrase: r for r in read_corpus(tmp_path / "out" / "corpus.tsv")}
    assert rows["Apple"].frequency == 3 and rows["Apple"].label == "NP-ORG"
    assert rows["in London"].label.startswith("PP-")
    assert "The New York Times" not in rows  # seen once: below min_freq
    assert rows["heart attack"].source == "wordnet" and rows["heart attack"].label[:3] == "NP-"
    assert rows["Ada"].source == "names" and rows["Ada"].frequency == 0
    assert rows["Ada"].label == "NP-PERSON"  # the list's type, not a tagger's guess
    assert rows["Paris"].label == "NP-LOC" and rows["Paris"].source == "wordnet"
    assert rows["City of Light"].label == "NP-LOC"
    assert rows["NATO"].label == "NP-OTHER"  # capitalised, but no organisation ancestor
    assert rows["Apple"].label == "NP-ORG"  # seen in the text: its type in context wins
    assert all(r.label in LABELS for r in rows.values())
    assert stats.phrases == len(rows)
    assert sum(stats.by_lexical.values()) == len(rows)
    for name in ("stats.json", "stats.md", "stats.png"):
        assert (tmp_path / "out" / name).is_file()
    assert stats.skipped["empty line"] == 1


def test_typed_min_freq_keeps_entity_names_seen_once(raw, tmp_path):
    root, lexicon = raw
    stats = build_corpus(
        root, tmp_path / "out", show_progress_bar=False, include_lists=False, typed_min_freq=1
    )
    rows = {r.phrase: r for r in read_corpus(tmp_path / "out" / "corpus.tsv")}
    build_corpus(root, tmp_path / "d", show_progress_bar=False, include_lists=False)
    default = {r.phrase for r in read_corpus(tmp_path / "d" / "corpus.tsv")}
    added = set(rows) - default
    assert "The New York Times" in added  # seen once, typed ORG in context
    assert added and all(not rows[t].label.endswith("-OTHER") for t in added)
    assert all(rows[t].frequency == 1 for t in added)
    assert default <= set(rows)
    assert stats.skipped["phrase: below min_freq"] > 0  # untyped phrases seen once
    with pytest.raises(ValueError, match="at least 1"):
        build_corpus(root, tmp_path / "x", show_progress_bar=False, typed_min_freq=0)


def test_tagger_typing_reads_the_lower_case_index(raw, tmp_path):
    root, lexicon = raw
    build_corpus(root, tmp_path / "out", lexicon_root=lexicon, show_progress_bar=False)
    rows = {r.phrase: r for r in read_corpus(tmp_path / "out" / "corpus.tsv")}
    assert rows["heart attack"].source == "wordnet"
    assert "Paris" not in rows  # the index only, not the data files
    assert rows["Ada"].source == "names" and rows["Ada"].label[:3] == "NP-"
    with pytest.raises(ValueError, match="list_types"):
        build_corpus(root, tmp_path / "x", lexicon_root=lexicon, list_types="ner")


def test_rebuild_is_byte_identical(raw, tmp_path):
    root, lexicon = raw
    build_corpus(root, tmp_path / "a", lexicon_root=lexicon, show_progress_bar=False)
    build_corpus(root, tmp_path / "b", lexicon_root=lexicon, show_progress_bar=False)
    assert (tmp_path / "a" / "corpus.tsv").read_bytes() == (
        tmp_path / "b" / "corpus.tsv"
    ).read_bytes()


def test_junk_rules():
    assert is_junk("") == "empty"
    assert is_junk("a b c d e f g h i j k") == "over max tokens"
    assert is_junk("1,234 !!") == "no letters"
    assert is_junk("the <unk> river") == "unknown-token marker"
    assert is_junk("New York") is None


def test_read_corpus_rejects_other_files(tmp_path):
    (tmp_path / "x.tsv").write_text("a\tb\n")
    with pytest.raises(ValueError, match="not a pearl corpus"):
        read_corpus(tmp_path / "x.tsv")


def test_contexts_hold_each_text_phrase_masked_in_its_sentence(raw, tmp_path):
    from pearl.data.contexts import MASK, read_contexts

    root, _ = raw
    build_corpus(
        root,
        tmp_path / "out",
        show_progress_bar=False,
        include_lists=False,
        typed_min_freq=1,
        contexts=3,
    )
    phrases = {r.phrase for r in read_corpus(tmp_path / "out" / "corpus.tsv")}
    contexts = read_contexts(tmp_path / "out" / "contexts.tsv")
    assert contexts and set(contexts) <= phrases
    assert contexts["The New York Times"] == f"{MASK} reported that Apple"
    for context in contexts.values():
        assert context.count(MASK) == 1 and len(context.split()) <= 7
    build_corpus(root, tmp_path / "none", show_progress_bar=False, include_lists=False)
    assert not (tmp_path / "none" / "contexts.tsv").exists()
    with pytest.raises(ValueError, match=">= 0"):
        build_corpus(root, tmp_path / "x", show_progress_bar=False, contexts=-1)


def test_contexts_files_round_trip_and_bad_ones_are_named(tmp_path):
    from pearl.data.contexts import read_contexts, write_contexts

    odd = {'a "quoted" name': "x\ty [MASK] 🙂", "plain": "the [MASK] here"}
    write_contexts(tmp_path / "c.tsv", odd, ["plain", 'a "quoted" name', "no context"])
    assert read_contexts(tmp_path / "c.tsv") == odd
    with pytest.raises(FileNotFoundError, match="--contexts"):
        read_contexts(tmp_path / "missing.tsv")
    (tmp_path / "bad.tsv").write_text("phrase\tpositive\na\tb\n")
    with pytest.raises(ValueError, match="columns"):
        read_contexts(tmp_path / "bad.tsv")
