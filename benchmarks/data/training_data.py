"""Augmentation precompute and hard-negative mining over the whole phrase corpus, timed,
with examples. Writes data_out/{augmented,hard_negatives}.tsv and
results/benchmarks/training_data.{md,json}; draws the paraphrase sample to label
(benchmarks/data/paraphrase_sample.tsv) and scores the labelled one
(benchmarks/data/paraphrase_labels.tsv) when present.

    pearl build-corpus -o data_out/corpus --processes 2
    python benchmarks/data/training_data.py [--corpus data_out/corpus/corpus.tsv]
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import time
from collections import Counter
from pathlib import Path

from pearl_lab import data_root

from pearl.augment.phrase import AcronymParaphraser, MinedParaphraser, WordNetParaphraser
from pearl.augment.sampler import LEVELS, AugmentationSampler, default_augmenters, precompute
from pearl.data.corpus import read_corpus
from pearl.encoders import EmbeddingCache, PhraseEncoder
from pearl.mining import mine_hard_negatives

HERE = Path(__file__).parent
OUT = HERE.resolve().parents[1] / "results" / "benchmarks"
PARAPHRASERS = ("wordnet_paraphrase", "acronym", "mined_paraphrase")


def paraphrase_sample(paraphrasers: dict, phrases: list[str], per: int, seed: int):
    """``per`` (phrase, paraphrase) pairs from each paraphraser, on random phrases it covers."""
    rng = random.Random(seed)
    order = phrases[:]
    rng.shuffle(order)
    rows = []
    for name, para in paraphrasers.items():
        got = 0
        for p in order:
            out = para(p, random.Random(f"{seed}:{p}"))
            if out:
                rows.append((name, p, out))
                got += 1
                if got == per:
                    break
    return rows


def score_labels(path: Path) -> dict:
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    out = {}
    for name in PARAPHRASERS:
        lab = [r["is_paraphrase"].strip() for r in rows if r["paraphraser"] == name]
        lab = [x for x in lab if x in {"0", "1"}]
        if lab:
            out[name] = {
                "labelled": len(lab),
                "paraphrases": lab.count("1"),
                "share": lab.count("1") / len(lab),
            }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=Path("data_out/corpus/corpus.tsv"))
    ap.add_argument("--out", type=Path, default=Path("data_out"))
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    ap.add_argument("--data", type=Path, default=data_root())
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--score-only",
        action="store_true",
        help="only re-score the labelled paraphrase sample into the report",
    )
    args = ap.parse_args()
    if args.score_only:
        write_report(json.loads((OUT / "training_data.json").read_text()))
        return
    res: dict = {"command": "python benchmarks/data/training_data.py", "model": args.model}
    phrases = [r.phrase for r in read_corpus(args.corpus)]
    res["phrases"] = len(phrases)
    wordnet = str(args.data / "lexicon" / "wordnet")
    enc = PhraseEncoder(args.model)
    cache = EmbeddingCache(enc)  # on disk: mining and paraphrase mining share embeddings

    t0 = time.perf_counter()
    mined = MinedParaphraser(enc).fit(phrases, cache=cache)
    res["paraphrase_mining_s"] = time.perf_counter() - t0
    res["phrases_with_mined_paraphrase"] = len(mined.table_)

    augs = default_augmenters(wordnet_dir=wordnet, mined=mined)
    sampler = AugmentationSampler(augs, seed=args.seed)
    t0 = time.perf_counter()
    aug_path = precompute(phrases, sampler, args.out / "augmented.tsv")
    res["augment_s"] = time.perf_counter() - t0
    with open(aug_path, encoding="utf-8", newline="") as f:
        aug_rows = list(csv.reader(f, delimiter="\t"))[1:]
    res["augmenter_counts"] = dict(Counter(r[2] for r in aug_rows).most_common())

    t0 = time.perf_counter()
    neg = mine_hard_negatives(phrases, enc, args.out / "hard_negatives.tsv", cache=cache)
    res["mining"] = {k: v for k, v in neg.items() if k != "negatives"}
    res["mining_wall_s"] = time.perf_counter() - t0

    rng = random.Random(args.seed)
    examples = {name: [r for r in aug_rows if r[2] == name] for name in LEVELS}
    aug_examples = {name: rng.sample(rows, min(4, len(rows))) for name, rows in examples.items()}
    negatives = [(p, n) for p, ns in neg["negatives"].items() for n in ns]
    neg_examples = rng.sample(sorted(negatives), min(20, len(negatives)))

    res["augmentation_examples"] = aug_examples
    res["hard_negative_examples"] = neg_examples
    paras = {
        "wordnet_paraphrase": WordNetParaphraser(wordnet),
        "acronym": AcronymParaphraser(),
        "mined_paraphrase": mined,
    }
    sample = paraphrase_sample(paras, phrases, 67, args.seed)
    sample_path = HERE / "paraphrase_sample.tsv"
    sample_path.parent.mkdir(parents=True, exist_ok=True)
    with open(sample_path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["paraphraser", "phrase", "paraphrase", "is_paraphrase"])
        w.writerows([(*r, "") for r in sample])
    write_report(res)


def write_report(res: dict) -> None:
    """Score the labelled paraphrase sample, then write training_data.{json,md}."""
    labels = HERE / "paraphrase_labels.tsv"
    res["paraphrase_precision"] = score_labels(labels) if labels.is_file() else {}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "training_data.json").write_text(json.dumps(res, indent=2) + "\n")
    phrases = range(res["phrases"])
    aug_examples, neg_examples = res["augmentation_examples"], res["hard_negative_examples"]
    m = res["mining"]
    md = [
        f"# Training data: augmentation and hard negatives ({len(phrases):,} phrases)",
        "",
        f"`{res['command']}` with {res['model']}, on this machine ({len(phrases):,} corpus "
        "phrases).",
        "",
        "| step | wall time (s) | output |",
        "|---|---:|---|",
        f"| mine near-paraphrases (encode + HNSW) | {res['paraphrase_mining_s']:.0f} | "
        f"{res['phrases_with_mined_paraphrase']:,} phrases with one |",
        f"| precompute one positive per phrase | {res['augment_s']:.0f} | "
        f"`data_out/augmented.tsv` |",
        f"| hard negatives (blocking + encoding + filtering) | {res['mining_wall_s']:.0f} | "
        f"{m['phrases_with_negatives']:,} phrases with negatives |",
        "",
        f"Hard-negative mining: blocking {m['blocking_seconds']:.0f} s for "
        f"{m['candidate_pairs']:,} candidate pairs (rapidfuzz ratio >= 80), encoding "
        f"{m['encoded_phrases']:,} phrases {m['encoding_seconds']:.0f} s (0 when the "
        "paraphrase mining had cached them), kept cosine < 0.6, at most 5 per phrase.",
        "",
        "Augmenter chosen per phrase (equal weights, falling back when an augmenter cannot "
        "change the phrase):",
        "",
        "| augmenter | level | phrases |",
        "|---|---|---:|",
    ]
    md += [f"| {k} | {LEVELS.get(k, '-')} | {v:,} |" for k, v in res["augmenter_counts"].items()]
    md += ["", "## Augmentation examples", "", "| augmenter | phrase | positive |", "|---|---|---|"]
    md += [f"| {name} | {r[0]} | {r[1]} |" for name, rows in aug_examples.items() for r in rows]
    md += ["", "## 20 random hard negatives", "", "| phrase | hard negative |", "|---|---|"]
    md += [f"| {p} | {n} |" for p, n in neg_examples]
    md += ["", "## Are the paraphrasers' outputs paraphrases?", ""]
    if res["paraphrase_precision"]:
        md += [
            "Labelled by hand (`benchmarks/data/paraphrase_labels.tsv`; 1 = same meaning "
            "or same referent):",
            "",
            "| paraphraser | labelled | paraphrases | share |",
            "|---|---:|---:|---:|",
        ]
        md += [
            f"| {k} | {v['labelled']} | {v['paraphrases']} | {100 * v['share']:.0f}% |"
            for k, v in res["paraphrase_precision"].items()
        ]
    else:
        md.append("Not labelled yet: `benchmarks/data/paraphrase_sample.tsv` holds the sample.")
    (OUT / "training_data.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
