#!/usr/bin/env bash
# Issue 32, candidate (a): the v1 recipe + lever 4 at full scale, across sessions.
# Idempotent: each data stage is skipped when its output exists, and training resumes from
# its checkpoints (models/c32a.checkpoints). The code runs from a worktree pinned at
# commit PIN inside the ignored data_out/, so refactoring main never changes the recipe:
#
#   nohup setsid nice -n 19 experiments/run_candidate_a.sh >> logs/issue32-a.log 2>&1 &
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
PIN=aa3309b
TREE=data_out/recipe-$PIN
[ -d "$TREE/src" ] || git worktree add --detach "$TREE" "$PIN"
export PYTHONPATH="$PWD/$TREE/src" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
PEARL=".venv/bin/python -m pearl.cli"
ts() { date -u +%FT%TZ; }
. experiments/data_stages.sh
data_stages
RESUME=""
[ -f models/c32a.checkpoints/state.safetensors ] && RESUME="--resume"
echo "$(ts) train $RESUME"
$PEARL train -c "$TREE/configs/pearl-minilm.toml" --set type_contrastive_weight=0.2 \
  --set type_batch_share=0.25 -o models/c32a $RESUME
echo "$(ts) done"
