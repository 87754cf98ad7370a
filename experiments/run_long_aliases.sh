#!/usr/bin/env bash
# Issue 49, candidate (h) (experiments/results/long_run_plan.md, fixed before any score): the
# long run's model (models/c49-long-attention, from run_long.sh) + the shipped alias stage
# as docs/training.md gives it, with the run's pinned code; then evaluate_candidate.sh
# (the current code) for docs/models.md's rules. Idempotent and resumable (pearl finetune
# --resume):
#
#   PEARL_DATA=... nohup setsid nice -n 19 experiments/run_long_aliases.sh >> logs/issue49-h.log 2>&1 &
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
PIN=9ea0b26
TREE=data_out/recipe-$PIN
START=models/c49-long-attention OUT=models/c49h
[ -d "$TREE/src" ] || git worktree add --detach "$TREE" "$PIN"
[ -s "$START/modules.json" ] || { echo "$START missing: run run_long.sh"; exit 1; }
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 GOMP_SPINCOUNT=1000
export PEARL_DATA=${PEARL_DATA:-$(realpath ../shared/data)}
ts() { date -u +%FT%TZ; }
PEARL() { PYTHONPATH="$PWD/$TREE/src" .venv/bin/python -m pearl.cli "$@"; }
[ -s data_out/dev_names.txt ] || PEARL benchmark-strings --dev-proxy -o data_out/dev_names.txt
[ -s data_out/autofj_titles.txt ] || PEARL benchmark-strings -o data_out/autofj_titles.txt
if [ ! -s data_out/aliases-c49h.csv ]; then
  echo "$(ts) aliases"
  PEARL aliases data_out/corpus/corpus.tsv -o data_out/aliases-c49h.csv --replay data_out/augmented.tsv \
    --exclude data_out/dev_names.txt --exclude data_out/autofj_titles.txt -q
fi
if [ ! -s "$OUT/modules.json" ]; then
  RESUME=""
  [ -d "$OUT.checkpoints" ] && RESUME="--resume"
  echo "$(ts) finetune $RESUME"
  PEARL finetune data_out/aliases-c49h.csv -m "$START" -o "$OUT" \
    --epochs 3 --average-weight 0.5 --save-dtype float16 -q $RESUME
fi
echo "$(ts) evaluate (h)"
[ -s experiments/results/c49h/results.md ] && [ -s results/benchmarks/fuzzy_join_autofj_c49h.md ] ||
  experiments/evaluate_candidate.sh "$OUT" c49h
# candidate (hg): (h) behind candidate (g)'s surface splitter (`pearl add-split`, no
# training), with the splitter's code pinned as well (the fixed splitter of c4cad26)
SPLIT_PIN=bd9ad83
SPLIT_TREE=data_out/recipe-$SPLIT_PIN
[ -d "$SPLIT_TREE/src" ] || git worktree add --detach "$SPLIT_TREE" "$SPLIT_PIN"
[ -s models/c49hg/modules.json ] ||
  PYTHONPATH="$PWD/$SPLIT_TREE/src" .venv/bin/python -m pearl.cli add-split -m "$OUT" -o models/c49hg
echo "$(ts) evaluate (hg)"
experiments/evaluate_candidate.sh models/c49hg c49hg
echo "$(ts) done"
