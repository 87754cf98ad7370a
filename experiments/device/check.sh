#!/usr/bin/env bash
set -eu
PY=${PY:-python3}; export SITE=${SITE:-/tmp/site}
bash .gpu1/setup.sh
nvidia-smi -L || true
export PYTHONPATH=$PWD/.gpu1/src:$SITE HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
$PY - <<'P'
import torch, transformers, sentence_transformers, tokenizers, numpy
print("torch", torch.__version__, torch.cuda.is_available(), "tf", transformers.__version__, "st", sentence_transformers.__version__, "tok", tokenizers.__version__, "np", numpy.__version__)
import pearl.cli, pearl.training.trainer
from pearl.evaluation.dev_proxy import dev_tasks
print({k: len(v[0]) for k, v in dev_tasks().items()})
import pearl; print(pearl.__file__)
P
