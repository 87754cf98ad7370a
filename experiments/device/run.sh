#!/usr/bin/env bash
# Second call on the device (carry .gpu1 .gpu2): the issue-49 long run (ARM=attention,
# the pinned source in .gpu1/tree) from scratch, stopped at STOP_AT seconds and finished
# at the step reached (max_steps is extendable: batches and the learning-rate schedule
# depend on the step alone); the model comes back in pieces of at most 15 MiB.
set -u
T0=$(date +%s)
PY=${PY:-python3}; export SITE=${SITE:-/tmp/site}
STOP_AT=${STOP_AT:-525}
OUTDIR=${OUT:-/tmp/out}; mkdir -p "$OUTDIR"
bash experiments/device/setup.sh || exit 3
export PYTHONPATH=$PWD/.gpu1/tree/src:$SITE HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
export TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=${TF32:-1}
M=${MODEL:-models/c49-gpu-attention}
ARGS="-c .gpu1/tree/configs/pearl-minilm.toml --set char_kind=attention --set batch_size=512 --set epochs=8 --set dev_every=250 --set checkpoint_every=500 ${EXTRA:-} -o $M"
setsid nohup $PY -m pearl.cli train $ARGS > train.log 2>&1 &
PID=$!
while kill -0 $PID 2>/dev/null && [ $(($(date +%s) - T0)) -lt "$STOP_AT" ]; do sleep 3; done
if kill -0 $PID 2>/dev/null; then
  kill -INT $PID
  for _ in $(seq 60); do kill -0 $PID 2>/dev/null || break; sleep 1; done
  N=$(grep -o "interrupted at step [0-9]*" train.log | tail -1 | grep -o "[0-9]*$")
  echo "interrupted at step $N after $(($(date +%s) - T0)) s"
  [ -n "$N" ] && $PY -m pearl.cli train $ARGS --set max_steps="$N" --resume > finish.log 2>&1
  tail -c 1500 finish.log
fi
tr '\r' '\n' < train.log | grep -v "^$" | tail -25
cat "$M.checkpoints/dev.tsv"
if [ -s "$M/modules.json" ]; then
  cp "$M.checkpoints/dev.tsv" train.log "$M/" 2>/dev/null
  tar czf "$OUTDIR/meta.tgz" --exclude=model.safetensors "$M"
  split -b 15M "$M/model.safetensors" "$OUTDIR/model.safetensors.part-"
  for f in $(cd "$M" && find . -name model.safetensors -path './*/*'); do
    cp "$M/$f" "$OUTDIR/$(dirname "$f" | tr -d './').safetensors"
  done
  ls -la "$OUTDIR"
else
  tar czf "$OUTDIR/meta.tgz" train.log "$M.checkpoints/dev.tsv" finish.log 2>/dev/null
fi
echo "total $(($(date +%s) - T0)) s"
