#!/usr/bin/env bash
# Issue 49, part 1: the character-channel arms of experiments/results/char_channel_plan.md,
# across sessions. Idempotent: each data stage is skipped when its output exists, and each
# arm resumes from its checkpoints (models/c49-ARM.checkpoints). The code runs from a
# worktree pinned at commit PIN inside the ignored data_out/, so refactoring main never
# changes the recipe:
#
#   nohup setsid nice -n 19 experiments/run_char_channel.sh >> logs/issue49-arms.log 2>&1 &
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
PIN=${PIN:?set PIN to the commit of the recipe (see experiments/results/README.md)}
STEPS=1500
TREE=data_out/recipe-$PIN
[ -d "$TREE/src" ] || git worktree add --detach "$TREE" "$PIN"
export PYTHONPATH="$PWD/$TREE/src" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
PY=.venv/bin/python
PEARL="$PY -m pearl.cli"
ts() { date -u +%FT%TZ; }
. experiments/data_stages.sh
data_stages
MODELS=""
for ARM in ngram_bag attention both; do
  OUT=models/c49-$ARM
  MODELS="$MODELS${MODELS:+,}$OUT"
  [ -s "$OUT/modules.json" ] && continue
  RESUME=""
  [ -f "$OUT.checkpoints/state.safetensors" ] && RESUME="--resume"
  echo "$(ts) train $ARM $RESUME"
  $PEARL train -c "$TREE/configs/pearl-minilm.toml" --set char_kind=$ARM \
    --set max_steps=$STEPS -o "$OUT" $RESUME
done
echo "$(ts) figure 1 and name variants"
$PY "$TREE/experiments/figure1.py" --models "$MODELS,pearl-minilm+pearl-static" \
  --name char_channel_figure1
cp "$TREE/experiments/results/char_channel_figure1."* experiments/results/
echo "$(ts) dev proxy"
$PY "$TREE/experiments/dev_proxy.py" ${MODELS//,/ } pearl-minilm+pearl-static \
  -o experiments/results/char_channel_dev
echo "$(ts) done"
