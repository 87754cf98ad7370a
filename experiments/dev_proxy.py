"""A development score for choosing among training recipes without the benchmark's files.

The rule is that no model is chosen on the benchmark (nor on HPO or GeoNames). This script
scores models on name data from another source, ISO 3166 through the ``pycountry`` package
(``pip install pycountry``), which no pearl recipe trains on:

- ``official``: each country's official or common name (e.g. "Republic of Korea",
  "Bolivia, Plurinational State of") must retrieve its short name, among every country and
  ISO 3166-2 subdivision name (about 5,300 candidates); top-1 accuracy.
- ``typo``: 2,000 subdivision names with one random character edit (seed 0) must retrieve
  their source among every subdivision name; top-1 accuracy.

The ``dev`` score is their mean. It is a proxy: whether it ranks models as the benchmark
does is measured, not assumed (experiments/results/README.md). Writes
results/benchmarks/dev_proxy.{json,md} (one row per model, merged with earlier rows).

    python experiments/dev_proxy.py all-MiniLM-L6-v2 pearl-minilm models/x
    python experiments/dev_proxy.py --names data_out/dev_names.txt  # to exclude
    python experiments/dev_proxy.py pearl-minilm+pearl-static  # two models concatenated
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from concat_encoder import load
from pearl_lab.dev import dev_strings, tasks

from pearl.evaluation.dev_proxy import dev_scores

OUT = Path(__file__).resolve().parents[1] / "results" / "benchmarks"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help="model names or folders")
    parser.add_argument("-o", "--output", type=Path, default=OUT / "dev_proxy")
    parser.add_argument(
        "--names",
        type=Path,
        help="write every string of the two tasks "
        "(queries and candidates, one per line) to this file, for "
        "`pearl aliases --exclude`, and stop",
    )
    args = parser.parse_args(argv)
    data = tasks()
    if args.names:
        args.names.write_text("\n".join(dev_strings()) + "\n", encoding="utf-8")
        return 0
    if not args.models:
        parser.error("name at least one model (or --names FILE)")
    path = args.output.with_suffix(".json")
    rows = json.loads(path.read_text()) if path.is_file() else {}
    for name in args.models:
        model = load(name)
        scores = dev_scores(model, data)
        rows[name] = scores
        print(name, scores, flush=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rows, indent=2) + "\n")
    sizes = {task: len(q) for task, (q, _, _) in data.items()}
    lines = [
        "# Development score (ISO 3166 names; not a benchmark file)",
        "",
        f"Queries: official {sizes['official']}, typo {sizes['typo']}. "
        "Command: `python experiments/dev_proxy.py MODEL...`",
        "",
        "| model | official | typo | dev |",
        "|---|---:|---:|---:|",
    ]
    lines += [
        f"| {m} | {r['official']:.1f} | {r['typo']:.1f} | {r['dev']:.1f} |" for m, r in rows.items()
    ]
    args.output.with_suffix(".md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
