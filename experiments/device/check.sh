#!/usr/bin/env bash
# First call on the device (carry .gpu0 .gpu1): set-up, versions, and that the pinned
# pearl and its development proxy import there.
set -eu
PY=${PY:-python3}; export SITE=${SITE:-/tmp/site}
bash experiments/device/setup.sh
nvidia-smi -L || true
export PYTHONPATH=$PWD/.gpu1/tree/src:$PWD/.gpu1/tree/lab:$SITE HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
$PY - <<'P'
import numpy, sentence_transformers, tokenizers, torch, transformers
print("torch", torch.__version__, torch.cuda.is_available(), "transformers", transformers.__version__,
      "sentence-transformers", sentence_transformers.__version__, "numpy", numpy.__version__)
import pearl, pearl.cli, pearl.training.trainer, pearl_lab.dev
from pearl.evaluation.dev_proxy import dev_tasks
print(pearl.__file__, {k: len(v[0]) for k, v in dev_tasks().items()})
P
