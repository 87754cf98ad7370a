"""A development score for choosing among training recipes without the benchmark's files.

The rule is that no model is chosen on the benchmark (nor on HPO or GeoNames). This script
scores models on name data from another source, ISO 3166 through the ``pycountry`` package
(``pip install pycountry``), which no pearl recipe trains on:

- ``official``: each country's official or common name (e.g. "Republic of Korea",
  "Bolivia, Plurinational State of") must retrieve its short name, among every country and
  ISO 3166-2 subdivision name (about 5,300 candidates); top-1 accuracy.
- ``typo``: 2,000 subdivision names with one random character edit (seed 0) must retrieve
  their source among every subdivision name; top-1 accuracy.

The ``dev`` score is their mean. It is a proxy: whether it ranks models as the benchmark
does is measured, not assumed (experiments/results/README.md). Writes
results/benchmarks/dev_proxy.{json,md} (one row per model, merged with earlier rows).

    python experiments/dev_proxy.py all-MiniLM-L6-v2 pearl-minilm models/x
    python experiments/dev_proxy.py --names data_out/dev_names.txt  # to exclude
    python experiments/dev_proxy.py pearl-minilm+pearl-static  # two models concatenated
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import numpy as np
from concat_encoder import load

from pearl.encoders import Encoder

OUT = Path(__file__).resolve().parents[1] / "results" / "benchmarks"
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def one_edit(word: str, rng: random.Random) -> str:
    """``word`` with one random deletion, insertion, substitution or transposition."""
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


def top1(model: Encoder, queries: list[str], gallery: list[str], answers: list[int]) -> float:
    """Share of queries whose nearest candidate (cosine) is their answer."""
    q = model.encode(queries)
    g = model.encode(gallery)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    g /= np.linalg.norm(g, axis=1, keepdims=True)
    return float(np.mean((q @ g.T).argmax(axis=1) == np.asarray(answers)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help="model names or folders")
    parser.add_argument("-o", "--output", type=Path, default=OUT / "dev_proxy")
    parser.add_argument(
        "--names",
        type=Path,
        help="write every string of the two tasks "
        "(queries and candidates, one per line) to this file, for "
        "`pearl aliases --exclude`, and stop",
    )
    args = parser.parse_args(argv)
    data = tasks()
    if args.names:
        strings = sorted({s for q, g, _ in data.values() for s in [*q, *g]})
        args.names.write_text("\n".join(strings) + "\n", encoding="utf-8")
        return 0
    if not args.models:
        parser.error("name at least one model (or --names FILE)")
    path = args.output.with_suffix(".json")
    rows = json.loads(path.read_text()) if path.is_file() else {}
    for name in args.models:
        model = load(name)
        scores = {task: round(100 * top1(model, *data[task]), 2) for task in data}
        scores["dev"] = round(float(np.mean(list(scores.values()))), 2)
        rows[name] = scores
        print(name, scores, flush=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rows, indent=2) + "\n")
    sizes = {task: len(q) for task, (q, _, _) in data.items()}
    lines = [
        "# Development score (ISO 3166 names; not a benchmark file)",
        "",
        f"Queries: official {sizes['official']}, typo {sizes['typo']}. "
        "Command: `python experiments/dev_proxy.py MODEL...`",
        "",
        "| model | official | typo | dev |",
        "|---|---:|---:|---:|",
    ]
    lines += [
        f"| {m} | {r['official']:.1f} | {r['typo']:.1f} | {r['dev']:.1f} |" for m, r in rows.items()
    ]
    args.output.with_suffix(".md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
