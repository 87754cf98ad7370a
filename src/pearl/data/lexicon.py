"""Phrase lists that enter the corpus whatever their frequency: WordNet lemmas and the NLTK
name and gazetteer lists, with the entity type their source knows.

The corpus builder types them either with a named-entity tagger run on each isolated
string (``list_types="tagger"``, the default and the corpus of the shipped model; on
lower-cased WordNet lemmas from :func:`iter_wordnet_index` it tagged "birth canal" a
PERSON), or with the types the lists themselves give (``list_types="lists"``):

* WordNet: lemmas are read from the ``data.<pos>`` files, so proper nouns keep their case
  ("London", not "london"). An *instance* synset (one with an instance-hypernym pointer)
  is typed by its lexicographer file and hypernym closure (:func:`wordnet_entity_type`);
  every other lemma is untyped (OTHER).
* ``names.zip`` (first names): PERSON. ``gazetteers.zip``: NORP for ``nationalities.txt``,
  GPE for the country, state, province and city lists.

The ``data.<pos>`` files are parsed here rather than through NLTK's WordNet reader: both
give the same 206,798 (lemma, class, type) triples, in 4.1 s here against 44.3 s through
NLTK, whose 3.9 reader also needs the database copied into its own layout first
(``benchmarks/data/wordnet_reader.py``, results/benchmarks/wordnet_reader.md).
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path

from pearl._io import read_zip_member
from pearl.data.sources import SkipReport

__all__ = ["iter_wordnet_index", "iter_wordnet_lemmas", "iter_name_lists", "wordnet_entity_type"]

_WORDNET_POS = {"noun": "NP", "verb": "VP", "adj": "ADJP", "adv": "ADVP"}

# WordNet 3.0 noun synsets (data.noun offsets) that decide the type of an instance.
# city.n.01, administrative_district.n.01, country.n.02
_CITY, _DISTRICT, _COUNTRY = 8524735, 8491826, 8544813
_ORGANIZATION = 8008335  # organization.n.01
_PEOPLES = {7967382, 7942152, 8166552}  # ethnic_group.n.01, people.n.01, nation.n.02
_STRUCTURES = {4341686, 3315023}  # structure.n.01, facility.n.01


def wordnet_entity_type(lexname: str, ancestors: set[int], instance: bool = True) -> str | None:
    """The OntoNotes type of a WordNet noun synset that names something, or None.

    Parameters
    ----------
    lexname : str
        Its lexicographer file (``"noun.person"``, ``"noun.location"``, ...).
    ancestors : set of int
        The ``data.noun`` offsets of its (instance-)hypernym closure.
    instance : bool, default=True
        True for an instance synset ("Paris", "Chopin"). Capitalised lemmas of other
        synsets are typed only as organisations ("NATO", "Red Cross"), peoples
        ("Apache") and members of groups ("Democrat", "Frenchman": NORP, as OntoNotes
        does); the rest ("Doberman", "Bunsen burner") stay untyped.
    """
    if lexname == "noun.group":  # instances and capitalised lemmas alike
        if _ORGANIZATION in ancestors:
            return "ORG"
        return "NORP" if ancestors & _PEOPLES else None
    if not instance:
        return "NORP" if lexname == "noun.person" else None
    if lexname == "noun.person":
        return "PERSON"
    if lexname == "noun.location":
        return "GPE" if ancestors & {_CITY, _DISTRICT, _COUNTRY} else "LOC"
    if lexname == "noun.object":  # rivers, mountains, islands, continents, planets
        return "LOC"
    if lexname in {"noun.act", "noun.event"}:  # battles, wars, crusades
        return "EVENT"
    if lexname == "noun.communication":  # books, scriptures, documents
        return "WORK_OF_ART"
    if lexname == "noun.artifact":
        return "FAC" if ancestors & _STRUCTURES else None
    if lexname == "noun.time":  # holidays, eras
        return "DATE"
    return None


def _read_lexnames(wordnet_dir: Path, report: SkipReport) -> dict[int, str]:
    """Lexicographer file numbers to names; without the file no instance can be typed,
    which is counted in ``report`` (the lemmas are still yielded, untyped)."""
    try:
        lines = (wordnet_dir / "lexnames").read_text(encoding="utf-8").splitlines()
    except OSError:
        report.skip("no WordNet lexnames file (WordNet lemmas left untyped)")
        return {}
    out = {}
    for line in lines:
        parts = line.split()
        if len(parts) >= 2 and parts[0].isdigit():
            out[int(parts[0])] = parts[1]
    return out


def _parse_data_line(line: str) -> tuple[int, int, list[str], list[tuple[str, int]]] | None:
    """``offset, lex_filenum, words, [(pointer symbol, target offset)]`` or None."""
    fields = line.split(" | ", 1)[0].split()
    try:
        offset, lexnum, n_words = int(fields[0]), int(fields[1]), int(fields[3], 16)
        words = [fields[4 + 2 * k] for k in range(n_words)]
        at = 4 + 2 * n_words
        n_ptr = int(fields[at])
        ptrs = [(fields[at + 1 + 4 * k], int(fields[at + 2 + 4 * k])) for k in range(n_ptr)]
    except (ValueError, IndexError):
        return None
    return offset, lexnum, words, ptrs


def _clean_lemma(word: str) -> str:
    if word.endswith(")") and "(" in word:  # adjective markers: (a), (p), (ip)
        word = word[: word.rindex("(")]
    return word.replace("_", " ")


def _wordnet_lines(path: Path, report: SkipReport) -> Iterator[str]:
    """The entry lines of a WordNet database file (licence header lines, which start with
    a space, and blank lines left out); an unreadable file is counted and yields nothing."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        report.skip("unreadable file")
        return
    report.files += 1
    yield from (line for line in lines if line and not line.startswith(" "))


