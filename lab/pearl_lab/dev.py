"""The development proxy's tasks: ISO 3166 names (pycountry; no benchmark file).

- ``official``: each country's official or common name must retrieve its short name among
  every country and subdivision name;
- ``typo``: 2,000 subdivision names with one random edit (seed 0) must retrieve their
  subdivision.

:func:`dev_strings` is every string of both tasks, which the shipped models' alias data
exclude (``pearl aliases --exclude``):

    python -m pearl_lab.dev --names data_out/dev_names.txt
"""

from __future__ import annotations

import random

from pearl_lab.typos import one_edit

__all__ = ["tasks", "dev_strings"]


def tasks(n_typos: int = 2000, seed: int = 0) -> dict[str, tuple[list[str], list[str], list[int]]]:
    """Each task as (queries, candidates, index of each query's answer)."""
    import pycountry

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


def dev_strings() -> list[str]:
    """Every string of :func:`tasks` (queries and candidates), sorted."""
    return sorted({s for q, g, _ in tasks().values() for s in [*q, *g]})


def main(argv: list[str] | None = None) -> int:
    """``python -m pearl_lab.dev --names FILE``: write :func:`dev_strings`, one per line."""
    import argparse
    from pathlib import Path

    parser = argparse.ArgumentParser(description="the development proxy's strings")
    parser.add_argument("--names", type=Path, required=True, help="the list to write")
    args = parser.parse_args(argv)
    args.names.write_text("\n".join(dev_strings()) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
