"""Phrase lists that enter the corpus whatever their frequency: WordNet lemmas and the NLTK
name and gazetteer lists."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path

from pearl.data.sources import SkipReport

__all__ = ["iter_wordnet_lemmas", "iter_name_lists"]

_WORDNET_POS = {"noun": "NP", "verb": "VP", "adj": "ADJP", "adv": "ADVP"}


def iter_wordnet_lemmas(wordnet_dir: str | Path, report: SkipReport | None = None
                        ) -> Iterator[tuple[str, str]]:
    """``(lemma, lexical_class)`` for every lemma of WordNet's ``index.<pos>`` files,
    underscores turned into spaces (multi-word and single-word lemmas alike)."""
    report = report if report is not None else SkipReport()
    for pos, lex in _WORDNET_POS.items():
        path = Path(wordnet_dir) / f"index.{pos}"
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            report.skip("unreadable file")
            continue
        report.files += 1
        for line in lines:
            if not line or line.startswith(" "):
                continue
            lemma = line.split(" ", 1)[0].replace("_", " ")
            if any(c.isalpha() for c in lemma):
                yield lemma, lex


def iter_name_lists(nltk_dir: str | Path, report: SkipReport | None = None
                    ) -> Iterator[tuple[str, str]]:
    """``(name, package)`` from ``names.zip`` (first names) and ``gazetteers.zip``
    (countries, nationalities, US states and cities, provinces)."""
    report = report if report is not None else SkipReport()
    for package in ("names", "gazetteers"):
        path = Path(nltk_dir) / f"{package}.zip"
        try:
            with zipfile.ZipFile(path) as z:
                for member in sorted(z.namelist()):
                    base = member.rsplit("/", 1)[-1]
                    if not base.endswith(".txt") or base.upper().startswith(("README",
                                                                             "LICENSE")):
                        continue
                    report.files += 1
                    text = z.read(member).decode("utf-8", errors="replace")
                    for line in text.splitlines():
                        name = " ".join(line.split())
                        if name and any(c.isalpha() for c in name):
                            yield name, package
        except (OSError, zipfile.BadZipFile):
            report.skip("unreadable file")
