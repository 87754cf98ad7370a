import zipfile

import pytest

from pearl.data.sources import MAX_LINE_CHARS, SkipReport, iter_text


def test_reads_text_and_counts_what_it_skips(tmp_path):
    (tmp_path / "a.txt").write_text(
        "Hello wörld 🙂 from Zürich.\n\n   \n12345 !!!\n"
        + "x" * (MAX_LINE_CHARS + 1)
        + "\nLast line.\n",
        encoding="utf-8",
    )
    (tmp_path / "b.txt").write_bytes(b"caf\xe9 latin-1 line\n")
    (tmp_path / "c.txt").write_bytes(b"\x00\x01binary")
    (tmp_path / "broken.zip").write_bytes(b"PK not a zip")
    (tmp_path / "README").write_text("not corpus text")
    report = SkipReport()
    units = list(iter_text(tmp_path, report))
    texts = [u.text for u in units]
    assert texts == ["Hello wörld 🙂 from Zürich.", "Last line.", "caf\ufffd latin-1 line"]
    assert report.counts["empty line"] == 2
    assert report.counts["no letters"] == 1
    assert report.counts["enormous line"] == 1
    assert report.counts["binary file"] == 1
    assert report.counts["unreadable file"] == 1
    assert report.counts["undecodable bytes replaced"] == 1


def test_nltk_formats(tmp_path):
    with zipfile.ZipFile(tmp_path / "brown.zip", "w") as z:
        z.writestr("brown/ca01", "\tThe/at jury/nn said/vbd ``/`` no/at ''/'' ./.\n")
        z.writestr("brown/README", "readme")
    with zipfile.ZipFile(tmp_path / "conll2000.zip", "w") as z:
        z.writestr("conll2000/test.txt", "He PRP B-NP\nran VBD B-VP\n\nShe PRP B-NP\n")
    with zipfile.ZipFile(tmp_path / "names.zip", "w") as z:
        z.writestr("names/male.txt", "Aaron\n")
    (tmp_path / "wiki.tokens").write_text(" = Title = \n A well @-@ known 1 @,@ 000 fact \n")
    texts = [(u.source, u.text) for u in iter_text(tmp_path)]
    assert texts == [
        ("brown", 'The jury said " no " .'),
        ("conll2000", "He ran"),
        ("conll2000", "She"),
        ("wikitext2", "A well-known 1,000 fact"),
    ]


def test_missing_folder():
    with pytest.raises(FileNotFoundError):
        list(iter_text("/nonexistent/folder"))


def test_an_oversized_archive_member_is_skipped_with_a_warning(tmp_path, monkeypatch, caplog):
    import logging

    from pearl._io import read_zip_member

    with zipfile.ZipFile(tmp_path / "texts.zip", "w") as z:
        z.writestr("small.txt", "A small text.\n")
        z.writestr("huge.txt", "A huge text.\n" * 100)
    # a limit of 100 bytes stands in for 512 MiB
    monkeypatch.setattr(
        "pearl.data.sources.read_zip_member", lambda z, m: read_zip_member(z, m, limit=100)
    )
    report = SkipReport()
    with caplog.at_level(logging.WARNING):
        texts = [u.text for u in iter_text(tmp_path, report)]
    assert texts == ["A small text."]
    assert "texts.zip:huge.txt" in caplog.text and "unpacks to" in caplog.text
    assert report.counts["unreadable or oversized file"] == 1
