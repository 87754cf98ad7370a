"""Encoding speed of a model with and without its surface splitter.

Issue 82 ships ``pearl.models.surface_split`` in front of the default model at no more
than 3% of its encoding speed. The same folder is encoded twice in one process, once
as it is (its first module a ``SurfaceSplitTransformer``) and once with that module's
class set back to the strict ``Transformer`` (the same weights and tokenizer, no
rewriting), alternating, after a warm-up, on PPDB phrases and on synthetic company names
(``pearl_lab.synthetic.companies``); the median of the rounds is compared. Writes
results/benchmarks/surface_split_speed.{json,md}.

    python benchmarks/speed/surface_split.py [--model pearl-minilm] [--n 5000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import tempfile
import time
from functools import partial
from pathlib import Path

from pearl_lab import REPOSITORY, alternating_rounds, command_line, data_root, ppdb_phrases
from pearl_lab import commit as lab_commit
from pearl_lab.synthetic import companies

from pearl import PhraseEncoder
from pearl.encoders.resolve import resolve_model_path
from pearl.models.surface_split import split_surface

OUT = REPOSITORY / "results" / "benchmarks"


def without_splitter(folder: Path, into: Path) -> Path:
    """A copy of the model ``folder`` in ``into`` whose first module tokenises the text
    as given (its ``modules.json`` names the plain ``Transformer``)."""
    copy = into / folder.name
    shutil.copytree(folder, copy)
    modules = json.loads((copy / "modules.json").read_text())
    if modules[0]["type"] != "pearl.models.surface_split.SurfaceSplitTransformer":
        raise SystemExit(f"{folder}'s first module is not a surface splitter")
    modules[0]["type"] = "sentence_transformers.base.modules.transformer.Transformer"
    (copy / "modules.json").write_text(json.dumps(modules, indent=2))
    return copy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="pearl-minilm")
    ap.add_argument("--n", type=int, default=5_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--data", type=Path, default=data_root())
    ap.add_argument("--name", default="surface_split_speed")
    args = ap.parse_args()

    left, right, _ = companies(args.n // 2, seed=0)
    sets = {
        "PPDB phrases": ppdb_phrases(args.n, args.data),
        "company names": list(dict.fromkeys(left["name"].tolist() + right["name"].tolist())),
    }
    split = PhraseEncoder(args.model)
    tmp = tempfile.TemporaryDirectory()
    plain = PhraseEncoder(
        str(without_splitter(Path(resolve_model_path(args.model)), Path(tmp.name)))
    )
    encoders = {"with the splitter": split, "without": plain}
    rows = []
    for label, texts in sets.items():
        for enc in encoders.values():  # warm-up
            enc.encode(texts[:500], batch_size=args.batch_size)
        runs = {
            name: partial(enc.encode, texts, batch_size=args.batch_size)
            for name, enc in encoders.items()
        }
        times = alternating_rounds(runs, args.rounds)
        med = {k: statistics.median(v) for k, v in times.items()}
        changed = sum(split_surface(t) != t for t in texts)
        rows.append(
            {
                "texts": label,
                "n": len(texts),
                "rewritten": changed,
                "seconds": times,
                "median_seconds": med,
                "cost": round(med["with the splitter"] / med["without"] - 1, 4),
            }
        )
    commit, command = lab_commit(), command_line()
    result = {
        "model": args.model,
        "batch_size": args.batch_size,
        "rounds": args.rounds,
        "rows": rows,
        "target_cost": 0.03,
        "passed": all(r["cost"] <= 0.03 for r in rows),
        "commit": commit,
        "date": time.strftime("%Y-%m-%d"),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "command": command,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{args.name}.json").write_text(json.dumps(result, indent=2) + "\n")
    md = [
        "# Encoding speed with and without the surface splitter",
        "",
        f"`{command}` at {commit} on {result['date']}, {os.cpu_count()} CPUs, batch "
        f"{args.batch_size}, median of {args.rounds} alternating rounds after a warm-up; "
        f"{args.model} as shipped against the same folder with its first module a plain "
        "strict Transformer.",
        "",
        "| texts | n | rewritten | with the splitter, s | without, s | cost |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        m = r["median_seconds"]
        md.append(
            f"| {r['texts']} | {r['n']:,} | {r['rewritten']:,} | {m['with the splitter']:.2f}"
            f" | {m['without']:.2f} | {r['cost']:+.1%} |"
        )
    md += [
        "",
        f"Target: a cost of at most 3% ({'met' if result['passed'] else 'NOT met'}). "
        "'rewritten': texts the splitter changes without a vocabulary (case changes and "
        "web addresses).",
        "",
    ]
    (OUT / f"{args.name}.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
