"""The joins' typo floor on dense lists of similar names (issue 54, part 4).

A reference of similar corpus names (groups sharing a first word, ``dedup_dense_lists.py``'s
groups: "American Express", "American Airlines"...), a third of each group left out; every
name of a group misspelt once by one of the lab's typo generators is a query, so a third of
the queries have no partner but near namesakes in the reference. ``fuzzy_join(threshold=0)``
with the typo floor off (``TYPO_FLOOR`` floor 0) and on (the shipped 0.95); a link is right
when it names the query's source. Five seeds (1-5), 40 groups each. Development data only.

    python experiments/typo_floor_dense_lists.py [-m pearl-static]

Writes ``experiments/results/typo_floor_dense_lists[_MODEL].{md,json}``.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import numpy as np
import pandas as pd
from dedup_dense_lists import name_groups
from pearl_lab.typos import GENERATORS

import pearl
from pearl.tables import matcher

OUT = Path(__file__).resolve().parent / "results"


def task(groups: dict, seed: int):
    """(reference, queries, each query's source or None)."""
    rng = random.Random(seed)
    reference, queries, truth = [], [], []
    for key in rng.sample(sorted(groups), 40):
        names = list(groups[key])
        rng.shuffle(names)
        held = names[: max(1, len(names) // 3)]  # a third left out of the reference
        reference += names[len(held) :]
        for name in names:
            queries.append(rng.choice(list(GENERATORS.values()))(name, rng))
            truth.append(None if name in held else name)
    return reference, queries, truth


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="data_out/corpus/corpus.tsv")
    ap.add_argument("-m", "--model", default="pearl-static")
    args = ap.parse_args()
    root = Path(__file__).resolve().parents[1]
    reported = set(json.loads((root / "results/benchmarks/dedup_typos.json").read_text())["names"])
    groups = name_groups(args.corpus, reported)
    encoder = pearl.PhraseEncoder(args.model)
    shipped = matcher.TYPO_FLOOR
    got: dict[str, list] = {"off": [], "on": []}
    for seed in range(1, 6):
        reference, queries, truth = task(groups, seed)
        want = dict(zip(queries, truth, strict=True))
        left, right = pd.DataFrame({"q": queries}), pd.DataFrame({"name": reference})
        for mode, floor in (("off", (0.0, shipped[1])), ("on", shipped)):
            matcher.TYPO_FLOOR = floor
            out = pearl.fuzzy_join(
                left, right, left_on="q", right_on="name", model=encoder, threshold=0
            )
            right_ = np.array([want[q] == r for q, r in zip(out.q, out.name, strict=True)])
            has = np.array([want[q] is not None for q in out.q])
            got[mode].append((out.match_score.to_numpy(np.float64), right_, has))
    matcher.TYPO_FLOOR = shipped
    rows = {}
    for mode, parts in got.items():
        p, ok, has = (np.concatenate([x[i] for x in parts]) for i in range(3))
        at = p >= 0.5
        rows[mode] = {
            "queries": int(len(p)),
            "partnered": int(has.sum()),
            "links_at_0.5": int(at.sum()),
            "mean_p": float(p[at].mean()),
            "precision": float(ok[at].mean()),
            "recall": float((ok & at).sum() / has.sum()),
        }
    p0, p1 = (np.concatenate([x[0] for x in got[m]]) for m in ("off", "on"))
    ok = np.concatenate([x[1] for x in got["on"]])
    new, raised = (p1 >= 0.5) & (p0 < 0.5), p1 > p0
    rows["newly accepted"] = {"links": int(new.sum()), "right": float(ok[new].mean())}
    rows["raised"] = {"links": int(raised.sum()), "right": float(ok[raised].mean())}
    stem = "typo_floor_dense_lists" + ("" if args.model == "pearl-static" else f"_{args.model}")
    OUT.mkdir(exist_ok=True)
    (OUT / f"{stem}.json").write_text(json.dumps(rows, indent=1) + "\n")
    lines = [
        "# The typo floor on dense lists of similar names",
        "",
        f"`python experiments/typo_floor_dense_lists.py -m {args.model}`: five seeds, "
        f"{rows['on']['queries']:,} misspelt queries, {rows['on']['partnered']:,} with a "
        "partner in the reference.",
        "",
        "| typo floor | links at 0.5 | mean p | precision | recall |",
        "|---|---:|---:|---:|---:|",
    ]
    for mode in ("off", "on"):
        r = rows[mode]
        lines.append(
            f"| {mode} | {r['links_at_0.5']:,} | {r['mean_p']:.3f} | "
            f"{r['precision']:.3f} | {r['recall']:.3f} |"
        )
    lines += [
        "",
        f"Newly accepted at 0.5: {rows['newly accepted']['links']:,}, "
        f"{rows['newly accepted']['right']:.1%} right; links whose probability the floor "
        f"raised: {rows['raised']['links']:,}, {rows['raised']['right']:.1%} right.",
    ]
    (OUT / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
