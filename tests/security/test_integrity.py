"""Wrong state is never accepted silently: model identity covers every byte, cache shards
are checked, and an index or cache made by another model is refused or re-encoded."""

from __future__ import annotations

import hashlib
import io
import json
import logging
import shutil

import numpy as np
import pytest

from pearl import EntityIndex, PhraseEncoder
from pearl.encoders.cache import EmbeddingCache
from pearl.encoders.fingerprint import folder_fingerprint


def _flip_middle_byte(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def test_fingerprint_covers_the_middle_of_the_weights(tiny_model_dir, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(tiny_model_dir, copy)
    assert folder_fingerprint(copy) == folder_fingerprint(tiny_model_dir)
    _flip_middle_byte(copy / "model.safetensors")
    assert folder_fingerprint(copy) != folder_fingerprint(tiny_model_dir)


def test_fingerprint_ignores_the_model_card(tiny_model_dir, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(tiny_model_dir, copy)
    (copy / "README.md").write_text("a new model card")
    assert folder_fingerprint(copy) == folder_fingerprint(tiny_model_dir)


def test_fingerprint_is_recomputed_when_a_file_changes_in_place(tiny_model_dir, tmp_path):
    import os

    copy = tmp_path / "copy"
    shutil.copytree(tiny_model_dir, copy)
    before = folder_fingerprint(copy)  # cached by (path, size, mtime) from here on
    weights = copy / "model.safetensors"
    stat = weights.stat()
    _flip_middle_byte(weights)
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert folder_fingerprint(copy) != before


def test_index_of_another_model_is_refused(tiny_model_dir, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(tiny_model_dir, copy)
    EntityIndex(model=str(copy)).build(["Paris", "London"]).save(tmp_path / "idx")
    _flip_middle_byte(copy / "model.safetensors")
    with pytest.raises(ValueError, match="fingerprint"):
        EntityIndex.load(tmp_path / "idx", model=str(copy))


def test_query_embeddings_of_another_width_are_a_clear_error(hash_encoder):
    idx = EntityIndex(model=hash_encoder).build(["Paris", "London"])
    with pytest.raises(ValueError, match="256-d"):
        idx.search_embeddings(np.ones((1, 8), np.float32))


def _rewrite_shard(cache, vecs):
    """Replace a shard's vectors *and* fix its checksum (as a careless tool would)."""
    npy = next(cache.folder.glob("*.npy"))
    buf = io.BytesIO()
    np.save(buf, vecs)
    npy.write_bytes(buf.getvalue())
    meta = npy.with_suffix(".json")
    info = json.loads(meta.read_text())
    info["sha256"] = hashlib.sha256(buf.getvalue()).hexdigest()
    info["dim"] = vecs.shape[1]
    meta.write_text(json.dumps(info))
    return npy


@pytest.mark.parametrize("damage", ["nan", "width", "checksum", "old-format"])
def test_bad_cache_shard_is_discarded_with_a_warning_and_re_encoded(
    hash_encoder, tmp_path, caplog, damage
):
    cache = EmbeddingCache(hash_encoder, root=tmp_path)
    cache(["a", "b"])
    npy = next(cache.folder.glob("*.npy"))
    if damage == "nan":
        _rewrite_shard(cache, np.full((2, 256), np.nan, np.float32))
    elif damage == "width":
        _rewrite_shard(cache, np.zeros((2, 7), np.float32))
    elif damage == "checksum":
        npy.write_bytes(npy.read_bytes()[:-8] + np.ones(2, np.float32).tobytes())
    else:
        npy.with_suffix(".json").write_text(json.dumps(["a", "b"]))
    fresh = type(hash_encoder)()
    with caplog.at_level(logging.WARNING, logger="pearl.encoders.cache"):
        out = EmbeddingCache(fresh, root=tmp_path)(["a", "b"])
    assert fresh.calls == 2
    np.testing.assert_array_equal(out, hash_encoder.encode(["a", "b"]))
    assert npy.name in caplog.text and "discarding" in caplog.text


def test_shard_of_another_model_is_not_served(hash_encoder, tmp_path):
    cache = EmbeddingCache(hash_encoder, root=tmp_path)
    cache(["a"])
    shard = next(cache.folder.glob("*.json"))
    info = json.loads(shard.read_text())
    info["fingerprint"] = "another-model"
    shard.write_text(json.dumps(info))
    fresh = type(hash_encoder)()
    EmbeddingCache(fresh, root=tmp_path)(["a"])
    assert fresh.calls == 1


def test_shard_still_being_written_is_left_alone(hash_encoder, tmp_path):
    cache = EmbeddingCache(hash_encoder, root=tmp_path)
    cache.folder.mkdir(parents=True)
    half = cache.folder / "00000-1.npy"
    half.write_bytes(b"vectors of a shard whose JSON is not written yet")
    EmbeddingCache(type(hash_encoder)(), root=tmp_path)(["a"])
    assert half.exists()


def test_phrase_encoder_fingerprint_changes_with_the_weights(tiny_model_dir, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(tiny_model_dir, copy)
    before = PhraseEncoder(copy).fingerprint
    _flip_middle_byte(copy / "model.safetensors")
    assert PhraseEncoder(copy).fingerprint != before


def test_unreadable_result_record_is_named(tmp_path):
    from pearl.evaluation import load_records

    (tmp_path / "broken.json").write_text("{not json")
    with pytest.raises(ValueError, match="broken.json"):
        load_records(tmp_path)
    (tmp_path / "broken.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="not a pearl result record"):
        load_records(tmp_path)


def test_invalid_toml_config_is_named(tmp_path):
    from pearl.training import load_config

    bad = tmp_path / "run.toml"
    bad.write_text("batch_size = = 3\n")
    with pytest.raises(ValueError, match="run.toml is not valid TOML"):
        load_config(bad)
