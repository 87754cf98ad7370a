"""The precision a transformer computes in: bfloat16 matrix products where the CPU has them.

CPUs with native bfloat16 dot products (x86 ``avx512_bf16`` or ``amx_bf16``: AMD Zen 4 and
later, Intel Cooper Lake, Sapphire Rapids and later) multiply bfloat16 matrices about twice
as fast as float32 ones. Under ``torch.autocast`` the weights stay float32 and each matrix
product runs in bfloat16: pearl-minilm then encodes short phrases 1.85-2.2x faster on this
project's machine, with a cosine of at least 0.99994 to its float32 vectors
(``benchmarks/speed/compute_dtype.py``). On a CPU without them bfloat16 is emulated and
slower, so ``"auto"`` (the default of :class:`~pearl.PhraseEncoder`) picks it only where the
CPU flags say it is native; training never uses it.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator
from pathlib import Path

from pearl._validation import check_choice

__all__ = ["COMPUTE_DTYPES", "ENV", "native_bf16", "resolve_compute_dtype", "compute_context"]

#: the values of ``PhraseEncoder(compute_dtype=...)``
COMPUTE_DTYPES = ("auto", "float32", "bfloat16")
#: the environment variable that decides ``"auto"`` when set
ENV = "PEARL_COMPUTE_DTYPE"
#: CPU flags (Linux ``/proc/cpuinfo``) of native bfloat16 dot products
_BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})


@functools.cache
def native_bf16(cpuinfo: str = "/proc/cpuinfo") -> bool:
    """Whether this CPU computes bfloat16 dot products natively (False where unknown)."""
    try:
        text = Path(cpuinfo).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    for line in text.splitlines():
        if line.startswith("flags"):
            return bool(_BF16_FLAGS & set(line.partition(":")[2].split()))
    return False


def resolve_compute_dtype(compute_dtype: str, device: str | None) -> str:
    """``"float32"`` or ``"bfloat16"``: ``"auto"`` is ``$PEARL_COMPUTE_DTYPE`` when set
    (one of :data:`COMPUTE_DTYPES`: a machine-wide choice, e.g. float32 everywhere for
    bit-reproducible vectors), else bfloat16 on a CPU with native bfloat16
    (:func:`native_bf16`) and float32 elsewhere.

    Raises
    ------
    ValueError
        For another value than :data:`COMPUTE_DTYPES` (in the argument or the variable).
    """
    compute_dtype = check_choice(compute_dtype, "compute_dtype", COMPUTE_DTYPES)
    if compute_dtype == "auto":
        compute_dtype = check_choice(
            os.environ.get(ENV, "auto") or "auto", f"${ENV}", COMPUTE_DTYPES
        )
    if compute_dtype != "auto":
        return compute_dtype
    cpu = (device or "cpu").split(":")[0] == "cpu"
    return "bfloat16" if cpu and native_bf16() else "float32"


@contextlib.contextmanager
def compute_context(compute_dtype: str, device: str | None) -> Iterator[None]:
    """``torch.autocast`` to bfloat16 on ``device`` for ``"bfloat16"``, nothing else for
    ``"float32"`` (a resolved value of :func:`resolve_compute_dtype`)."""
    if compute_dtype != "bfloat16":
        yield
        return
    import torch

    with torch.autocast((device or "cpu").split(":")[0], dtype=torch.bfloat16):
        yield
