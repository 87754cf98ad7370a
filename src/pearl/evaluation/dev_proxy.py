"""The development proxy: ISO 3166 names (pycountry), not a benchmark file.

Recipes are compared on it without touching the benchmark (``experiments/dev_proxy.py``),
so the shipped models' alias data exclude its strings (``pearl benchmark-strings --dev-proxy``):

- ``official``: each country's official or common name must retrieve its short name among
  every country and subdivision name;
- ``typo``: 2,000 subdivision names with one random edit (seed 0) must retrieve their
  subdivision.
"""

from __future__ import annotations

import random

__all__ = ["LETTERS", "one_edit", "dev_tasks", "dev_scores", "dev_strings"]

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def one_edit(word: str, rng: random.Random) -> str:
    """``word`` with one random deletion, insertion, substitution or transposition.

    Parameters
    ----------
    word : str
        At least one character.
    rng : random.Random

    Returns
    -------
    str
    """
    i = rng.randrange(len(word))
    kind = rng.choice("disx") if len(word) > 1 else "is"
    if kind == "d":
        return word[:i] + word[i + 1 :]
    if kind == "i":
        return word[:i] + rng.choice(LETTERS) + word[i:]
    if kind == "s":
        return word[:i] + rng.choice(LETTERS.replace(word[i].lower(), "")) + word[i + 1 :]
    i = min(i, len(word) - 2)
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


def dev_tasks(
    n_typos: int = 2000, seed: int = 0
) -> dict[str, tuple[list[str], list[str], list[int]]]:
    """The two tasks, each as (queries, candidates, index of each query's answer).

    Parameters
    ----------
    n_typos : int, default=2000
        Misspelt subdivision names of the ``typo`` task.
    seed : int, default=0

    Returns
    -------
    dict
        ``"official"`` and ``"typo"``.
    """
    from pearl._extras import require

    pycountry = require("pycountry", "the development proxy's names")
    countries = sorted({c.name for c in pycountry.countries})
    subdivisions = sorted({s.name for s in pycountry.subdivisions} - set(countries))
    gallery = countries + subdivisions
    where = {name: i for i, name in enumerate(gallery)}
    queries, answers = [], []
    for c in pycountry.countries:
        for alias in (getattr(c, "official_name", None), getattr(c, "common_name", None)):
            if alias and alias != c.name:
                queries.append(alias)
                answers.append(where[c.name])
    out = {"official": (queries, gallery, answers)}
    rng = random.Random(seed)
    picked = rng.sample(subdivisions, n_typos)
    typos = [one_edit(name, rng) for name in picked]
    sub_where = {name: i for i, name in enumerate(subdivisions)}
    out["typo"] = (typos, subdivisions, [sub_where[n] for n in picked])
    return out


def dev_scores(encoder, tasks: dict | None = None, batch_size: int = 128) -> dict[str, float]:
    """Top-1 accuracy (in %) of each task of :func:`dev_tasks` by cosine, and ``dev``,
    their mean: the development score recipes are compared on.

    Parameters
    ----------
    encoder : encoder
        Anything with ``encode(texts, batch_size=...)`` (a pearl encoder, a
        ``SentenceTransformer``).
    tasks : dict, optional
        :func:`dev_tasks` (computed when not given).
    batch_size : int, default=128

    Returns
    -------
    dict
        ``{"official": ..., "typo": ..., "dev": ...}``, rounded to 0.01.
    """
    import numpy as np

    from pearl.encoders.base import normalize_rows

    tasks = dev_tasks() if tasks is None else tasks
    scores = {}
    for name, (queries, gallery, answers) in tasks.items():
        q = normalize_rows(np.asarray(encoder.encode(queries, batch_size=batch_size)))
        g = normalize_rows(np.asarray(encoder.encode(gallery, batch_size=batch_size)))
        best = (q @ g.T).argmax(axis=1)
        scores[name] = round(100 * float(np.mean(best == np.asarray(answers))), 2)
    scores["dev"] = round(float(np.mean(list(scores.values()))), 2)
    return scores


def dev_strings() -> list[str]:
    """Every string of :func:`dev_tasks` (queries and candidates), sorted: what training
    data must exclude.

    Returns
    -------
    list of str
    """
    return sorted({s for q, g, _ in dev_tasks().values() for s in [*q, *g]})
