#!/usr/bin/env bash
# Issue 49, part 2: more of the paper's training, as one resumable background run across
# sessions (rules in experiments/results/long_run_plan.md, written before any score).
# The recipe is the shipped stage-1 recipe (configs/pearl-minilm.toml of the pinned tree)
# with the character channel chosen in part 1 (ARM), the paper's batch of 512 (128 in the
# recipe) and 8 epochs of today's corpus (2 in the recipe; about 4,650 steps), the
# development score logged every 250 steps (dev_every; <checkpoints>/dev.tsv) and a
# checkpoint every 100 steps. The data stages are run_char_channel.sh's (same files, same
# commands: experiments/data_stages.sh, run here when missing).
# Idempotent: the run resumes from its checkpoint with the same command.
#
#   PIN=<commit> ARM=<attention|ngram_bag|both> nohup setsid nice -n 19 \
#     experiments/run_long.sh >> logs/issue49-long.log 2>&1 &
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
PIN=${PIN:?set PIN to the commit of the recipe (see experiments/results/long_run_plan.md)}
ARM=${ARM:?set ARM to the character channel chosen in experiments/results/char_channel_plan.md}
TREE=data_out/recipe-$PIN
[ -d "$TREE/src" ] || git worktree add --detach "$TREE" "$PIN"
export PYTHONPATH="$PWD/$TREE/src" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export PEARL_DATA=${PEARL_DATA:-$(realpath ../shared/data)}
PEARL=".venv/bin/python -m pearl.cli"
ts() { date -u +%FT%TZ; }
# the data stages (experiments/data_stages.sh), with the pinned code, each skipped when
# its output exists (a bare machine rebuilds them: about 40 minutes here)
. experiments/data_stages.sh
data_stages
OUT=models/c49-long-$ARM
if [ ! -s "$OUT/modules.json" ]; then
  RESUME=""
  [ -f "$OUT.checkpoints/state.safetensors" ] && RESUME="--resume"
  echo "$(ts) train $ARM $RESUME"
  $PEARL train -c "$TREE/configs/pearl-minilm.toml" --set char_kind=$ARM \
    --set batch_size=512 --set epochs=8 --set dev_every=250 --set checkpoint_every=100 \
    -o "$OUT" $RESUME
fi
echo "$(ts) done: $OUT (development curve: $OUT/training/dev.tsv)"
