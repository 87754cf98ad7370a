"""The decision suite (issue 80): pearl's decisions at their defaults, without labels, on
many kinds of linkage tables (:mod:`pearl_lab.suite`: people with typos in names and in
digits, relatives, another script, companies, OCR, FEBRL4), each with few, some or most
left rows having a partner.

For each set, the one-key join (the key fields joined by spaces, as a user without record
linkage would) and the multi-key join (``on=<the fields>``):

- ``default``: ``fuzzy_join(..., how="inner")`` at its defaults;
- ``precision=0.9``: the measured precision (the target: at least 0.87);
- ``best candidate``: every row linked to its best candidate (``threshold=0``);
- ``best cut``: the best F1 of any cut of the best candidates' scores, read from the
  labels (a ceiling no user reaches without labels);
- ``skrub``: skrub's ``fuzzy_join`` at its default (every row linked; one key only).

And deduplication: both tables stacked into one, ``cluster`` at its default on the
records (the key fields) and on the one key; the duplicate pairs found (every pair of
rows in one cluster) against the true pairs. Likewise FEBRL1 (one table, each record
with a duplicate) with 0, 35% and 70% of its duplicates removed.

The report's ``gap`` is the accepted links' mean probability minus their measured
precision (a calibrated probability: within 0.03). Nothing here is a held-out benchmark.

    python benchmarks/quality/decision_suite.py -m pearl-static
    python benchmarks/quality/decision_suite.py -m pearl-static --kinds people,ocr --n 1000

Writes ``results/benchmarks/decision_suite[_NAME].{json,md}``. Needs ``recordlinkage``
(FEBRL1 and FEBRL4) and ``skrub`` (the peer). recordlinkage declares ``pandas<3`` and its
install replaces pandas 3, which changes the answers (pandas 3 reads year 1549 as a date,
pandas 2 as missing): ``pip install --no-deps recordlinkage jellyfish`` keeps it.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from pearl_lab.suite import FEBRL_KEYS, KINDS, cluster_pairs, febrl1, make, one_key, stacked
from pearl_lab.synthetic import link_scores

import pearl

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"
SHARES = (0.2, 0.7, 0.95)


def pairs_of(out: pd.DataFrame) -> set:
    return set(zip(out["rec_id"], out["rec_id_right"], strict=True))


def decisions(a, b, keys, true, model: str, multi: bool) -> dict:
    """The set's rows: each decision's links, precision, recall, F1 and calibration gap."""
    if not multi:
        a, b, keys = one_key(a, keys), one_key(b, keys), "key"
    row = {}
    for name, kw in (
        ("default", {}),
        ("precision=0.9", {"precision": 0.9}),
        ("best candidate", {"threshold": 0.0}),
    ):
        t0 = time.perf_counter()
        out = pearl.fuzzy_join(a, b, on=keys, model=model, how="inner", **kw)
        seconds = time.perf_counter() - t0
        scores = link_scores(pairs_of(out), true)
        mean_p = float(out["match_score"].mean()) if len(out) else float("nan")
        row[name] = {**scores, "seconds": seconds, "gap": mean_p - scores["precision"]}
        if name == "best candidate":
            row["best cut"] = best_cut(out, true)
    return row


def best_cut(out: pd.DataFrame, true: set) -> dict:
    """The best F1 of any cut of the links' ``match_score`` (from the labels; a ceiling)."""
    order = out.sort_values("match_score", ascending=False, kind="stable")
    hits = np.cumsum([p in true for p in zip(order["rec_id"], order["rec_id_right"], strict=True)])
    if not len(hits):
        return link_scores(set(), true)
    f1 = 2 * hits / (np.arange(1, len(hits) + 1) + len(true))
    best = int(f1.argmax())
    return link_scores(pairs_of(order.iloc[: best + 1]), true)


def dedup_rows(a, b, keys, true, model: str) -> dict:
    """``cluster`` at its default on the stacked tables: records and one key."""
    both, pairs = stacked(a, b, keys, true)
    return clusters_of(both, keys, pairs, model)


def clusters_of(both: pd.DataFrame, keys: list[str], pairs: set, model: str) -> dict:
    """``cluster`` at its default on a table's records and on its fields as one key."""
    out = {}
    for name, values in (("records", both), ("one key", one_key(both, keys)["key"])):
        t0 = time.perf_counter()
        labels = pearl.cluster(values, model=model)
        out[name] = {**cluster_pairs(labels, pairs), "seconds": time.perf_counter() - t0}
    return out


def febrl1_rows(model: str, removed=(0.0, 0.35, 0.7)) -> list[dict]:
    """FEBRL1 deduplicated (:func:`clusters_of`) with a share of its duplicates removed."""
    rows = []
    for share in removed:
        table, pairs = febrl1(share)
        name = f"febrl1 n={len(table)} duplicates removed={share}"
        rows.append(
            {"set": name, "true": len(pairs)} | clusters_of(table, FEBRL_KEYS, pairs, model)
        )
    return rows


