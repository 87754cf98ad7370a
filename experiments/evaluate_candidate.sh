#!/usr/bin/env bash
# Issue 32: a candidate model's record for the default rules (docs/models.md), from its folder:
# the five-probe `pearl eval` of all nine tasks, its own combined-matcher weights (the shipped
# weights' recipe, `pearl matcher-weights`), and AutoFJ with the combined matcher.
#
#   experiments/evaluate_candidate.sh models/c32a c32a
set -euo pipefail
MODEL=$1 NAME=$2
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
PY=.venv/bin/python
ts() { date -u +%FT%TZ; }
[ -s data_out/autofj_titles.txt ] || $PY -m pearl.cli benchmark-strings -o data_out/autofj_titles.txt
[ -s data_out/aliases.csv ] || $PY -m pearl.cli aliases data_out/corpus/corpus.tsv -o data_out/aliases.csv \
  --exclude data_out/autofj_titles.txt
echo "$(ts) eval"
$PY -m pearl.cli eval -m "$MODEL" -o "experiments/results/$NAME" -q
echo "$(ts) matcher-weights"
[ -s "data_out/$NAME-weights.json" ] || $PY -m pearl.cli matcher-weights data_out/corpus/corpus.tsv \
  -m "$MODEL" -o "data_out/$NAME-weights.json" --negatives data_out/hard_negatives.tsv \
  --aliases data_out/aliases.csv -q
echo "$(ts) autofj combined"
$PY benchmarks/quality/fuzzy_join_autofj.py --methods "combined:$MODEL" \
  --weights "data_out/$NAME-weights.json" --name "fuzzy_join_autofj_$NAME"
echo "$(ts) done"
