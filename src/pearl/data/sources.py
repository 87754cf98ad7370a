"""Raw text sources: stream (source, text) units out of the shared corpus or any folder.

Readers know the formats of the NLTK corpora in ``corpus/nltk`` (tagged Brown and problem
reports, CoNLL-2000 columns, Treebank raw files, review and pros/cons markup, IEER SGML)
and of WikiText; any other ``.txt`` file, in a folder or a zip, is read line by line.
Unreadable files, empty lines, enormous lines and lines that are not text are skipped and
counted in a :class:`SkipReport`, never raised.
"""

from __future__ import annotations

import logging
import re
import zipfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pearl._io import read_zip_member

__all__ = ["SkipReport", "TextUnit", "iter_text", "LIST_SOURCES", "MAX_LINE_CHARS"]

logger = logging.getLogger(__name__)

#: Lines longer than this are skipped as junk (minified data, binary noise).
MAX_LINE_CHARS = 20_000
#: NLTK packages that are word lists, not running text.
LIST_SOURCES = {"names", "gazetteers", "words", "stopwords"}

_TAG_TOKEN = re.compile(r"^[^\s]+/[A-Za-z$.,:`'()*+\-]+$")
_MARKUP = re.compile(r"<[^>]+>")


@dataclass
class SkipReport:
    """Counts of what the readers skipped, by reason."""

    counts: Counter = field(default_factory=Counter)
    files: int = 0
    units: int = 0

    def skip(self, reason: str, n: int = 1) -> None:
        self.counts[reason] += n

    def as_dict(self) -> dict:
        return {"files_read": self.files, "text_units": self.units, "skipped": dict(self.counts)}


@dataclass(frozen=True)
class TextUnit:
    """A piece of running text (usually a line or paragraph) and where it came from."""

    source: str
    text: str


def _is_tagged(line: str) -> bool:
    """True for "word/TAG word/TAG ..." lines (Brown, problem reports)."""
    if "/" not in line:
        return False
    toks = line.split()
    return bool(toks) and sum(bool(_TAG_TOKEN.match(t)) for t in toks) >= 0.9 * len(toks)


def _untag(line: str) -> str:
    words = [tok.rsplit("/", 1)[0] for tok in line.split()]
    return " ".join('"' if w in {"``", "''"} else w for w in words)


def _clean_wikitext(line: str) -> str | None:
    s = line.strip()
    if not s or (s.startswith("=") and s.endswith("=")):
        return None
    return s.replace(" @-@ ", "-").replace(" @,@ ", ",").replace(" @.@ ", ".")


def _lines(raw: bytes, report: SkipReport) -> Iterator[str]:
    text = raw.decode("utf-8", errors="replace")
    if "\x00" in text[:4096]:
        report.skip("binary file")
        return
    bad = text.count("\ufffd")
    if bad:
        report.skip("undecodable bytes replaced", bad)
    yield from text.splitlines()


def _units_of_member(package: str, name: str, raw: bytes, report: SkipReport):
    base = name.rsplit("/", 1)[-1]
    if base.upper().startswith(("README", "LICENSE")) or base.endswith(
        (".xml", ".mrg", ".prd", ".pos")
    ):
        return
    if package == "treebank" and "/raw/" not in name:
        return
    if package == "conll2000":  # word POS chunk, sentences separated by blank lines
        words: list[str] = []
        for line in _lines(raw, report):
            if line.strip():
                words.append(line.split(" ", 1)[0])
            elif words:
                yield " ".join(words)
                words = []
        if words:
            yield " ".join(words)
        return
    for line in _lines(raw, report):
        if package == "treebank" and line.startswith(".START"):
            continue
        if package == "product_reviews_1" or package == "product_reviews_2":
            if line.startswith(("*", "[t]")) or "##" not in line:
                continue
            line = line.split("##", 1)[1]
        if package in {"pros_cons", "ieer"}:
            line = _MARKUP.sub("", line)
        if package.startswith("wikitext"):
            line = _clean_wikitext(line) or ""
        elif _is_tagged(line):
            line = _untag(line)
        yield line


def _emit(source: str, lines, report: SkipReport) -> Iterator[TextUnit]:
    for line in lines:
        s = " ".join(line.split())
        if not s:
            report.skip("empty line")
        elif len(s) > MAX_LINE_CHARS:
            report.skip("enormous line")
        elif not any(c.isalpha() for c in s):
            report.skip("no letters")
        else:
            report.units += 1
            yield TextUnit(source, s)


def iter_text(root: str | Path, report: SkipReport | None = None) -> Iterator[TextUnit]:
    """Stream the running-text units under ``root``, in a fixed (sorted) order.

    ``root`` may be the shared ``corpus`` folder (``nltk/*.zip`` and ``wikitext2/``), or
    any folder of ``.txt`` files (searched recursively) and ``.zip`` archives of them.
    Word-list packages (names, gazetteers, words, stopwords) are not running text and are
    skipped here; see :mod:`pearl.data.lexicon`.
    """
    report = report if report is not None else SkipReport()
    root = Path(root)
    if not root.exists():
        raise FileNotFoundError(f"corpus folder not found: {root}")
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    for path in files:
        package = path.stem.lower()
        if path.suffix == ".zip":
            if package in LIST_SOURCES:
                continue
            try:
                with zipfile.ZipFile(path) as z:
                    members = sorted(m for m in z.namelist() if not m.endswith("/"))
                    for m in members:
                        try:
                            raw = read_zip_member(z, m)
                        except (OSError, zipfile.BadZipFile, RuntimeError) as exc:
                            logger.warning("skipped %s:%s: %s", path, m, exc)
                            report.skip("unreadable or oversized file")
                            continue
                        report.files += 1
                        yield from _emit(package, _units_of_member(package, m, raw, report), report)
            except (OSError, zipfile.BadZipFile) as exc:
                logger.warning("skipped %s: %s", path, exc)
                report.skip("unreadable file")
            continue
        if (
            path.suffix not in {".txt", ".tokens", ""}
            or path.name.upper().startswith(("README", "PROVENANCE", "LICENSE"))
            or path.suffix == ".md"
        ):
            continue
        try:
            raw = path.read_bytes()
        except OSError as exc:
            logger.warning("skipped %s: %s", path, exc)
            report.skip("unreadable file")
            continue
        report.files += 1
        src = "wikitext2" if path.suffix == ".tokens" else path.stem
        pkg = "wikitext2" if path.suffix == ".tokens" else "text"
        yield from _emit(src, _units_of_member(pkg, path.name, raw, report), report)