def skrub_row(a, b, keys, true) -> dict:
    import skrub

    a, b = one_key(a, keys), one_key(b, keys)
    t0 = time.perf_counter()
    out = skrub.fuzzy_join(a, b, on="key", suffix="_right")
    return {**link_scores(pairs_of(out), true), "seconds": time.perf_counter() - t0}


def run_set(kind: str, n: int, share: float, model: str, peers: bool) -> dict:
    a, b, true, keys = make(kind, n, share)
    result = {"set": f"{kind} n={len(a)} share={share}", "true": len(true)}
    result["one key"] = decisions(a, b, keys, true, model, multi=False)
    if peers:
        result["one key"]["skrub"] = skrub_row(a, b, keys, true)
    result["multi-key"] = decisions(a, b, keys, true, model, multi=True)
    result["dedup"] = dedup_rows(a, b, keys, true, model)
    return result


def markdown(results: list[dict], meta: dict, one_table: list[dict] | None = None) -> str:
    lines = [
        f"# Decision suite ({meta['date']}, pearl at {meta['commit']}, model {meta['model']})",
        "",
        f"The suite's tables at {meta['suite commit']}.",
        "",
        f"`{meta['command']}`",
        "",
        "F1 of each decision (links in brackets); `p=0.9`: measured precision of",
        "`precision=0.9`; gap: the default's accepted links' mean probability minus their",
        "measured precision. Best cut: from the labels (a ceiling).",
        "",
    ]
    for mode in ("one key", "multi-key"):
        extra = " | skrub" if mode == "one key" and "skrub" in results[0][mode] else ""
        lines += [
            f"## {mode}",
            "",
            f"| set | default | gap | p=0.9 precision | best candidate | best cut{extra} |",
            "|---|---:|---:|---:|---:|---:|" + ("---:|" if extra else ""),
        ]
        for r in results:
            d = r[mode]
            cells = [
                f"{d['default']['f1']:.3f} ({d['default']['links']})",
                f"{d['default']['gap']:+.3f}",
                f"{d['precision=0.9']['precision']:.3f} ({d['precision=0.9']['links']})",
                f"{d['best candidate']['f1']:.3f}",
                f"{d['best cut']['f1']:.3f}",
            ]
            if extra:
                cells.append(f"{d['skrub']['f1']:.3f}")
            lines.append(f"| {r['set']} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += [
        "## deduplication (both tables stacked, `cluster` at its default)",
        "",
        "| set | records F1 | precision | recall | one key F1 | precision | recall |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    # the stacked tables' rows, then the one table's (FEBRL1), alike
    for name, d in [(r["set"], r["dedup"]) for r in results] + [
        (r["set"], r) for r in one_table or []
    ]:
        cells = [
            f"{d[k][m]:.3f}" + (f" ({d[k]['links']})" if m == "f1" else "")
            for k in ("records", "one key")
            for m in ("f1", "precision", "recall")
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("")
    return "\n".join(lines)


def _commit(folder: Path) -> str:
    out = subprocess.run(
        ["git", "-C", str(folder), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    dirty = subprocess.run(
        ["git", "-C", str(folder), "status", "--porcelain", "--", "."],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return out.stdout.strip() + ("+changes" if dirty else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-m", "--model", default="pearl-static")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--n", type=int, default=1000, help="rows per synthetic table")
    parser.add_argument("--shares", default=",".join(map(str, SHARES)))
    parser.add_argument("--no-peers", action="store_true", help="leave skrub out")
    parser.add_argument("--name", default="", help="suffix of the record's file names")
    args = parser.parse_args()
    shares = [float(s) for s in args.shares.split(",")]
    results = []
    for kind in args.kinds.split(","):
        for share in shares:
            t0 = time.perf_counter()
            results.append(run_set(kind, args.n, share, args.model, not args.no_peers))
            r = results[-1]
            print(
                f"{r['set']}: one key {r['one key']['default']['f1']:.3f}, multi-key "
                f"{r['multi-key']['default']['f1']:.3f}, dedup records "
                f"{r['dedup']['records']['f1']:.3f}, one key {r['dedup']['one key']['f1']:.3f} "
                f"({time.perf_counter() - t0:.0f} s)",
                file=sys.stderr,
            )
    one_table = febrl1_rows(args.model) if "febrl4" in args.kinds.split(",") else []
    meta = {
        "date": time.strftime("%Y-%m-%d"),
        # the commit of the pearl measured (a worktree of another commit on PYTHONPATH
        # measures that one) and of the suite's tables
        "commit": _commit(Path(pearl.__file__).parent),
        "suite commit": _commit(Path(__file__).parent),
        "model": args.model,
        "command": "python " + " ".join(["benchmarks/quality/decision_suite.py", *sys.argv[1:]]),
        "machine": platform.platform(),
        "pearl": pearl.__version__,
    }
    stem = "decision_suite" + (f"_{args.name}" if args.name else "")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{stem}.json").write_text(
        json.dumps({"meta": meta, "results": results, "one table": one_table}, indent=1)
    )
    (OUT / f"{stem}.md").write_text(markdown(results, meta, one_table))
    print(markdown(results, meta, one_table))


if __name__ == "__main__":
    main()
