"""Memory of ``cluster`` on 1,000,000 distinct values at the default model's width (issue 53).

A stand-in encoder gives 512-d vectors (pearl-minilm's 384 + 128) in seconds instead of
the transformer's hour, with torch and pearl-minilm loaded as in a real run, so the
memory path (encoding, normalising, the neighbour graph) can be checked under a limit:

    bash -c 'ulimit -v 8000000; python experiments/dedup_memory_check.py'

The values are benchmarks/speed/dedup_scale.py's (corpus phrases and their misspellings).
"""

import resource
import time

import numpy as np
from pearl_lab.typos import make_values

import pearl

pearl.PhraseEncoder("pearl-minilm").encode(["warm"])  # torch + model in memory


class Wide:
    def encode(self, texts, batch_size=256, show_progress_bar=False, **kw):
        out = np.empty((len(texts), 512), np.float32)
        for s in range(0, len(texts), 65536):
            chunk = texts[s : s + 65536]
            h = np.array([hash(t) % 1000003 for t in chunk], dtype=np.float64)
            rng = np.random.default_rng(0)
            base = rng.standard_normal((1, 512)).astype(np.float32)
            out[s : s + len(chunk)] = base + np.sin(np.outer(h, np.arange(1, 513) * 1e-3)).astype(
                np.float32
            )
        return out


values, truth = make_values("data_out/corpus/corpus.tsv", 1_000_000)
t = time.time()
labels = pearl.cluster(values, model=Wide(), matcher="cosine", show_progress_bar=False)
print(
    "ok",
    round(time.time() - t),
    "s, clusters",
    labels.max() + 1,
    "peak MB",
    resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
)
