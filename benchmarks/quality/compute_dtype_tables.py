"""The table tools' answers with a transformer computing in float32 and in bfloat16.

Synthetic tables only (``pearl_lab.synthetic``: 3,000 companies, seed 1; 2,000 people,
seed 2; no benchmark file): one-key joins on the company name, the street and the
surname, record linkage of companies (name, street, city) and people (first name,
surname, city, date of birth), and ``deduplicate`` of 3,000 company names. For each, the
rows whose answer differs (the matched row, or linked against not; the scores apart), the
largest score difference, and the wall time of each precision (the model loaded before
the clock; one run each, float32 first). Whether bfloat16 may compute inside a table tool
is read here: only where its answers equal float32's (issue 82). Run it while nothing else
runs; it unsets ``$PEARL_COMPUTE_DTYPE`` for itself. Writes
results/benchmarks/compute_dtype_tables.{md,json}.

    python benchmarks/quality/compute_dtype_tables.py [--model pearl-minilm]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from pearl_lab.synthetic import companies, people

import pearl
from pearl.tables import clear_caches

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"


def tasks(model) -> dict:
    """Each task's name and the call that answers it with the encoder ``model``."""
    a, b, _ = companies(3000, seed=1)
    a2, b2, _ = people(2000, seed=2)
    names = a["name"].tolist()[:1500] + b["name"].tolist()[:1500]
    join = pearl.fuzzy_join
    return {
        "join on company name": lambda: join(a, b, on="name", model=model),
        "join on street": lambda: join(a, b, on="street", model=model),
        "join on surname": lambda: join(a2, b2, on="surname", model=model),
        "linkage of companies": lambda: join(a, b, on=["name", "street", "city"], model=model),
        "linkage of people": lambda: join(
            a2, b2, on=["first", "surname", "city", "dob"], model=model
        ),
        "deduplicate company names": lambda: pd.DataFrame(
            {"canonical": pearl.deduplicate(names, model=model)}
        ),
    }


def answers(frame: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """A result's cells but its scores (as text), and its scores."""
    score = [c for c in frame.columns if c.startswith("match_score")]
    cells = frame.drop(columns=score).astype(str)
    values = frame[score].to_numpy(dtype=float) if score else np.zeros((len(frame), 0))
    return cells, values


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="pearl-minilm")
    args = ap.parse_args()
    os.environ.pop("PEARL_COMPUTE_DTYPE", None)
    warnings.simplefilter("ignore")
    rows = []
    encoders = {
        d: pearl.PhraseEncoder(args.model, compute_dtype=d) for d in ("float32", "bfloat16")
    }
    runs: dict[str, dict] = {d: tasks(e) for d, e in encoders.items()}
    for name in runs["float32"]:
        got, seconds = {}, {}
        for dtype in ("float32", "bfloat16"):
            clear_caches(models=False)
            t = time.perf_counter()
            got[dtype] = answers(runs[dtype][name]())
            seconds[dtype] = round(time.perf_counter() - t, 2)
        (c32, s32), (c16, s16) = got["float32"], got["bfloat16"]
        both = np.isfinite(s32) & np.isfinite(s16)
        rows.append(
            {
                "task": name,
                "rows": len(c32),
                "rows_differing": int(
                    ((c32 != c16).any(axis=1) | (np.isnan(s32) != np.isnan(s16)).any(axis=1)).sum()
                ),
                "max_score_difference": round(float(np.abs(s32 - s16)[both].max()), 5)
                if both.any()
                else 0.0,
                "float32_s": seconds["float32"],
                "bfloat16_s": seconds["bfloat16"],
            }
        )
        print(rows[-1], flush=True)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    command = " ".join(["python", "benchmarks/quality/compute_dtype_tables.py", *sys.argv[1:]])
    record = {"command": command, "commit": commit, "date": time.strftime("%Y-%m-%d")}
    record.update(model=args.model, rows=rows)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "compute_dtype_tables.json").write_text(json.dumps(record, indent=2) + "\n")
    lines = [
        f"# The table tools' answers in float32 and in bfloat16 ({args.model})",
        "",
        f"`{command}` at commit {commit}, {record['date']}. Synthetic tables "
        "(`pearl_lab.synthetic`); rows whose answer differs, the largest score difference, "
        "and the wall time of each precision (one run each).",
        "",
        "| task | rows | rows differing | largest score difference | float32 | bfloat16 |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['task']} | {r['rows']:,} | {r['rows_differing']} | "
            f"{r['max_score_difference']} | {r['float32_s']} s | {r['bfloat16_s']} s |"
        )
    (OUT / "compute_dtype_tables.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
