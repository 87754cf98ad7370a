"""The precision a transformer computes in: float32 by default, bfloat16 when asked.

CPUs with native bfloat16 dot products (x86 ``avx512_bf16`` or ``amx_bf16``: AMD Zen 4 and
later, Intel Cooper Lake, Sapphire Rapids and later) multiply bfloat16 matrices about twice
as fast as float32 ones. Under ``torch.autocast`` the weights stay float32 and each matrix
product runs in bfloat16 (a short batch's attention with plain products,
:func:`attention_for`): pearl-minilm then encodes short phrases 1.9-2.2x faster on this
project's machine, with a cosine of at least 0.99995 to its float32 vectors
(``benchmarks/speed/compute_dtype.py``). But a bfloat16 vector depends on the batch it was
computed in (``encode(batch_size=2)`` and ``batch_size=64`` differ beyond 1e-5), and a
join's decisions near its threshold move with it (4 of 3,000 rows of a company join). So
``"auto"``, the default of :class:`~pearl.PhraseEncoder` and of every table tool, is
float32: the same vectors on every machine and in every batch. ``"fast"`` asks for
bfloat16 where the CPU flags say it is native (float32 elsewhere: emulated bfloat16 is
slower), ``"bfloat16"`` for bfloat16 anywhere; training never uses it.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pearl._validation import check_choice

__all__ = [
    "COMPUTE_DTYPES",
    "ENV",
    "attention_for",
    "compute_context",
    "native_bf16",
    "resolve_compute_dtype",
]

#: the values of ``PhraseEncoder(compute_dtype=...)``
COMPUTE_DTYPES = ("auto", "float32", "bfloat16", "fast")
#: the environment variable that decides ``"auto"`` when set
ENV = "PEARL_COMPUTE_DTYPE"
#: CPU flags (Linux ``/proc/cpuinfo``) of native bfloat16 dot products
_BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})
#: batches of fewer tokens a text than this compute attention with plain products in
#: bfloat16 on a CPU (:func:`attention_for`)
PLAIN_ATTENTION_TOKENS = 32


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
    """``"float32"`` or ``"bfloat16"``.

    ``"auto"`` and ``"fast"`` follow ``$PEARL_COMPUTE_DTYPE`` when it is set (one of
    :data:`COMPUTE_DTYPES`: a machine-wide choice); else ``"auto"`` is float32 (exact: the
    same vectors in any batch) and ``"fast"`` is bfloat16 on a CPU with native bfloat16
    (:func:`native_bf16`), float32 elsewhere. ``"float32"`` and ``"bfloat16"`` are what
    they say, whatever the variable.

    Raises
    ------
    ValueError
        For another value than :data:`COMPUTE_DTYPES` (in the argument or the variable).
    """
    compute_dtype = check_choice(compute_dtype, "compute_dtype", COMPUTE_DTYPES)
    if compute_dtype in ("auto", "fast"):
        chosen = os.environ.get(ENV, "") or compute_dtype
        compute_dtype = check_choice(chosen, f"${ENV}", COMPUTE_DTYPES)
    if compute_dtype == "auto":
        return "float32"
    if compute_dtype == "fast":
        return "bfloat16" if _device_kind(device) == "cpu" and native_bf16() else "float32"
    return compute_dtype


def _device_kind(device: str | None) -> str:
    """``"cpu"``, ``"cuda"``...: a torch device string without its index."""
    return (device or "cpu").split(":")[0]


@contextlib.contextmanager
def compute_context(compute_dtype: str, device: str | None) -> Iterator[None]:
    """``torch.autocast`` to bfloat16 on ``device`` for ``"bfloat16"``, nothing else for
    ``"float32"`` (a resolved value of :func:`resolve_compute_dtype`)."""
    if compute_dtype != "bfloat16":
        yield
        return
    import torch

    with torch.autocast(_device_kind(device), dtype=torch.bfloat16):
        yield


def attention_for(
    model: Any, compute_dtype: str, device: str | None, tokens: int
) -> contextlib.AbstractContextManager:
    """The attention a batch of at most ``tokens`` tokens a text computes best with:
    plain matrix products (:func:`_plain_attention`) for a batch shorter than
    :data:`PLAIN_ATTENTION_TOKENS` in bfloat16 on a CPU, the model's own otherwise."""
    cpu = _device_kind(device) == "cpu"
    if compute_dtype == "bfloat16" and cpu and tokens < PLAIN_ATTENTION_TOKENS:
        return _plain_attention(model)
    return contextlib.nullcontext()


@contextlib.contextmanager
def _plain_attention(model: Any) -> Iterator[None]:
    """Switch the transformers models inside ``model`` from PyTorch's fused attention
    (``"sdpa"``) to plain matrix products (``"eager"``) and back. Under bfloat16 autocast on
    a CPU the fused kernel is the slow one on short texts (batches of 256 with 12 heads:
    4.3 / 8.0 / 7.8 ms against 2.1 / 2.1 / 4.0 ms at 8 / 16 / 24 tokens, even at 32, twice
    as fast from 40 tokens on): pearl-minilm encodes 4,366 instead of 2,963 PPDB phrases/s,
    at a cosine of at least 0.99995 to its float32 vectors either way."""
    switched = []
    transformers = sys.modules.get("transformers")  # not imported: no such model to switch
    if model is not None and transformers is not None and hasattr(model, "modules"):
        for module in model.modules():
            if (
                isinstance(module, transformers.PreTrainedModel)
                and getattr(module.config, "_attn_implementation", None) == "sdpa"
            ):
                try:
                    module.set_attn_implementation("eager")
                except (AttributeError, ValueError):  # a model without that switch
                    continue
                switched.append(module)
    try:
        yield
    finally:
        for module in switched:
            module.set_attn_implementation("sdpa")
