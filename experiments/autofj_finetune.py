"""Issue 35: what fine-tuning on labelled matches buys (SentPWNet's section 4 on AutoFJ).

This experiment trains on AutoFJ ground-truth pairs under the issue's explicit exception
to the data rule, and only under its conditions: the models it trains are
experiment-only (never shipped, never a default, never used to choose anything, never a
teacher), live under the ignored ``models/autofj-finetune/`` and are deleted after the
experiment; every result is labelled "fine-tuned on AutoFJ"; the headline AutoFJ figures
stay the zero-shot ones.

Step 1 (this script, ``splits``): the splits, fixed before any run and written to
``experiments/results/autofj_finetune/splits.json``:

- across datasets: the 50 dataset names shuffled with ``random.Random(0)``; the first 25
  train, the other 25 test;
- within datasets: each dataset's ground-truth pairs (right title, left title), sorted,
  their positions shuffled with ``random.Random(0)``; the first half trains, the second
  half tests. The file keeps positions in the sorted pairs and a SHA-256 of them (no
  benchmark string is copied into the repository); :func:`within_pairs` reads them back.

Test pairs are never seen in training, validation or threshold choice; the development
split for the threshold protocol is drawn from the training side only.

    python experiments/autofj_finetune.py splits
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from pathlib import Path

from pearl.evaluation.tasks.autofj import dataset_names, load_autofj
from pearl.paths import benchmark_dir

OUT = Path(__file__).resolve().parent / "results" / "autofj_finetune"


def _sorted_pairs(root: Path, name: str) -> list[tuple[str, str]]:
    _, _, truth = load_autofj(root / "benchmark" / name)
    return sorted(truth.items())


def _digest(pairs: list[tuple[str, str]]) -> str:
    return hashlib.sha256(json.dumps(pairs, ensure_ascii=False).encode("utf-8")).hexdigest()


def make_splits(root: Path, seed: int = 0) -> dict:
    names = dataset_names(root)
    shuffled = list(names)
    random.Random(seed).shuffle(shuffled)
    half = len(shuffled) // 2
    within = {}
    for name in names:
        pairs = _sorted_pairs(root, name)
        order = list(range(len(pairs)))
        random.Random(seed).shuffle(order)
        cut = len(order) // 2
        within[name] = {
            "sha256": _digest(pairs),
            "train": sorted(order[:cut]),
            "test": sorted(order[cut:]),
        }
    return {
        "seed": seed,
        "across": {"train": sorted(shuffled[:half]), "test": sorted(shuffled[half:])},
        "within": within,
    }


def within_pairs(root: Path, splits: dict, name: str, part: str) -> list[tuple[str, str]]:
    """The (right title, left title) pairs of ``part`` ("train"/"test") of a dataset,
    checked against the digest recorded with the splits."""
    pairs = _sorted_pairs(root, name)
    entry = splits["within"][name]
    if _digest(pairs) != entry["sha256"]:
        raise ValueError(f"the ground truth of {name} changed since the splits were fixed")
    return [pairs[i] for i in entry[part]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("step", choices=["splits"])
    ap.add_argument("--data", type=Path, default=None)
    args = ap.parse_args()
    root = (args.data / "benchmark" if args.data else benchmark_dir()) / "autofj"
    path = OUT / "splits.json"
    if path.exists():
        raise SystemExit(f"{path} exists: the splits are fixed once, before any run")
    splits = make_splits(root)
    OUT.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(splits) + "\n", encoding="utf-8")
    assert within_pairs(root, splits, splits["across"]["test"][0], "test")  # reads back
    n_train = sum(len(v["train"]) for v in splits["within"].values())
    n_test = sum(len(v["test"]) for v in splits["within"].values())
    print(
        f"across: {len(splits['across']['train'])} train / {len(splits['across']['test'])} "
        f"test datasets; within: {n_train} train / {n_test} test pairs -> {path}"
    )


if __name__ == "__main__":
    main()
