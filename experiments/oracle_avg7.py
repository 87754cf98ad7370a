"""The best Avg-7 any mix of the recorded pearl-minilm variants could reach (issue 15).

Issue 15 asks for an Avg-7 of at least the backbone's + 5.0 under the five-probe protocol.
This script reads the ``pearl eval`` records of every full training run of an
all-MiniLM-L6-v2-based variant that was measured under that protocol (five probes for PPDB
and PPDB-filtered), takes each task's best score over all of them, and reports the Avg-7 of
that per-task best: an upper bound no single model of these recipes reached, since each
variant wins some tasks by losing others. Records read: ``experiments/results/v2/*.json``,
``experiments/results/phrase-bert/*.json`` and ``experiments/results/probe_runs5`` (the
backbone and pearl-minilm v1, five probes; their other tasks from ``results/*.json``).

Writes experiments/results/oracle_avg7.md.

    python experiments/oracle_avg7.py
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "results"
TASKS = ["ppdb", "ppdb_filtered", "turney", "bird", "conll2003", "bc5cdr", "autofj"]
NAMES = ["PPDB", "PPDB-f", "Turney", "BIRD", "CoNLL-03", "BC5CDR", "AutoFJ"]


def scores(path: Path) -> dict[str, float]:
    """Task -> score of one record (tasks that did not run are left out)."""
    tasks = json.loads(path.read_text())["tasks"]
    return {
        t: tasks[t]["score"]
        for t in TASKS
        if isinstance(tasks.get(t), dict) and tasks[t].get("status") == "ok"
    }


def five_probe(model: str) -> dict[str, float]:
    """A shipped model's record with PPDB and PPDB-f replaced by the five-probe means."""
    row = scores(ROOT / f"{model}.json")
    row.update(scores(ROOT / "experiments" / "probe_runs5" / f"{model}.json"))
    return row


def main() -> None:
    rows = {
        "all-MiniLM-L6-v2 (backbone)": five_probe("all-MiniLM-L6-v2"),
        "pearl-minilm v1": five_probe("pearl-minilm"),
    }
    for folder in ("v2", "phrase-bert"):
        for path in sorted((ROOT / "experiments" / folder).glob("*.json")):
            rows[path.stem] = scores(path)
    rows = {k: v for k, v in rows.items() if len(v) == len(TASKS)}
    backbone = rows["all-MiniLM-L6-v2 (backbone)"]
    best = {t: max(r[t] for r in rows.values()) for t in TASKS}
    who = {t: next(k for k, r in rows.items() if r[t] == best[t]) for t in TASKS}

    def avg(r: dict[str, float]) -> float:
        return sum(r[t] for t in TASKS) / len(TASKS)

    lines = [
        "# The per-task best of the recorded pearl-minilm variants (issue 15)",
        "",
        "`python experiments/oracle_avg7.py`: five-probe records of every "
        "full run, each task's best over all of them.",
        "",
        "| model | " + " | ".join(NAMES) + " | Avg-7 |",
        "|---|" + "---:|" * (len(TASKS) + 1),
    ]
    for name, r in rows.items():
        lines.append(
            f"| {name} | " + " | ".join(f"{r[t]:.1f}" for t in TASKS) + f" | {avg(r):.1f} |"
        )
    lines.append(
        "| **per-task best** | "
        + " | ".join(f"**{best[t]:.1f}**" for t in TASKS)
        + f" | **{avg(best):.2f}** |"
    )
    target = avg(backbone) + 5.0
    lines += [
        "",
        "Best of each task from: "
        + "; ".join(f"{n} {who[t]}" for n, t in zip(NAMES, TASKS, strict=True))
        + ".",
        "",
        f"Target (backbone + 5.0): **{target:.2f}**. The per-task best is "
        f"{avg(best):.2f}, {target - avg(best):+.2f} from it: no model that matched "
        "every recorded variant's best task at once would meet it.",
    ]
    out = ROOT / "experiments" / "oracle_avg7.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