def iter_wordnet_index(
    wordnet_dir: str | Path, report: SkipReport | None = None
) -> Iterator[tuple[str, str]]:
    """``(lemma, lexical_class)`` for every lemma of WordNet's ``index.<pos>`` files,
    lower-cased as the index stores them (the first corpus, ``list_types="tagger"``)."""
    report = report if report is not None else SkipReport()
    for pos, lex in _WORDNET_POS.items():
        for line in _wordnet_lines(Path(wordnet_dir) / f"index.{pos}", report):
            lemma = line.split(" ", 1)[0].replace("_", " ")
            if any(c.isalpha() for c in lemma):
                yield lemma, lex


def iter_wordnet_lemmas(
    wordnet_dir: str | Path, report: SkipReport | None = None
) -> Iterator[tuple[str, str, str | None]]:
    """``(lemma, lexical_class, entity_type)`` for every lemma of WordNet's ``data.<pos>``
    files, in file order, underscores turned into spaces and case kept.

    ``entity_type`` is :func:`wordnet_entity_type` for lemmas of noun instance synsets and
    None otherwise. A lemma of several synsets is yielded once per synset. Missing or
    unreadable files are counted in ``report`` and skipped.
    """
    report = report if report is not None else SkipReport()
    wordnet_dir = Path(wordnet_dir)
    lexnames = _read_lexnames(wordnet_dir, report)
    for pos, lex in _WORDNET_POS.items():
        synsets = {}
        for line in _wordnet_lines(wordnet_dir / f"data.{pos}", report):
            parsed = _parse_data_line(line)
            if parsed is None:
                report.skip("malformed WordNet line")
                continue
            synsets[parsed[0]] = parsed
        parents = {
            off: [t for sym, t in ptrs if sym in {"@", "@i"}]
            for off, (_, _, _, ptrs) in synsets.items()
        }
        for off, (_, lexnum, words, ptrs) in synsets.items():
            instance = any(sym == "@i" for sym, _ in ptrs)
            ent = None
            if pos == "noun" and (instance or any(w[:1].isupper() for w in words)):
                seen: set[int] = set()
                todo = list(parents[off])
                while todo:
                    p = todo.pop()
                    if p not in seen:
                        seen.add(p)
                        todo.extend(parents.get(p, ()))
                ent = wordnet_entity_type(lexnames.get(lexnum, ""), seen, instance)
            for word in words:
                lemma = _clean_lemma(word)
                if any(c.isalpha() for c in lemma):
                    yield lemma, lex, ent if instance or lemma[:1].isupper() else None


def _list_type(package: str, member: str) -> str:
    if package == "names":
        return "PERSON"
    return "NORP" if member.rsplit("/", 1)[-1].startswith("nationalities") else "GPE"


def iter_name_lists(
    nltk_dir: str | Path, report: SkipReport | None = None
) -> Iterator[tuple[str, str, str]]:
    """``(name, package, entity_type)`` from ``names.zip`` (first names: PERSON) and
    ``gazetteers.zip`` (countries, US states and cities, provinces: GPE; nationalities:
    NORP)."""
    report = report if report is not None else SkipReport()
    for package in ("names", "gazetteers"):
        path = Path(nltk_dir) / f"{package}.zip"
        try:
            with zipfile.ZipFile(path) as z:
                for member in sorted(z.namelist()):
                    base = member.rsplit("/", 1)[-1]
                    if not base.endswith(".txt") or base.upper().startswith(("README", "LICENSE")):
                        continue
                    report.files += 1
                    ent = _list_type(package, member)
                    text = read_zip_member(z, member).decode("utf-8", errors="replace")
                    for line in text.splitlines():
                        name = " ".join(line.split())
                        if name and any(c.isalpha() for c in name):
                            yield name, package, ent
        except (OSError, zipfile.BadZipFile):
            report.skip("unreadable file")
