"""Start-up time: ``import pearl`` and ``pearl --help`` in fresh interpreters.

Each command runs ``--runs`` times in a new process; the minimum wall time is the figure
(targets: ``import pearl`` < 1.0 s, ``pearl --help`` < 1.5 s), beside ``import sklearn``
for scale. It also lists which heavy modules each command imported (none of torch,
transformers, sentence-transformers, pandas, scikit-learn, spaCy, NLTK, Dask is the
goal). Run it while nothing else runs. Writes results/benchmarks/startup.{json,md}.

    python benchmarks/speed/startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"
HEAVY = (
    "torch",
    "transformers",
    "sentence_transformers",
    "pandas",
    "sklearn",
    "spacy",
    "nltk",
    "dask",
    "faiss",
    "polars",
    "pyarrow",
)
COMMANDS = {
    "import pearl": [sys.executable, "-c", "import pearl"],
    "pearl --help": [sys.executable, "-m", "pearl.cli", "--help"],
    "import sklearn (for scale)": [sys.executable, "-c", "import sklearn"],
}


def heavy_modules(name: str) -> list[str]:
    """The heavy modules loaded by a command (run once in a probe interpreter)."""
    if name == "pearl --help":
        code = "import sys\nfrom pearl.cli import build_parser\nbuild_parser().format_help()\n"
    else:
        code = COMMANDS[name][2]
    probe = code + f"\nimport sys\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = (
        subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
        .stdout.strip()
        .splitlines()
    )
    return [m for m in (out[-1].split(",") if out else []) if m]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    rows = []
    for name, cmd in COMMANDS.items():
        times = []
        for _ in range(args.runs):
            t = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            times.append(time.perf_counter() - t)
        rows.append(
            {
                "command": name,
                "min_s": round(min(times), 3),
                "median_s": round(sorted(times)[len(times) // 2], 3),
                "heavy_modules": heavy_modules(name) if "pearl" in name else None,
            }
        )
        print(rows[-1], flush=True)
    record = {
        "command": "python benchmarks/speed/startup.py --runs " + str(args.runs),
        "runs": args.runs,
        "python": sys.version.split()[0],
        "rows": rows,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "startup.json").write_text(json.dumps(record, indent=2) + "\n")
    lines = [
        "# Start-up time",
        "",
        f"`{record['command']}` (min and median of {args.runs} "
        "fresh interpreters each; targets: import < 1.0 s, --help < 1.5 s)",
        "",
        "| command | min (s) | median (s) | heavy modules imported |",
        "|---|---:|---:|---|",
    ]
    for r in rows:
        heavy = "–" if r["heavy_modules"] is None else (", ".join(r["heavy_modules"]) or "none")
        lines.append(f"| {r['command']} | {r['min_s']:.3f} | {r['median_s']:.3f} | {heavy} |")
    (OUT / "startup.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
