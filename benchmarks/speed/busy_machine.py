"""A transformer's encoding when other work keeps the CPUs busy, by how OpenMP waits.

GNU OpenMP (torch's and faiss's runtime on Linux) lets a waiting thread spin 300,000
rounds before it sleeps; ``import pearl`` sets ``GOMP_SPINCOUNT=1000`` unless the user set
how OpenMP waits (``pearl._openmp``). This script encodes the same PPDB phrases with
pearl-minilm in a fresh process per run, under three loads (nothing else; a busy
process on one CPU; a small torch training loop on every CPU, each started in a session
of its own as from another terminal) and four settings (libgomp's default spin, 10,000
and 1,000 rounds, torch on one thread), at two batch sizes, the model loaded and warmed
up before the clock. Writes
results/benchmarks/busy_machine.{json,md} (``--name`` for another stem).

    python benchmarks/speed/busy_machine.py [--n 2000] [--model pearl-minilm]

Run it with nothing else on the machine (pause any background job): it makes its own load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from pearl_lab import data_root

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"
SETTINGS = {
    "libgomp's default (spin 300,000)": {"GOMP_SPINCOUNT": "300000"},
    "spin 10,000": {"GOMP_SPINCOUNT": "10000"},
    "spin 1,000": {"GOMP_SPINCOUNT": "1000"},
    "one torch thread": {"GOMP_SPINCOUNT": "300000", "BUSY_ONE_THREAD": "1"},
}
LOADS = ["nothing else", "one busy CPU", "a torch job on every CPU"]
WORKER = """
import sys, time, os
import pearl, torch
from pearl_lab import ppdb_phrases
from pathlib import Path
if os.environ.get("BUSY_ONE_THREAD"):
    torch.set_num_threads(1)
texts = ppdb_phrases(int(sys.argv[1]) + 200, Path(sys.argv[3]))
enc = pearl.PhraseEncoder(sys.argv[2])
bs = int(sys.argv[4])
enc.encode(texts[:200], batch_size=bs, show_progress_bar=False)
t = time.perf_counter()
enc.encode(texts[200:], batch_size=bs, show_progress_bar=False)
print(time.perf_counter() - t)
"""


TORCH_JOB = """
import torch
x = torch.randn(512, 384)
m = torch.nn.Sequential(torch.nn.Linear(384, 1536), torch.nn.GELU(), torch.nn.Linear(1536, 384))
opt = torch.optim.AdamW(m.parameters())
while True:
    m(x).pow(2).mean().backward()
    opt.step()
    opt.zero_grad()
"""


def _hogs(load: str) -> list[subprocess.Popen]:
    """The load's busy processes, each in a session of its own as a job started from
    another terminal (with the kernel's autogroups, a nice value only ranks a process
    within its own session): a Python loop on one CPU, or a small torch training loop
    with torch's default threads (one per CPU, waiting as libgomp does by default)."""
    if load == "one busy CPU":
        cmd = [sys.executable, "-c", "while True: pass"]
    elif load == "a torch job on every CPU":
        cmd = [sys.executable, "-c", TORCH_JOB]
    else:
        return []
    env = {**os.environ, "GOMP_SPINCOUNT": "300000"}
    return [subprocess.Popen(cmd, env=env, start_new_session=True)]


def run(n: int, model: str, data: Path, load: str, env: dict, batch_size: int) -> float:
    hogs = _hogs(load)
    try:
        time.sleep(1.0)
        out = subprocess.run(
            [sys.executable, "-c", WORKER, str(n), model, str(data), str(batch_size)],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            check=True,
        )
        return float(out.stdout.strip().splitlines()[-1])
    finally:
        for h in hogs:
            h.kill()
            h.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2_000)
    ap.add_argument("--model", default="pearl-minilm")
    ap.add_argument("--data", type=Path, default=data_root())
    ap.add_argument("--batch-sizes", type=int, nargs="+", default=[64, 256])
    ap.add_argument("--repeat", type=int, default=2, help="runs per cell (the best kept)")
    ap.add_argument("--name", default="busy_machine")
    args = ap.parse_args()
    rows = []
    for batch_size in args.batch_sizes:
        for load in LOADS:
            for setting, env in SETTINGS.items():
                runs = [
                    run(args.n, args.model, args.data, load, env, batch_size)
                    for _ in range(args.repeat)
                ]
                seconds = min(runs)
                rows.append(
                    {"batch": batch_size, "load": load, "setting": setting, "seconds": seconds}
                )
                print(json.dumps(rows[-1]), flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{args.name}.json").write_text(json.dumps(rows, indent=1) + "\n")
    changed = {
        k: v for k, v in vars(args).items() if k not in ("data", "name") and v != ap.get_default(k)
    }
    cmd = "python benchmarks/speed/busy_machine.py" + "".join(
        f" --{k.replace('_', '-')} " + (" ".join(map(str, v)) if isinstance(v, list) else str(v))
        for k, v in changed.items()
    )
    lines = [
        "# Encoding beside other work, by how OpenMP waits",
        "",
        f"`{cmd}`: {args.model}, {args.n:,} PPDB phrases, a fresh process a run (model "
        f"loaded and warmed up before the clock), the best of {args.repeat} runs a cell, "
        f"{len(os.sched_getaffinity(0))} CPUs.",
        "",
        "| batch | load | " + " | ".join(SETTINGS) + " |",
        "|---:|---|" + "---:|" * len(SETTINGS),
    ]
    for batch_size in args.batch_sizes:
        for load in LOADS:
            cells = [
                f"{r['seconds']:.2f} s"
                for r in rows
                if r["load"] == load and r["batch"] == batch_size
            ]
            lines.append(f"| {batch_size} | {load} | " + " | ".join(cells) + " |")
    (OUT / f"{args.name}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
