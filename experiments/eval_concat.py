"""The PEARL benchmark for models written ``a+b`` (two models' unit vectors concatenated).

``pearl eval`` takes model names and folders; this runs the same :func:`pearl.evaluate` on a
:class:`concat_encoder.ConcatEncoder` (issue 49's candidate (e):
experiments/results/concat_candidate_plan.md) and writes its record and table the way
``pearl eval -o`` does.

    python experiments/eval_concat.py pearl-minilm+pearl-static -o experiments/results/c49e
"""

from __future__ import annotations

import argparse
from pathlib import Path

from concat_encoder import load
from pearl_lab import data_root

from pearl.evaluation import evaluate, load_records, render_markdown, save_record, write_report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", help="model names, folders or a+b")
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument("-t", "--tasks", default="phrase", help="task names or groups")
    args = parser.parse_args(argv)
    root = data_root()
    for name in args.models:
        record = evaluate(
            load(name),
            tasks=args.tasks.split(","),
            data=root / "benchmark",
            short_text=root / "short_text",
        )
        print("wrote", save_record(record, args.output), flush=True)
    write_report(args.output)
    print(render_markdown(load_records(args.output)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
