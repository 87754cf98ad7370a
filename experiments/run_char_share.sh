#!/usr/bin/env bash
# Issue 49: the char_share arms of experiments/results/char_share_plan.md (part 3's chosen
# recipe, word negatives at weight 1.0, with the character channel at a fixed share).
# Idempotent: each arm trains or resumes (models/c49-cs-ARM.checkpoints) and the measures
# run once every arm is saved. The code runs from a worktree pinned at PIN inside the
# ignored data_out/ (or TREE, e.g. a device copy).
#
#   PIN=<commit> nohup setsid nice -n 19 experiments/run_char_share.sh >> logs/issue49-cs.log 2>&1 &
#
# PARALLEL=1 trains the arms at once (a GPU has room for four; a 2-core CPU does not).
# ARMS (default "attention:0 attention:0.3 ngram_bag:0.3 ngram_bag:0.5"); RESULTS names
# the folder of the measures.
set -euo pipefail
cd "$(dirname "$0")/.."  # the repository root (also on a device copy, which has no .git)
PIN=${PIN:?set PIN to the commit of the recipe (see experiments/results/char_share_plan.md)}
ARMS=${ARMS:-attention:0 attention:0.3 ngram_bag:0.3 ngram_bag:0.5}
STEPS=${STEPS:-1500}  # the plan's; smaller only to test the script
TREE=${TREE:-data_out/recipe-$PIN}
[ -d "$TREE/src" ] || git worktree add --detach "$TREE" "$PIN"
export PYTHONPATH="$PWD/$TREE/src${PYTHONPATH:+:$PYTHONPATH}" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
PY=${PY:-.venv/bin/python}
PEARL="$PY -m pearl.cli"
RESULTS=${RESULTS:-experiments/results}
ts() { date -u +%FT%TZ; }
mkdir -p logs
for f in corpus/corpus.tsv augmented.tsv hard_negatives.tsv word_negatives.tsv; do
  [ -s "data_out/$f" ] || { echo "missing data_out/$f: see run_word_negatives.sh" >&2; exit 2; }
done
model_of() { echo "models/c49-cs-${1%%:*}-${1##*:}"; }
train_arm() {  # one arm: KIND:SHARE
  local KIND=${1%%:*} SHARE=${1##*:} OUT CFG RESUME=""
  OUT=$(model_of "$1")
  CFG=data_out/c49-cs-$KIND-$SHARE.toml
  [ -s "$OUT/modules.json" ] && return 0
  cp "$TREE/configs/pearl-minilm.toml" "$CFG"
  printf '\n[[objective]]\nloss = "word_negatives"\nnegatives = "data_out/word_negatives.tsv"\nweight = 1.0\ntemperature = 0.07\n' >> "$CFG"
  [ -f "$OUT.checkpoints/state.safetensors" ] && RESUME="--resume"
  echo "$(ts) train $KIND share $SHARE $RESUME"
  $PEARL train -c "$CFG" --set char_kind="$KIND" --set char_share="$SHARE" \
    --set max_steps="$STEPS" ${EXTRA:-} -o "$OUT" $RESUME
}
. experiments/arm_runs.sh
train_arms $ARMS
measure_arms char_share
