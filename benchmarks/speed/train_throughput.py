"""Time of one PEARL training step against a plain sentence-transformers MNRL step.

Target: a PEARL step (fused model: backbone + character encoder, InfoNCE with k
hard negatives, type cross-entropy on both views) costs at most 1.3x a
MultipleNegativesRankingLoss step of the same backbone on the same batch of
(anchor, positive) pairs. Both run in one process, alternating, after a warm-up; the
median of the rounds is compared. The batch comes from the training-data files (corpus,
augmented views, hard negatives; see the README). Writes
results/benchmarks/train_throughput.{json,md}.

    python benchmarks/speed/train_throughput.py [--backbone all-MiniLM-L6-v2] [--batch-size 128]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import torch

from pearl.data.labels import LABELS
from pearl.encoders.resolve import resolve_model_path
from pearl.models import build_pearl_model, fusion_module
from pearl.training import Trainer, TrainingData, load_config
from pearl.training.objective import build_objective
from pearl.training.objective_inputs import objective_inputs

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--config",
        default="configs/pearl-minilm.toml",
        help="training config giving the data files and the recipe",
    )
    ap.add_argument("--backbone", default="all-MiniLM-L6-v2")
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    cfg = load_config(args.config, {"backbone": args.backbone, "batch_size": args.batch_size})
    data = TrainingData.from_files(
        cfg.corpus,
        cfg.augmented,
        cfg.negatives,
        levels=cfg.levels,
        augmenter_weights=cfg.augmenter_weights,
        seed=cfg.seed,
    )
    backbone = resolve_model_path(args.backbone)
    torch.manual_seed(0)
    pearl = build_pearl_model(
        backbone,
        {"out_dim": cfg.char_out_dim, "dim": cfg.char_dim},
        labels=list(LABELS) if cfg.type_loss else None,
        max_seq_length=cfg.max_seq_length,
    )
    fusion = fusion_module(pearl)
    trainer = Trainer(cfg, show_progress_bar=False)
    # the objective train() builds from the configuration (its terms and their inputs)
    trainer.objective = build_objective(cfg, **objective_inputs(cfg, data))
    pearl_opt = torch.optim.Adam(pearl.parameters(), lr=cfg.lr)
    plain = SentenceTransformer(backbone, device="cpu")
    plain.max_seq_length = cfg.max_seq_length
    mnrl = MultipleNegativesRankingLoss(plain)
    plain_opt = torch.optim.Adam(plain.parameters(), lr=cfg.lr)
    pearl.train()
    plain.train()

    def pearl_step(batch) -> float:
        t = time.perf_counter()
        loss, _ = trainer.step_loss(pearl, fusion, batch)
        pearl_opt.zero_grad()
        loss.backward()
        pearl_opt.step()
        return time.perf_counter() - t

    def mnrl_step(batch) -> float:
        t = time.perf_counter()
        feats = [plain.preprocess(batch.anchors), plain.preprocess(batch.positives)]
        loss = mnrl(feats, None)
        plain_opt.zero_grad()
        loss.backward()
        plain_opt.step()
        return time.perf_counter() - t

    times: dict[str, list[float]] = {"pearl": [], "mnrl": []}
    for r in range(args.rounds + 1):
        batch = data.batch(r, args.batch_size, cfg.hard_negatives)
        tp, tm = pearl_step(batch), mnrl_step(batch)
        if r:  # round 0 is the warm-up
            times["pearl"].append(tp)
            times["mnrl"].append(tm)
    med = {k: statistics.median(v) for k, v in times.items()}
    ratio = med["pearl"] / med["mnrl"]
    result = {
        "backbone": args.backbone,
        "batch_size": args.batch_size,
        "hard_negatives": cfg.hard_negatives,
        "rounds": args.rounds,
        "pearl_step_s": round(med["pearl"], 4),
        "mnrl_step_s": round(med["mnrl"], 4),
        "ratio": round(ratio, 3),
        "target": 1.3,
        "passed": ratio <= 1.3,
        "all_s": {k: [round(x, 4) for x in v] for k, v in times.items()},
        "threads": torch.get_num_threads(),
        "machine": platform.processor() or platform.machine(),
        "command": "python benchmarks/speed/train_throughput.py "
        + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items() if v),
    }
    OUT.mkdir(exist_ok=True)
    (OUT / "train_throughput.json").write_text(json.dumps(result, indent=2))
    (OUT / "train_throughput.md").write_text(
        "# Training step time: PEARL vs sentence-transformers MNRL\n\n"
        f"`{result['command']}`\n\n"
        "| step | median s | pairs/s |\n|---|---:|---:|\n"
        f"| PEARL (fused model, InfoNCE + {cfg.hard_negatives} hard negatives + type loss) | "
        f"{med['pearl']:.3f} | {args.batch_size / med['pearl']:.0f} |\n"
        f"| MultipleNegativesRankingLoss, same backbone and batch | {med['mnrl']:.3f} | "
        f"{args.batch_size / med['mnrl']:.0f} |\n\n"
        f"Ratio {ratio:.3f} (target <= 1.3): {'met' if ratio <= 1.3 else 'NOT met'}. "
        f"Batch {args.batch_size}, median of {args.rounds} alternating rounds after a "
        f"warm-up, {torch.get_num_threads()} threads.\n"
    )
    print(json.dumps({k: v for k, v in result.items() if k != "all_s"}, indent=2))


if __name__ == "__main__":
    main()
