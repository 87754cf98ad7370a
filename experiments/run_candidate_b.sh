#!/usr/bin/env bash
# Issue 32, candidate (b): candidate (a) (models/c32a, from run_candidate_a.sh) + v2e's alias
# stage. Recipe fixed before any score: groups as `pearl aliases` builds them (a replay sample
# of augment's pairs; the development names and every AutoFJ title excluded), `pearl finetune`'s
# defaults with 3 epochs (the epoch chosen on held-out groups) and the saved weights averaged
# 0.5 with the start, as for v2e. The code runs from the same pinned worktree as (a); the
# scoring (experiments/evaluate_candidate.sh) uses the current code. Idempotent:
#
#   nohup nice -n 5 experiments/run_candidate_b.sh >> logs/issue32-b.log 2>&1 &
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
PIN=aa3309b
TREE=data_out/recipe-$PIN
[ -d "$TREE/src" ] || git worktree add --detach "$TREE" "$PIN"
[ -s models/c32a/model.safetensors ] || { echo "models/c32a missing: run run_candidate_a.sh"; exit 1; }
ts() { date -u +%FT%TZ; }
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
[ -s data_out/dev_names.txt ] || .venv/bin/python experiments/dev_proxy.py --names data_out/dev_names.txt
[ -s data_out/autofj_titles.txt ] || .venv/bin/python benchmarks/quality/fuzzy_join_autofj.py --titles data_out/autofj_titles.txt
PEARL=".venv/bin/python -m pearl.cli"
if [ ! -s data_out/aliases-c32b.csv ]; then
  echo "$(ts) aliases"
  PYTHONPATH="$PWD/$TREE/src" $PEARL aliases data_out/corpus/corpus.tsv -o data_out/aliases-c32b.csv \
    --replay data_out/augmented.tsv --exclude data_out/dev_names.txt --exclude data_out/autofj_titles.txt -q
fi
if [ ! -s models/c32b/model.safetensors ]; then
  echo "$(ts) finetune"
  PYTHONPATH="$PWD/$TREE/src" $PEARL finetune data_out/aliases-c32b.csv -m models/c32a -o models/c32b \
    --epochs 3 --average-weight 0.5 -q
fi
echo "$(ts) evaluate"
experiments/evaluate_candidate.sh models/c32b c32b
echo "$(ts) done"
