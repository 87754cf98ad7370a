"""Issue 49's candidate (f): pearl-minilm with a surface splitter in front of its
transformer (``pearl.models.surface_split``; no training), saved as a model folder, then
the diagnostics of experiments/results/surface_split_plan.md are run with the other
scripts (commands in the plan).

    python experiments/surface_split.py -o models/c49f
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pearl.encoders.resolve import resolve_model_path
from pearl.models.loading import open_model_folder
from pearl.models.surface_split import add_surface_split
from pearl.training.saving import save_model


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-m", "--model", default="pearl-minilm", help="the model to front")
    ap.add_argument("-o", "--output", type=Path, required=True, help="the new model folder")
    args = ap.parse_args()
    if args.output.exists():
        raise SystemExit(f"{args.output} exists: choose another folder")
    model = add_surface_split(open_model_folder(resolve_model_path(args.model)))
    save_model(model, args.output, dtype="float16")
    print(f"saved {args.output}")


if __name__ == "__main__":
    main()
