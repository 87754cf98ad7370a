"""The paper's ablation table (Table 3): PEARL with one component switched off at a time.

Every variant is trained from the same configuration with one switch flipped, then
evaluated with ``pearl.evaluate``. The variant without weight averaging needs no training
of its own: it re-finishes the full run's last checkpoint without averaging. Runs are
restartable: a variant whose model folder exists is not retrained, and an interrupted one
resumes from its checkpoint. Writes results/benchmarks/ablation.{json,md}.

The shipped recipe takes about an hour per variant on a 2-core CPU, so ``--steps`` and
``--batch-size`` scale every variant down alike; the table states the scale it ran at.

    python experiments/ablation.py --steps 300 --batch-size 64
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from pearl_lab import data_root

from pearl.evaluation import evaluate
from pearl.training import Trainer, load_config

OUT = Path(__file__).resolve().parents[1] / "results" / "benchmarks"

#: variant name -> the switches it flips (Table 3 of the paper)
VARIANTS = {
    "PEARL (full recipe)": {},
    "- character encoder": {"use_chars": False},
    "- entity type classification": {"type_loss": False},
    "- character-level augmentation": {"char_aug": False},
    "- token-level augmentation": {"token_aug": False},
    "- phrase-level augmentation": {"phrase_aug": False},
    "- all augmentations": {"char_aug": False, "token_aug": False, "phrase_aug": False},
    "- hard negatives": {"hard_negatives": 0},
    "- weight averaging": {"average": False},
}
DEFAULT_TASKS = "ppdb,ppdb_filtered,turney,bird,conll2003,bc5cdr"


def slug(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name.strip("- ")).strip("_").lower()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="configs/pearl-minilm.toml")
    ap.add_argument("--steps", type=int, default=0, help="steps per variant (0: the config's)")
    ap.add_argument("--batch-size", type=int, default=0)
    ap.add_argument("--char-pretrain-steps", type=int, default=-1)
    ap.add_argument("--tasks", default=DEFAULT_TASKS)
    ap.add_argument("--workdir", default="models/ablation")
    ap.add_argument("--only", help="comma-separated variant slugs to run")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument(
        "--table-only",
        action="store_true",
        help="re-render ablation.md from ablation.json without running",
    )
    args = ap.parse_args()
    if args.table_only:
        saved = json.loads((OUT / "ablation.json").read_text())
        args.tasks = saved["tasks"]
        write_table(saved["rows"], saved["scale"], args)
        return

    scale = {"output_dim": 0, "save_dtype": "float32"}
    if args.steps:
        scale["max_steps"] = args.steps
    if args.batch_size:
        scale["batch_size"] = args.batch_size
    if args.char_pretrain_steps >= 0:
        scale["char_pretrain_steps"] = args.char_pretrain_steps
    work = Path(args.workdir)
    full_ckpt = work / "full.checkpoints"
    rows = {}
    results_path = OUT / "ablation.json"
    if results_path.is_file():
        rows = json.loads(results_path.read_text()).get("rows", {})
    only = set(args.only.split(",")) if args.only else None
    for name, switches in VARIANTS.items():
        key = "full" if not switches else slug(name)
        if only and key not in only:
            continue
        out = work / key
        overrides = {
            **scale,
            **switches,
            "output": str(out),
            "checkpoint_dir": str(
                full_ckpt if key in ("full", "weight_averaging") else work / f"{key}.checkpoints"
            ),
        }
        cfg = load_config(args.config, overrides)
        t0 = time.time()
        if not (out / "modules.json").is_file():
            if key == "weight_averaging" and not (full_ckpt / "state.safetensors").is_file():
                raise SystemExit("run the full recipe first (its checkpoint is reused)")
            Trainer(cfg, show_progress_bar=not args.quiet).train(resume=True)
        train_s = time.time() - t0
        record = evaluate(
            str(out),
            data=data_root() / "benchmark",
            short_text=data_root() / "short_text",
            tasks=args.tasks,
            show_progress_bar=not args.quiet,
        )
        scores = {k: v.get("score") for k, v in record["tasks"].items()}
        done = [v for v in scores.values() if v is not None]
        rows[name] = {
            "switches": switches,
            "scores": scores,
            "avg": sum(done) / len(done) if done else None,
            "train_s": round(train_s, 1),
        }
        OUT.mkdir(exist_ok=True)
        results_path.write_text(
            json.dumps(
                {"scale": scale, "tasks": args.tasks, "config": args.config, "rows": rows}, indent=2
            )
        )
        print(name, {k: round(v, 1) for k, v in scores.items() if v is not None})
    write_table(rows, scale, args)


def write_table(rows: dict, scale: dict, args) -> None:
    tasks = args.tasks.split(",")
    full = rows.get("PEARL (full recipe)", {}).get("avg")
    # KMeans with k=2 on BC5CDR sometimes isolates a few outlier vectors (NMI ~2); an
    # average without it shows the other tasks' differences undistorted
    rest = [t for t in tasks if t != "bc5cdr"]

    def avg_rest(r: dict) -> float | None:
        vals = [r["scores"].get(t) for t in rest]
        return sum(vals) / len(vals) if vals and None not in vals else None

    full_rest = avg_rest(rows["PEARL (full recipe)"]) if "PEARL (full recipe)" in rows else None
    lines = [
        "# Ablation (paper Table 3), measured",
        "",
        f"`python experiments/ablation.py {' '.join(_argv(args))}`",
        "",
        f"Config {args.config} with {json.dumps(scale)} for every variant; "
        "scores in percent (NMI x 100 for CoNLL-03/BC5CDR, Pearson r x 100 for BIRD).",
        "",
        "| Variant | " + " | ".join(tasks) + " | Avg | vs full | Avg w/o bc5cdr | vs full |",
        "|---|" + "---:|" * (len(tasks) + 4),
    ]
    for name in VARIANTS:
        if name not in rows:
            continue
        r = rows[name]
        cells = [
            f"{r['scores'].get(t):.1f}" if r["scores"].get(t) is not None else "–" for t in tasks
        ]
        delta = f"{r['avg'] - full:+.1f}" if full is not None and r["avg"] is not None else "–"
        ar = avg_rest(r)
        d2 = f"{ar - full_rest:+.1f}" if ar is not None and full_rest is not None else "–"
        lines.append(
            f"| {name} | "
            + " | ".join(cells)
            + f" | {r['avg']:.1f} | {delta} | "
            + (f"{ar:.1f}" if ar is not None else "–")
            + f" | {d2} |"
        )
    (OUT / "ablation.md").write_text("\n".join(lines) + "\n")


def _argv(args) -> list[str]:
    out = []
    for k, v in vars(args).items():
        if v not in (None, False, 0, -1) and k not in ("quiet", "table_only"):
            out.append(f"--{k.replace('_', '-')} {v}")
    return out


if __name__ == "__main__":
    main()
