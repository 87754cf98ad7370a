import numpy as np
import pytest

from pearl import PhraseEncoder
from pearl.encoders.precision import native_bf16, resolve_compute_dtype


def _cpuinfo(tmp_path, flags: str):
    path = tmp_path / f"cpuinfo-{abs(hash(flags))}"  # native_bf16 caches by path
    path.write_text(f"processor\t: 0\nflags\t\t: fpu sse2 {flags}\n\nprocessor\t: 1\n")
    return str(path)


def test_native_bf16_reads_the_cpu_flags(tmp_path):
    assert native_bf16(_cpuinfo(tmp_path, "avx512f avx512_bf16")) is True
    assert native_bf16(_cpuinfo(tmp_path, "amx_tile amx_bf16")) is True
    assert native_bf16(_cpuinfo(tmp_path, "avx512f avx512bw avx2")) is False  # emulated
    assert native_bf16(str(tmp_path / "missing")) is False


def test_auto_is_exact_and_fast_follows_the_cpu_and_the_environment(monkeypatch):
    import pearl.encoders.precision as precision

    monkeypatch.delenv("PEARL_COMPUTE_DTYPE", raising=False)
    monkeypatch.setattr(precision, "native_bf16", lambda: True)
    assert resolve_compute_dtype("auto", None) == "float32"  # exact, even where bf16 is native
    assert resolve_compute_dtype("fast", None) == "bfloat16"
    assert resolve_compute_dtype("fast", "cuda:0") == "float32"  # fast is for CPUs
    assert resolve_compute_dtype("float32", "cpu") == "float32"
    monkeypatch.setattr(precision, "native_bf16", lambda: False)
    assert resolve_compute_dtype("fast", "cpu") == "float32"  # emulated bf16 is slower
    assert resolve_compute_dtype("bfloat16", "cpu") == "bfloat16"  # asked for: given
    monkeypatch.setenv("PEARL_COMPUTE_DTYPE", "bfloat16")
    assert resolve_compute_dtype("auto", "cpu") == "bfloat16"
    assert resolve_compute_dtype("fast", "cpu") == "bfloat16"
    assert resolve_compute_dtype("float32", "cpu") == "float32"  # the argument wins
    monkeypatch.setenv("PEARL_COMPUTE_DTYPE", "float64")
    with pytest.raises(ValueError, match="PEARL_COMPUTE_DTYPE"):
        resolve_compute_dtype("auto", "cpu")
    with pytest.raises(ValueError, match="compute_dtype"):
        resolve_compute_dtype("half", "cpu")


def test_the_default_encoding_does_not_depend_on_the_batch(monkeypatch):
    """sentence-transformers' batch-size invariance test, on the shipped default model and
    a CPU with native bfloat16 (in bfloat16 its vectors moved by about 1e-3)."""
    import pearl.encoders.precision as precision

    monkeypatch.delenv("PEARL_COMPUTE_DTYPE", raising=False)
    monkeypatch.setattr(precision, "native_bf16", lambda: True)
    texts = ["The New York Times", "nytimes.com", "a longer phrase of several words", "x"]
    enc = PhraseEncoder()  # the default model
    small = enc.encode(texts * 8, batch_size=2, normalize=True)
    large = enc.encode(texts * 8, batch_size=64, normalize=True)
    assert np.abs(small - large).max() <= 1e-5


def test_bfloat16_vectors_are_close_and_keyed_apart(tiny_pearl_dir):
    texts = ["The New York Times", "nytimes.com", "", "Café 🙂", "x " * 100]
    f32 = PhraseEncoder(str(tiny_pearl_dir), compute_dtype="float32")
    b16 = PhraseEncoder(str(tiny_pearl_dir), compute_dtype="bfloat16")
    a, b = f32.encode(texts * 30, normalize=True), b16.encode(texts * 30, normalize=True)
    assert b.dtype == np.float32 and a.shape == b.shape
    assert not np.array_equal(a, b)  # bfloat16 products ran
    assert (a * b).sum(1).min() > 0.99
    # the weights stay float32: training and saving see the float model
    assert all(str(p.dtype) == "torch.float32" for p in b16.model.parameters())
    # one model (what indexes and matcher weights check); caches keep the two apart
    from pearl.encoders.cache import cache_key

    assert f32.fingerprint == b16.fingerprint
    assert cache_key(f32) != cache_key(b16)
    with pytest.raises(ValueError, match="compute_dtype"):
        PhraseEncoder(str(tiny_pearl_dir), compute_dtype="float16")


def test_the_benchmark_computes_in_float32(tiny_pearl_dir, monkeypatch):
    from pearl.evaluation.string_distance import load_model

    monkeypatch.setenv("PEARL_COMPUTE_DTYPE", "bfloat16")
    assert load_model(str(tiny_pearl_dir)).compute_dtype == "float32"


def test_an_index_saved_in_bfloat16_loads(tiny_model_dir, tmp_path, monkeypatch):
    """On a CPU where "auto" is bfloat16, an index's recorded fingerprint is the model's."""
    from pearl import EntityIndex

    monkeypatch.setenv("PEARL_COMPUTE_DTYPE", "bfloat16")
    names = ["The New York Times", "Washington Post", "New York Post"]
    index = EntityIndex(model=str(tiny_model_dir)).build(names)
    index.save(tmp_path / "idx")
    loaded = EntityIndex.load(tmp_path / "idx", model=str(tiny_model_dir))
    assert loaded.search(["NY Times"], top_k=1).names[0][0] in names


def test_bfloat16_on_a_cpu_computes_short_batches_attention_with_plain_products(
    tiny_model_dir, monkeypatch
):
    from transformers import PreTrainedModel

    from pearl.encoders import precision

    enc = PhraseEncoder(str(tiny_model_dir), compute_dtype="bfloat16")
    (bert,) = [m for m in enc.model.modules() if isinstance(m, PreTrainedModel)]
    assert bert.config._attn_implementation == "sdpa"
    seen = []
    forward = bert.forward

    def spy(*args, **kwargs):
        seen.append((kwargs["input_ids"].shape[1], bert.config._attn_implementation))
        return forward(*args, **kwargs)

    monkeypatch.setattr(bert, "forward", spy)
    short = [f"phrase number {i}" for i in range(20)]
    long = [" ".join(f"word{j}" for j in range(i, i + 40)) for i in range(12)]
    bf16 = enc.encode(short + long, batch_size=8)
    by_length = {length < precision.PLAIN_ATTENTION_TOKENS: impl for length, impl in seen}
    assert by_length == {True: "eager", False: "sdpa"}  # short batches plain, long fused
    assert len({impl for _, impl in seen if _ < precision.PLAIN_ATTENTION_TOKENS}) == 1
    assert bert.config._attn_implementation == "sdpa"  # switched back after each batch
    seen.clear()
    f32 = PhraseEncoder(str(tiny_model_dir), compute_dtype="float32")
    f32._model = enc.model  # the same weights, computed in float32
    ref = f32.encode(short + long, batch_size=8)
    assert {impl for _, impl in seen} == {"sdpa"}
    cos = (bf16 * ref).sum(1) / np.linalg.norm(bf16, axis=1) / np.linalg.norm(ref, axis=1)
    assert cos.min() > 0.99
    with precision.attention_for(enc.model, "bfloat16", "cuda:0", 4):  # only on a CPU
        assert bert.config._attn_implementation == "sdpa"
