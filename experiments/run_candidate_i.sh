#!/usr/bin/env bash
# Issue 49, candidates (i) and (ig) (experiments/results/long_run_plan.md, fixed before any
# score): the long run's first stage re-finished with the transformer averaged only
# (average_scope = "transformer"; from a copy of the run's checkpoint, whose own folders
# are never written), the same alias stage as candidate (h), then (i) behind (g)'s surface
# splitter; each scored by evaluate_candidate.sh. Every stage's code pinned; idempotent and
# resumable:
#
#   PEARL_DATA=... nohup setsid nice -n 19 experiments/run_candidate_i.sh >> logs/issue49-i.log 2>&1 &
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
PIN=9ea0b26      # the long run's recipe (its configuration file)
AVG_PIN=da7d1b5  # the commit that adds average_scope: the re-finish and the alias stage
SPLIT_PIN=bd9ad83
for P in $PIN $AVG_PIN $SPLIT_PIN; do
  [ -d "data_out/recipe-$P/src" ] || git worktree add --detach "data_out/recipe-$P" "$P"
done
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 GOMP_SPINCOUNT=1000
export PEARL_DATA=${PEARL_DATA:-$(realpath ../shared/data)}
ts() { date -u +%FT%TZ; }
pearl_at() { local pin=$1; shift; PYTHONPATH="$PWD/data_out/recipe-$pin/src" .venv/bin/python -m pearl.cli "$@"; }
RUN=models/c49-long-attention STAGE1=models/c49i-stage1 OUT=models/c49i
[ -s "$RUN/modules.json" ] || { echo "$RUN missing: run run_long.sh"; exit 1; }
[ -s data_out/aliases-c49h.csv ] || { echo "data_out/aliases-c49h.csv missing: run run_long_aliases.sh"; exit 1; }
if [ ! -s "$STAGE1/modules.json" ]; then
  if [ ! -s "$STAGE1.checkpoints/state.safetensors" ]; then
    rm -rf "$STAGE1.checkpoints.tmp"
    cp -r "$RUN.checkpoints" "$STAGE1.checkpoints.tmp"
    mv "$STAGE1.checkpoints.tmp" "$STAGE1.checkpoints"
  fi
  echo "$(ts) stage 1 re-finished with the transformer averaged only"
  pearl_at $AVG_PIN train -c "data_out/recipe-$PIN/configs/pearl-minilm.toml" --set char_kind=attention \
    --set batch_size=512 --set epochs=8 --set dev_every=250 --set checkpoint_every=100 \
    --set average_scope=transformer -o "$STAGE1" --resume
fi
if [ ! -s "$OUT/modules.json" ]; then
  RESUME=""
  [ -d "$OUT.checkpoints" ] && RESUME="--resume"
  echo "$(ts) alias stage $RESUME"
  # at AVG_PIN: 9ea0b26 cannot open a folder saved by later code (CharFusion's config has
  # char_share since d225bbb); the fine-tuning code between them changes no weights
  pearl_at $AVG_PIN finetune data_out/aliases-c49h.csv -m "$STAGE1" -o "$OUT" \
    --epochs 3 --average-weight 0.5 --save-dtype float16 -q $RESUME
fi
echo "$(ts) evaluate (i)"
[ -s experiments/results/c49i/results.md ] && [ -s results/benchmarks/fuzzy_join_autofj_c49i.md ] ||
  experiments/evaluate_candidate.sh "$OUT" c49i
[ -s models/c49ig/modules.json ] || pearl_at $SPLIT_PIN add-split -m "$OUT" -o models/c49ig
echo "$(ts) evaluate (ig)"
experiments/evaluate_candidate.sh models/c49ig c49ig
echo "$(ts) done"
