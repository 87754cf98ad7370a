"""Effect of weight averaging on a finished run: re-finish its last checkpoint with other
mixing weights (no retraining) and evaluate each on the seven paper-own datasets.

``average_weight`` is the weight of the original model: 0 = the fine-tuned model as is
(no averaging), 0.5 = the paper's value. Writes results/benchmarks/averaging.{json,md}.

    python experiments/averaging.py --weights 0,0.3,0.5,0.7
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pearl_lab import data_root

from pearl.evaluation import evaluate
from pearl.evaluation.tasks import PAPER_OWN_TASKS
from pearl.training import Trainer, load_config

OUT = Path(__file__).resolve().parents[1] / "results" / "benchmarks"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="configs/pearl-minilm.toml")
    ap.add_argument("--weights", default="0,0.3,0.5,0.7")
    ap.add_argument("--workdir", default="models/averaging")
    args = ap.parse_args()
    rows = {}
    for w in [float(x) for x in args.weights.split(",")]:
        out = Path(args.workdir) / f"w{w:g}"
        cfg = load_config(
            args.config,
            {"average": w > 0, "average_weight": w, "output": str(out), "save_dtype": "float32"},
        )
        if not (cfg.checkpoints / "state.safetensors").is_file():
            raise SystemExit(f"no finished run in {cfg.checkpoints}: train first")
        if not (out / "modules.json").is_file():
            Trainer(cfg, show_progress_bar=False).train(resume=True)
        rec = evaluate(
            str(out),
            data=data_root() / "benchmark",
            short_text=data_root() / "short_text",
            tasks=",".join(PAPER_OWN_TASKS),
            show_progress_bar=False,
        )
        scores = {k: v["score"] for k, v in rec["tasks"].items()}
        rows[f"{w:g}"] = {"scores": scores, "avg7": rec["averages"]["avg7"]}
        print(w, round(rec["averages"]["avg7"], 2), flush=True)
    OUT.mkdir(exist_ok=True)
    (OUT / "averaging.json").write_text(json.dumps({"config": args.config, "rows": rows}, indent=2))
    lines = [
        "# Weight averaging: mixing weight of the original model",
        "",
        f"`python experiments/averaging.py --config {args.config} --weights "
        f"{args.weights}` (the same finished run, re-finished; float32)",
        "",
        "| weight of original | " + " | ".join(PAPER_OWN_TASKS) + " | Avg-7 |",
        "|---:|" + "---:|" * (len(PAPER_OWN_TASKS) + 1),
    ]
    for w, r in rows.items():
        lines.append(
            f"| {w} | "
            + " | ".join(f"{r['scores'][k]:.1f}" for k in PAPER_OWN_TASKS)
            + f" | {r['avg7']:.1f} |"
        )
    (OUT / "averaging.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
