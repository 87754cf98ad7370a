# Sourced by issue 49's arm scripts (run_word_negatives.sh, run_char_share.sh): their arms
# trained one after the other or at once, and part 3's measures of them. The caller defines
# `train_arm ARM` (trains or resumes one arm), `model_of ARM` (its model folder) and `ts`,
# and sets PY, TREE (the pinned tree, whose scripts measure) and RESULTS.

# train_arms ARM...: every arm trained (PARALLEL=1: at once, each logging to
# logs/<its model folder's name>.log); MODELS is set to their folders; fails when one is
# not saved.
train_arms() {
  local pids="" a m p
  MODELS=""
  for a in "$@"; do
    m=$(model_of "$a")
    MODELS="$MODELS${MODELS:+ }$m"
    if [ "${PARALLEL:-0}" = 1 ]; then
      train_arm "$a" > "logs/$(basename "$m").log" 2>&1 &
      pids="$pids $!"
    else
      train_arm "$a"
    fi
  done
  for p in $pids; do wait "$p"; done
  for m in $MODELS; do [ -s "$m/modules.json" ] || { echo "$m not saved" >&2; return 1; }; done
}

# measure_arms STEM: Figure 1 and the name variants, the development proxy and the types of
# $MODELS, with the pinned tree's scripts; records STEM_{figure1,dev,types}.* in $RESULTS.
measure_arms() {
  local stem=$1 own="$TREE/experiments/results"
  echo "$(ts) figure 1 and name variants"
  $PY "$TREE/experiments/figure1.py" --names 300 --distractors 20 --models "${MODELS// /,}" \
    --name "${stem}_figure1"
  echo "$(ts) dev proxy"
  $PY "$TREE/experiments/dev_proxy.py" $MODELS -o "$RESULTS/${stem}_dev"
  echo "$(ts) types"
  $PY "$TREE/experiments/dev_types.py" $MODELS --name "${stem}_types"
  if [ "$own" != "$RESULTS" ]; then
    cp "$own/${stem}_figure1."* "$own/${stem}_types."* "$RESULTS/"
  fi
  echo "$(ts) done"
}
