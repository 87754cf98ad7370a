#!/usr/bin/env bash
# Second call on the device (carry .gpu1 .gpu2): issue 49's arms at once (RUN: part 3's
# experiments/run_word_negatives.sh by default, or run_char_share.sh; PARALLEL=1, the pinned
# source in .gpu1/tree), then their measures; the records and the training logs come back
# (the models stay there).
set -u
T0=$(date +%s)
export PY=${PY:-python3} SITE=${SITE:-/tmp/site}
OUTDIR=${OUT:-/tmp/out}; mkdir -p "$OUTDIR/results"
bash experiments/device/setup.sh || exit 3
export PYTHONPATH=$PWD/.gpu1/tree/lab:$SITE PYTHONUNBUFFERED=1
export TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=${TF32:-1}
PIN=${PIN:-9ea0b26} TREE=.gpu1/tree PARALLEL=1 RESULTS="$OUTDIR/results" \
  bash "experiments/${RUN:-run_word_negatives.sh}"
RC=$?
for f in logs/c49-*.log; do tr '\r' '\n' < "$f" | grep -v "^$" | tail -4; done
tar czf "$OUTDIR/logs.tgz" logs models/c49-*/training 2>/dev/null
ls -la "$OUTDIR" "$OUTDIR/results"
echo "rc $RC, total $(($(date +%s) - T0)) s"
