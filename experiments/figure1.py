"""Why the fused transformer fails the paper's Figure 1 (issue 32, part 4): a diagnostic.

pearl-minilm outputs ``normalize([phrase vector (384), character vector (128)])``. This
splits each output into its two parts and ranks with each part alone and with both, on

* Figure 1: "The New York Times" against nytimes.com, NYTimes, New York Post, Washington
  Post, New York;
* name-variant queries made by the training pipeline's own rules
  (:class:`pearl.augment.names.NameVariants`: compact forms, web addresses, initials) of
  ``--names`` typed names of the training corpus, each against its name and the
  ``--distractors`` corpus names that share the most words with it (no benchmark file).

It also reports the mean norm share of the character part. Nothing is trained or chosen
here. Writes experiments/results/figure1.{json,md} (``--name`` for another stem); a model
written ``a+b`` is the two models' unit vectors concatenated (``concat_encoder.py``).

    python experiments/figure1.py [--names 300] [--distractors 20]
"""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from pathlib import Path

import numpy as np
from concat_encoder import load

from pearl.augment.names import NameVariants
from pearl.data.corpus import read_corpus

OUT = Path(__file__).resolve().parent / "results"
QUERY = "The New York Times"
CANDIDATES = ["nytimes.com", "NYTimes", "New York Post", "Washington Post", "New York"]


def unit(x: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.where(n == 0, 1, n)


def views(emb: np.ndarray, split: int | None) -> dict[str, np.ndarray]:
    """The fused vector, and (for a fused model) its phrase and character parts."""
    out = {"fused": unit(emb)}
    if split is not None:
        out["phrase part"] = unit(emb[:, :split])
        out["character part"] = unit(emb[:, split:])
    return out


def variant_task(corpus: str, n_names: int, n_distractors: int, seed: int):
    rng = random.Random(seed)
    records = [
        r
        for r in read_corpus(corpus)
        if r.label.split("-", 1)[-1]
        in {"ORG", "GPE", "PERSON", "FAC", "WORK_OF_ART", "PRODUCT", "EVENT", "NORP"}
        and len(r.phrase.split()) >= 2
    ]
    namer = NameVariants()
    by_word = defaultdict(set)
    for r in records:
        for w in r.phrase.lower().split():
            by_word[w].add(r.phrase)
    items = []
    for r in rng.sample(records, len(records)):
        forms = [f for f in namer.options(r.phrase, r.label) if f.lower() != r.phrase.lower()]
        if not forms:
            continue
        words = r.phrase.lower().split()
        overlap = defaultdict(int)
        for w in words:
            for other in by_word[w]:
                if other != r.phrase:
                    overlap[other] += 1
        near = sorted(overlap, key=lambda o: (-overlap[o], o))[:n_distractors]
        if len(near) < n_distractors:
            continue
        items.append((rng.choice(forms), r.phrase, near))
        if len(items) == n_names:
            break
    return items


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="all-MiniLM-L6-v2,pearl-minilm,pearl-static")
    ap.add_argument("--corpus", default="data_out/corpus/corpus.tsv")
    ap.add_argument("--names", type=int, default=300)
    ap.add_argument("--distractors", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--name", default="figure1", help="output stem in experiments/results/")
    args = ap.parse_args()
    items = variant_task(args.corpus, args.names, args.distractors, args.seed)
    record = {
        "command": "python experiments/figure1.py --names "
        f"{args.names} --distractors {args.distractors}"
        + (f" --models {args.models} --name {args.name}" if args.name != "figure1" else ""),
        "pairs": len(items),
        "examples": [list(i[:2]) for i in items[:10]],
        "models": {},
    }
    for name in args.models.split(","):
        enc = load(name)
        split = 384 if enc.embedding_dim == 512 else None
        q = enc.encode([QUERY] + CANDIDATES)
        fig = {}
        for view, e in views(q, split).items():
            sims = e[1:] @ e[0]
            fig[view] = {
                c: round(float(s), 3)
                for c, s in sorted(zip(CANDIDATES, sims, strict=True), key=lambda t: -t[1])
            }
        top1 = {}
        share = None
        texts = sorted({t for qv, gold, near in items for t in (qv, gold, *near)})
        emb = enc.encode(texts, batch_size=128)
        index = {t: i for i, t in enumerate(texts)}
        if split is not None:
            raw = emb / np.linalg.norm(emb, axis=1, keepdims=True)
            share = float(np.mean(np.linalg.norm(raw[:, split:], axis=1) ** 2))
        for view, e in views(emb, split).items():
            hits = 0
            for qv, gold, near in items:
                cands = [gold, *near]
                sims = e[[index[c] for c in cands]] @ e[index[qv]]
                hits += int(np.argmax(sims) == 0)
            top1[view] = round(100 * hits / max(len(items), 1), 1)
        record["models"][name] = {"figure1": fig, "variant_top1": top1, "char_energy_share": share}
        print(name, json.dumps(record["models"][name]), flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{args.name}.json").write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    lines = [
        "# Figure 1 and name variants, by part of the fused vector",
        "",
        f"`{record['command']}`: {len(items)} name-variant queries, each against its "
        f"name and {args.distractors} corpus names sharing words with it (top-1 %).",
        "",
        '| model | view | Figure 1 ranking of "The New York Times" | variant top-1 |',
        "|---|---|---|---:|",
    ]
    for name, m in record["models"].items():
        for view, ranking in m["figure1"].items():
            order = ", ".join(f"{c} {s:.3f}" for c, s in ranking.items())
            lines.append(f"| {name} | {view} | {order} | {m['variant_top1'][view]:.1f} |")
    lines += [
        "",
        "Character part's share of the squared norm of the fused vector: "
        + ", ".join(
            f"{n} {m['char_energy_share']:.3f}"
            for n, m in record["models"].items()
            if m["char_energy_share"] is not None
        ),
        "",
        "Examples (query, name): " + "; ".join(f"{a} -> {b}" for a, b in record["examples"]),
    ]
    (OUT / f"{args.name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
