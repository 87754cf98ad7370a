"""Start-up time: ``import pearl``, ``pearl --help``, the first pearl-static vector and
``pearl dedup`` of a small file, in fresh interpreters.

Each command runs ``--runs`` times in a new process; the minimum wall time is the figure
(targets: ``import pearl`` < 1.0 s, ``pearl --help`` < 1.5 s; issue 52: ``import pearl``
to the first pearl-static vector <= 0.5 s, ``pearl dedup`` of a 1,000-row CSV with
pearl-static, process start to file written, <= 1.5 s), beside ``import sklearn`` for
scale. The CSV is generated (company names, 30% with one deleted letter, seed 0). It also
lists which heavy modules each command imported (none of torch,
transformers, sentence-transformers, pandas, scikit-learn, spaCy, NLTK, Dask is the
goal). Run it while nothing else runs. Writes results/benchmarks/startup.{json,md}.

    python benchmarks/speed/startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import subprocess
import sys
import tempfile
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
FIRST_VECTOR = "import pearl; pearl.PhraseEncoder('pearl-static').encode(['The New York Times'])"
TMP = Path(tempfile.mkdtemp(prefix="pearl-startup-"))
DEDUP = ["dedup", str(TMP / "names.csv"), "--column", "name", "-o", str(TMP / "out.csv")]
DEDUP += ["-m", "pearl-static"]
COMMANDS = {
    "import pearl": [sys.executable, "-c", "import pearl"],
    "pearl --help": [sys.executable, "-m", "pearl.cli", "--help"],
    "import pearl + first pearl-static vector": [sys.executable, "-c", FIRST_VECTOR],
    "pearl dedup, 1,000-row CSV, pearl-static": [sys.executable, "-m", "pearl.cli", *DEDUP],
    "import sklearn (for scale)": [sys.executable, "-c", "import sklearn"],
}


def write_names(path: Path, n: int = 1000) -> None:
    """``n`` company names with numbers, 30% with one letter deleted (seed 0)."""
    rng = random.Random(0)
    stems = ["acme corp", "globex", "initech", "umbrella corporation", "stark industries"]
    stems += ["wayne enterprises", "cyberdyne systems", "tyrell corp", "soylent", "hooli"]
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["id", "name"])
        for i in range(n):
            name = f"{rng.choice(stems)} {rng.randint(0, 300)}"
            if rng.random() < 0.3:
                j = rng.randrange(len(name))
                name = name[:j] + name[j + 1 :]
            out.writerow([i, name])


def heavy_modules(name: str) -> list[str]:
    """The heavy modules loaded by a command (run once in a probe interpreter)."""
    if name == "pearl --help":
        code = "import sys\nfrom pearl.cli import build_parser\nbuild_parser().format_help()\n"
    elif name.startswith("pearl dedup"):
        code = f"from pearl.cli import main\nmain({DEDUP!r})\n"
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
    ap.add_argument("--name", default="startup", help="results file stem")
    args = ap.parse_args()
    write_names(TMP / "names.csv")
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
        "command": "python benchmarks/speed/startup.py --runs "
        + str(args.runs)
        + (f" --name {args.name}" if args.name != "startup" else ""),
        "runs": args.runs,
        "python": sys.version.split()[0],
        "rows": rows,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{args.name}.json").write_text(json.dumps(record, indent=2) + "\n")
    lines = [
        "# Start-up time",
        "",
        f"`{record['command']}` (min and median of {args.runs} "
        "fresh interpreters each; targets: import < 1.0 s, --help < 1.5 s, first "
        "pearl-static vector <= 0.5 s, dedup of 1,000 rows <= 1.5 s)",
        "",
        "| command | min (s) | median (s) | heavy modules imported |",
        "|---|---:|---:|---|",
    ]
    for r in rows:
        heavy = "–" if r["heavy_modules"] is None else (", ".join(r["heavy_modules"]) or "none")
        lines.append(f"| {r['command']} | {r['min_s']:.3f} | {r['median_s']:.3f} | {heavy} |")
    (OUT / f"{args.name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
