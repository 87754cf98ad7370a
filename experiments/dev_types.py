"""Issue 49 part 3's type measure: do a model's embeddings keep kinds of names apart?

KMeans (k = 4, seed 0, 10 starts) of the unit embeddings of 170 names of each of four
kinds from ISO data (pycountry, not a benchmark file): countries, subdivisions, languages
and currencies (names of more than one kind dropped; a seeded sample of each kind, so the
kinds weigh alike); the score is the NMI of the clusters with the kinds, x 100. Written
before any arm of experiments/results/word_negatives_plan.md was scored.

    python experiments/dev_types.py pearl-minilm models/c49-attention
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import numpy as np
from concat_encoder import load

from pearl.encoders.base import normalize_rows

OUT = Path(__file__).resolve().parent / "results"
PER_KIND = 170


def type_task(per_kind: int = PER_KIND, seed: int = 0) -> tuple[list[str], list[int]]:
    """Names of four kinds and the kind of each."""
    import pycountry

    kinds = {
        "country": {c.name for c in pycountry.countries},
        "subdivision": {s.name for s in pycountry.subdivisions},
        "language": {lang.name for lang in pycountry.languages},
        "currency": {c.name for c in pycountry.currencies},
    }
    seen: dict[str, int] = {}
    for names in kinds.values():
        for n in names:
            seen[n] = seen.get(n, 0) + 1
    rng = random.Random(seed)
    texts, labels = [], []
    for k, names in enumerate(kinds.values()):
        own = sorted(n for n in names if seen[n] == 1)
        picked = rng.sample(own, min(per_kind, len(own)))
        texts += picked
        labels += [k] * len(picked)
    return texts, labels


def type_nmi(encoder, texts: list[str], labels: list[int]) -> float:
    """NMI x 100 of KMeans(k = number of kinds) of the unit embeddings with the kinds."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import normalized_mutual_info_score

    emb = normalize_rows(np.asarray(encoder.encode(texts)))
    pred = KMeans(n_clusters=len(set(labels)), n_init=10, random_state=0).fit_predict(emb)
    return round(100 * float(normalized_mutual_info_score(labels, pred)), 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+")
    ap.add_argument("--name", default="dev_types")
    args = ap.parse_args()
    texts, labels = type_task()
    rows = {m: type_nmi(load(m), texts, labels) for m in args.models}
    command = "python experiments/dev_types.py " + " ".join(args.models)
    (OUT / f"{args.name}.json").write_text(
        json.dumps({"command": command, "names": len(texts), "nmi": rows}, indent=2) + "\n"
    )
    lines = [
        "# Types kept apart: KMeans NMI of ISO name kinds (not a benchmark file)",
        "",
        f"`{command}`: {len(texts)} names, 4 kinds (country, subdivision, language, "
        "currency); NMI x 100.",
        "",
        "| model | type NMI |",
        "|---|---:|",
        *[f"| {m} | {v:.2f} |" for m, v in rows.items()],
    ]
    (OUT / f"{args.name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
