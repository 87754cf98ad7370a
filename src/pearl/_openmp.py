"""OpenMP's waiting on a machine where other work runs.

GNU OpenMP (the runtime in torch's and faiss's Linux wheels) lets a thread that waits for
the other threads of a parallel region spin up to 300,000 rounds before it sleeps. Every
small operation of a model is such a region. When another process keeps a CPU busy, the
spinning thread holds a core that the thread it waits for needs: on two CPUs beside a
busy process, pearl-minilm encoded 2,000 phrases (batches of 64) in 62.8 s, and in 1.4 s
with a spin of 1,000 rounds; alone, 0.6 s either way (``benchmarks/speed/busy_machine.py``).
"""

from __future__ import annotations

import os

__all__ = ["SPIN_ROUNDS", "short_spin"]

#: The rounds a waiting OpenMP thread spins before it sleeps (libgomp's default: 300,000).
SPIN_ROUNDS = "1000"


def short_spin() -> None:
    """Set ``GOMP_SPINCOUNT`` to :data:`SPIN_ROUNDS` unless the user chose how OpenMP
    waits (``GOMP_SPINCOUNT`` or ``OMP_WAIT_POLICY`` set). It acts on the OpenMP runtimes
    loaded after it: torch's and faiss's when ``pearl`` is imported before them; child
    processes (Dask's workers) inherit it."""
    if "GOMP_SPINCOUNT" not in os.environ and "OMP_WAIT_POLICY" not in os.environ:
        os.environ["GOMP_SPINCOUNT"] = SPIN_ROUNDS
