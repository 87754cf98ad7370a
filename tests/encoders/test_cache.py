import numpy as np
import pytest

from pearl.encoders.cache import EmbeddingCache


def test_each_text_is_encoded_once(hash_encoder, tmp_path):
    cache = EmbeddingCache(hash_encoder, root=tmp_path)
    a = cache(["x", "y", "x"])
    assert hash_encoder.calls == 2
    b = cache(["y", "z", "x"])
    assert hash_encoder.calls == 3
    np.testing.assert_array_equal(a[0], b[2])
    np.testing.assert_array_equal(a[1], b[0])


def test_cache_persists_across_instances(hash_encoder, tmp_path):
    EmbeddingCache(hash_encoder, root=tmp_path)(["alpha", "beta"])
    fresh = type(hash_encoder)()
    again = EmbeddingCache(fresh, root=tmp_path)
    out = again(["beta", "alpha"])
    assert fresh.calls == 0
    np.testing.assert_array_equal(out, hash_encoder.encode(["beta", "alpha"]))


def test_no_persist_writes_nothing(hash_encoder, tmp_path):
    EmbeddingCache(hash_encoder, root=tmp_path, persist=False)(["a"])
    assert not any(tmp_path.rglob("*.npy"))


def test_damaged_shard_is_ignored_and_recomputed(hash_encoder, tmp_path):
    cache = EmbeddingCache(hash_encoder, root=tmp_path)
    cache(["a", "b"])
    for f in cache.folder.glob("*.npy"):
        f.write_bytes(b"not numpy")
    fresh = type(hash_encoder)()
    out = EmbeddingCache(fresh, root=tmp_path)(["a", "b"])
    assert fresh.calls == 2
    np.testing.assert_array_equal(out, hash_encoder.encode(["a", "b"]))


def test_whitespace_keys_are_normalised(hash_encoder, tmp_path):
    cache = EmbeddingCache(hash_encoder, root=tmp_path)
    out = cache(["", "   "])
    assert hash_encoder.calls == 1
    np.testing.assert_array_equal(out[0], out[1])


def test_many_texts_grow_the_store(hash_encoder, tmp_path):
    cache = EmbeddingCache(hash_encoder, root=tmp_path, persist=False)
    for start in range(0, 3000, 700):
        cache([f"t{i}" for i in range(start, start + 700)])
    assert len(cache) == 3500
    np.testing.assert_array_equal(cache(["t5"])[0], hash_encoder.encode(["t5"])[0])


def test_an_encoder_without_fingerprint_is_cached_in_memory_only(hash_encoder, tmp_path):
    class Foreign:  # a SentenceTransformer has encode() and no fingerprint
        def encode(self, texts, **kwargs):
            return hash_encoder.encode(texts)

    a, b = Foreign(), Foreign()
    ca = EmbeddingCache(a, root=tmp_path, persist=False)
    cb = EmbeddingCache(b, root=tmp_path, persist=False)
    assert ca.fingerprint != cb.fingerprint  # never shared between two objects
    assert np.allclose(ca(["x", "y"]), hash_encoder.encode(["x", "y"]))
    with pytest.raises(ValueError, match="no fingerprint"):
        EmbeddingCache(a, root=tmp_path)
    assert not any(tmp_path.iterdir())
