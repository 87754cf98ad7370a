"""How much the character part of a fused PEARL vector helps: scale it after training.

A PEARL model outputs ``normalize([phrase vector, character vector])``. This diagnostic
multiplies the character encoder's output layer by ``alpha`` (0 removes the character part,
1 is the model as trained), saves each variant in float32 and scores it on the paper's
seven own datasets, with the mean norm of each part before normalisation. No retraining,
and ``alpha`` is not a recipe knob: choosing it on these scores would tune on the test
sets. Writes results/benchmarks/char_share.{json,md}.

    python experiments/char_share.py pearl-minilm --alphas 0,0.5,1
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch
from pearl_lab import data_root

from pearl.encoders import PhraseEncoder
from pearl.evaluation import evaluate
from pearl.evaluation.tasks import PAPER_OWN_TASKS
from pearl.models import fusion_module

OUT = Path(__file__).resolve().parents[1] / "results" / "benchmarks"
PROBE_PHRASES = [
    "The New York Times",
    "nytimes.com",
    "New York Post",
    "heavy rain",
    "acute kidney injury",
    "Barack Obama",
    "run away",
    "in the house",
]


def scaled_copy(model: str, alpha: float, out: Path) -> Path:
    """Save ``model`` with its character output layer multiplied by ``alpha``."""
    enc = PhraseEncoder(model)
    st = enc.model.float()
    fusion = fusion_module(st)
    if fusion is None or fusion.char_encoder is None:
        raise SystemExit(f"{model} has no character encoder")
    with torch.no_grad():
        fusion.char_encoder.project.weight.mul_(alpha)
        fusion.char_encoder.project.bias.mul_(alpha)
    st.save(str(out))
    return out


def part_norms(model: str | Path) -> tuple[float, float]:
    """Mean norms of the phrase and character parts of the fused, unnormalised vector."""
    st = PhraseEncoder(str(model)).model
    fusion = fusion_module(st)
    feats = st.preprocess(PROBE_PHRASES)
    with torch.no_grad():
        for module in st:
            feats = module(feats)
            if module is fusion:  # stop before Normalize
                break
        x = feats["sentence_embedding"].float().numpy()
    d = fusion.phrase_dim
    return (
        float(np.linalg.norm(x[:, :d], axis=1).mean()),
        float(np.linalg.norm(x[:, d:], axis=1).mean()),
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", help="a PEARL model name or folder")
    ap.add_argument("--alphas", default="0,0.5,1")
    ap.add_argument("--workdir", default="models/char_share")
    a = ap.parse_args(argv)
    rows = {}
    for alpha in [float(x) for x in a.alphas.split(",")]:
        out = Path(a.workdir) / f"alpha{alpha:g}"
        if not (out / "modules.json").is_file():
            scaled_copy(a.model, alpha, out)
        norms = part_norms(out)
        rec = evaluate(
            str(out),
            data=data_root() / "benchmark",
            short_text=data_root() / "short_text",
            tasks=",".join(PAPER_OWN_TASKS),
            show_progress_bar=False,
        )
        rows[f"{alpha:g}"] = {
            "scores": {k: v["score"] for k, v in rec["tasks"].items()},
            "avg7": rec["averages"]["avg7"],
            "norms": norms,
        }
        print(alpha, norms, round(rec["averages"]["avg7"], 2), flush=True)
    OUT.mkdir(exist_ok=True)
    (OUT / "char_share.json").write_text(json.dumps({"model": a.model, "rows": rows}, indent=2))
    lines = [
        "# Character part of the fused vector, scaled after training",
        "",
        f"`python experiments/char_share.py {a.model} --alphas {a.alphas}` "
        "(float32; "
        "norms: mean over 8 example phrases, before Normalize). A diagnostic, not a "
        "tuned setting.",
        "",
        "| alpha | phrase norm | char norm | " + " | ".join(PAPER_OWN_TASKS) + " | Avg-7 |",
        "|---:|---:|---:|" + "---:|" * (len(PAPER_OWN_TASKS) + 1),
    ]
    for alpha, r in rows.items():
        lines.append(
            f"| {alpha} | {r['norms'][0]:.2f} | {r['norms'][1]:.2f} | "
            + " | ".join(f"{r['scores'][k]:.1f}" for k in PAPER_OWN_TASKS)
            + f" | {r['avg7']:.1f} |"
        )
    (OUT / "char_share.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
