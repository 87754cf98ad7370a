#!/usr/bin/env bash
# Issue 51: do `pearl train`, `pearl train-static` and `pearl finetune` still give what they
# gave before the training side was restructured (one step loop, one configuration in
# sections, finetune's objectives as loss terms)? Each command runs a short recipe twice:
# from a worktree of OLD (the commit before issue 51's first change) and of NEW, on the
# same data files and machine; the weights are compared byte for byte and, where they
# differ, both models are scored on quick tasks (pearl eval).
#
#   OLD=2c5ad1b~1 NEW=HEAD experiments/reproduce_short.sh   # -> experiments/results/reproduce_short-NEW.md
#   CMDS="static" NEW=<commit> ...   # only some of the three (train static finetune)
#
# Where the weights differ, score both on quick tasks:
#   pearl eval -m models/repro51/static-OLD -m models/repro51/static-NEW \
#     -t ppdb_filtered,turney,bird,conll2003,bc5cdr -o experiments/results/reproduce_short
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
OLD=$(git rev-parse --short "${OLD:-2c5ad1b~1}")
NEW=$(git rev-parse --short "${NEW:-HEAD}")
CMDS=${CMDS:-train static finetune}
has() { [[ " $CMDS " == *" $1 "* ]]; }
OUT=models/repro51
RES=experiments/results/reproduce_short
mkdir -p "$OUT" "$RES"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
PY=.venv/bin/python
for rev in "$OLD" "$NEW"; do
  tree=data_out/recipe-$rev
  [ -d "$tree/src" ] || git worktree add --detach "$tree" "$rev"
  pearl() { PYTHONPATH="$PWD/$tree/src" $PY -m pearl.cli "$@"; }
  # pearl-minilm's recipe, short: 30 steps of 32 pairs after 20 character-pretraining steps
  ! has train || [ -s "$OUT/train-$rev/modules.json" ] || pearl train -c "$tree/configs/pearl-minilm.toml" -q \
    --set max_steps=30 --set batch_size=32 --set char_pretrain_steps=20 \
    --set checkpoint_every=1000 -o "$OUT/train-$rev"
  # pearl-static's recipe, short: 20 steps of 256 pairs, without the teacher (its file is
  # an hour of encoding); pearl-minilm's augmented views and negatives
  ! has static || [ -s "$OUT/static-$rev/modules.json" ] || pearl train-static -c "$tree/configs/pearl-static.toml" -q \
    --set max_steps=20 --set batch_size=256 --set augmented=data_out/augmented.tsv \
    --set negatives=data_out/hard_negatives.tsv --set distill_weight=0 --set teacher= \
    --set checkpoint_every=1000 -o "$OUT/static-$rev"
  # the alias stage, short: 40 batches of 64 alias-group strings from pearl-minilm
  ! has finetune || [ -s "$OUT/finetune-$rev/modules.json" ] || pearl finetune data_out/aliases.csv -m pearl-minilm \
    -o "$OUT/finetune-$rev" --max-steps 40 --epochs 1 --average-weight 0.5 -q
done
{
  echo "# Short recipes before and after issue 51's restructuring"
  echo
  echo "\`OLD=$OLD NEW=$NEW CMDS=\"$CMDS\" experiments/reproduce_short.sh\`"
  echo
  echo "| command | weights of $OLD and $NEW |"
  echo "|---|---|"
  for cmd in $CMDS; do
    a=$(cd "$OUT/$cmd-$OLD" && find . -name '*.safetensors' | sort | xargs sha256sum | sha256sum | cut -c1-16)
    b=$(cd "$OUT/$cmd-$NEW" && find . -name '*.safetensors' | sort | xargs sha256sum | sha256sum | cut -c1-16)
    if [ "$a" = "$b" ]; then echo "| $cmd | identical ($a) |"; else echo "| $cmd | differ ($a / $b) |"; fi
  done
} > "$RES-$NEW.md"
cat "$RES-$NEW.md"
