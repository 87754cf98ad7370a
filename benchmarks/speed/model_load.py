"""Model load time: ``PhraseEncoder(name)`` for the shipped models, in fresh interpreters.

The strict loader (issue 38: every JSON of the folder read and checked, weights and links
checked, module classes from a registry) must cost no measurable time. Each model is
loaded ``--runs`` times in a new process (torch, sentence-transformers and pearl imported
before the clock starts) and the minimum and median are recorded. ``--label`` names the
code measured, so a run of an older checkout
(``PYTHONPATH=<old>/src python benchmarks/speed/model_load.py --label old``) lands beside
it in the same file. Run it while nothing else runs. Writes
results/benchmarks/model_load.{json,md}.

    python benchmarks/speed/model_load.py [--runs 5] [--label current]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"
MODELS = ("all-MiniLM-L6-v2", "pearl-minilm", "pearl-static")
# torch, sentence-transformers and pearl's model modules are imported before the clock
# starts, so old code (which imported them with pearl) and new code (which imports them on
# first use) are timed on the same work: opening the folder
PROBE = (
    "import time, sentence_transformers, pearl.encoders.phrase as p\n"
    "import pearl.models.pearl_model\n"
    "t = time.perf_counter(); p.PhraseEncoder({name!r}); "
    "print(time.perf_counter() - t)"
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--label", default="current")
    args = ap.parse_args()
    path = OUT / "model_load.json"
    record = json.loads(path.read_text()) if path.is_file() else {"rows": []}
    record["rows"] = [r for r in record["rows"] if r["label"] != args.label]
    for name in MODELS:
        times = []
        for _ in range(args.runs):
            out = subprocess.run(
                [sys.executable, "-c", PROBE.format(name=name)],
                capture_output=True,
                text=True,
                check=True,
            )
            times.append(float(out.stdout.strip().splitlines()[-1]))
        times.sort()
        record["rows"].append(
            {
                "label": args.label,
                "model": name,
                "min_s": round(times[0], 3),
                "median_s": round(times[len(times) // 2], 3),
            }
        )
        print(record["rows"][-1], flush=True)
    record["command"] = "python benchmarks/speed/model_load.py --runs N --label LABEL"
    OUT.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2) + "\n")
    lines = [
        "# Model load time",
        "",
        f"`{record['command']}`: `PhraseEncoder(name)` in fresh "
        "interpreters (import excluded), min and median of the runs",
        "",
        "| code | model | min (s) | median (s) |",
        "|---|---|---:|---:|",
    ]
    lines += [
        f"| {r['label']} | {r['model']} | {r['min_s']:.3f} | {r['median_s']:.3f} |"
        for r in record["rows"]
    ]
    (OUT / "model_load.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
