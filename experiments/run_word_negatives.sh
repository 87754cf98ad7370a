#!/usr/bin/env bash
# Issue 49, part 3: the word-negatives arms of experiments/results/word_negatives_plan.md.
# Idempotent: the negatives are mined when missing, each arm trains or resumes
# (models/c49-wn-W.checkpoints) and the measures run once every arm is saved. The code
# runs from a worktree pinned at PIN inside the ignored data_out/.
#
#   PIN=9ea0b26 nohup setsid nice -n 19 experiments/run_word_negatives.sh >> logs/issue49-wn.log 2>&1 &
#
# PARALLEL=1 trains the arms at once (a GPU has room for four; a 2-core CPU does not).
# WEIGHTS (default "0 0.1 0.3 1.0": weight 0 retrained at the same pin and on the same
# hardware as the others; see the plan's log). RESULTS names the folder of the measures.
set -euo pipefail
cd "$(dirname "$0")/.."  # the repository root (also on a device copy, which has no .git)
PIN=${PIN:?set PIN to the commit of the recipe (see experiments/results/word_negatives_plan.md)}
WEIGHTS=${WEIGHTS:-0 0.1 0.3 1.0}
STEPS=${STEPS:-1500}  # the plan's; smaller only to test the script
TREE=${TREE:-data_out/recipe-$PIN}
[ -d "$TREE/src" ] || git worktree add --detach "$TREE" "$PIN"
export PYTHONPATH="$PWD/$TREE/src${PYTHONPATH:+:$PYTHONPATH}" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
PY=${PY:-.venv/bin/python}
PEARL="$PY -m pearl.cli"
RESULTS=${RESULTS:-experiments/results}
ts() { date -u +%FT%TZ; }
mkdir -p logs
for f in data_out/corpus/corpus.tsv data_out/augmented.tsv data_out/hard_negatives.tsv; do
  [ -s "$f" ] || { echo "missing $f: run experiments/run_char_channel.sh's data stages" >&2; exit 2; }
done
if [ ! -s data_out/word_negatives.tsv ]; then
  echo "$(ts) mine --shared-words"
  [ -s data_out/dev_proxy_strings.txt ] ||
    $PEARL benchmark-strings --dev-proxy -o data_out/dev_proxy_strings.txt
  $PEARL mine data_out/corpus/corpus.tsv --shared-words -k 2 \
    --exclude data_out/dev_proxy_strings.txt --exclude data_out/autofj_titles.txt \
    -o data_out/word_negatives.tsv
fi
model_of() { echo "models/c49-wn-$1"; }
train_arm() {  # one arm: the part-1 recipe (channel A) + the word-negatives term at weight $1
  local W=$1 OUT CFG=data_out/c49-wn-$1.toml RESUME=""
  OUT=$(model_of "$W")
  [ -s "$OUT/modules.json" ] && return 0
  cp "$TREE/configs/pearl-minilm.toml" "$CFG"
  if [ "$W" != 0 ]; then
    printf '\n[[objective]]\nloss = "word_negatives"\nnegatives = "data_out/word_negatives.tsv"\nweight = %s\ntemperature = 0.07\n' "$W" >> "$CFG"
  fi
  [ -f "$OUT.checkpoints/state.safetensors" ] && RESUME="--resume"
  echo "$(ts) train weight $W $RESUME"
  $PEARL train -c "$CFG" --set char_kind=attention --set max_steps=$STEPS ${EXTRA:-} -o "$OUT" $RESUME
}
. experiments/arm_runs.sh
train_arms $WEIGHTS
measure_arms word_negatives
