import numpy as np
import pytest
import torch

from pearl import PhraseEncoder


@pytest.fixture(scope="module")
def encoder(tiny_model_dir):
    return PhraseEncoder(tiny_model_dir)


def test_encode_shape_and_dtype(encoder):
    emb = encoder.encode(["The New York Times", "NYTimes", "New York"])
    assert emb.shape == (3, encoder.embedding_dim) == (3, 32)
    assert emb.dtype == np.float32


def test_empty_and_whitespace_share_one_vector(encoder):
    emb = encoder.encode(["", " ", "\t", "x"])
    np.testing.assert_array_equal(emb[0], emb[1])
    np.testing.assert_array_equal(emb[0], emb[2])
    assert not np.allclose(emb[0], emb[3])
    assert np.isfinite(emb).all()


def test_empty_list_gives_empty_array(encoder):
    assert encoder.encode([]).shape == (0, 32)


@pytest.mark.parametrize("bad", [None, float("nan"), 7])
def test_bad_items_raise_with_index(encoder, bad):
    with pytest.raises(ValueError, match=r"texts\[1\]"):
        encoder.encode(["ok", bad])


def test_chunked_encoding_matches_one_pass(tiny_model_dir, encoder):
    texts = [f"phrase number {i} " + "word " * (i % 9) for i in range(25)]
    small = PhraseEncoder(tiny_model_dir, chunk_size=4)
    np.testing.assert_allclose(small.encode(texts, batch_size=3), encoder.encode(texts), atol=1e-5)


def test_order_is_preserved_despite_length_sorting(encoder):
    texts = ["a much longer phrase with many words in it", "b", "medium phrase"]
    full = encoder.encode(texts)
    for i, t in enumerate(texts):
        np.testing.assert_allclose(full[i], encoder.encode([t])[0], atol=1e-5)


def test_normalize_gives_unit_vectors(encoder):
    emb = encoder.encode(["one", "two words", "🙂 café 東京"], normalize=True)
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, rtol=1e-5)


def test_huge_input_is_truncated_not_rejected(encoder):
    emb = encoder.encode(["word " * 50_000, "short"])
    assert emb.shape == (2, 32) and np.isfinite(emb).all()


def test_generator_input(encoder):
    emb = encoder.encode(f"item {i}" for i in range(5))
    assert emb.shape == (5, 32)


def test_similarity_float_and_matrix(encoder):
    s = encoder.similarity("New York", "New York")
    assert isinstance(s, float) and s == pytest.approx(1.0, abs=1e-5)
    m = encoder.similarity(["a", "b"], ["a", "b", "c"])
    assert m.shape == (2, 3)
    assert m[0, 0] == pytest.approx(1.0, abs=1e-5)


def test_mean_pooling_matches_manual_computation(tiny_model_dir, encoder):
    st = encoder.model
    feats = st.tokenize(["mean pooling check"])
    with torch.no_grad():
        tokens = st[0](feats)["token_embeddings"][0]
    np.testing.assert_allclose(
        encoder.encode(["mean pooling check"])[0], tokens.mean(0).numpy(), atol=1e-5
    )


def test_fingerprint_tracks_weights(tmp_path, tiny_model_dir, encoder):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(tiny_model_dir, copy)
    assert PhraseEncoder(copy).fingerprint == encoder.fingerprint
    model = PhraseEncoder(copy)
    with torch.no_grad():
        for p in model.model.parameters():
            p.add_(1.0)
            break
    model.save(copy)
    assert PhraseEncoder(copy).fingerprint != encoder.fingerprint


def test_unknown_name_offline_fails_fast_naming_choices(monkeypatch):
    monkeypatch.setattr("pearl.encoders.resolve._hub_reachable", lambda timeout=3.0: False)
    with pytest.raises(OSError, match="all-MiniLM-L6-v2, all-mpnet-base-v2"):
        PhraseEncoder("some-org/not-a-local-model")


def test_folder_without_config_is_rejected(tmp_path):
    (tmp_path / "weights.bin").write_bytes(b"garbage")
    with pytest.raises(OSError, match="not a sentence-transformers"):
        PhraseEncoder(tmp_path)


def test_corrupt_weights_give_clear_error(tmp_path, tiny_model_dir):
    import shutil

    bad = tmp_path / "bad"
    shutil.copytree(tiny_model_dir, bad)
    for f in bad.rglob("model.safetensors"):
        f.write_bytes(b"\x00" * 100)
    with pytest.raises(OSError, match="could not load the model folder"):
        PhraseEncoder(bad)


def test_a_file_is_not_a_model(tmp_path):
    f = tmp_path / "model.txt"
    f.write_text("x")
    with pytest.raises(OSError, match="is a file"):
        PhraseEncoder(f)


def test_a_static_model_encodes_in_large_passes_with_the_same_vectors(monkeypatch):
    from pearl.encoders import phrase

    enc = PhraseEncoder("pearl-static")
    texts = [f"company number {i}" for i in range(50)]
    passes = []
    forward = enc.model.forward
    monkeypatch.setattr(enc.model, "forward", lambda f: passes.append(1) or forward(f))
    small = enc.encode(texts, batch_size=1)
    assert len(passes) == 1  # batch_size 1 is raised to STATIC_BATCH: one pass, not 50
    monkeypatch.setattr(phrase, "STATIC_BATCH", 1)
    one_by_one = enc.encode(texts, batch_size=1)
    assert len(passes) == 51
    np.testing.assert_allclose(small, one_by_one, atol=1e-6)


def test_a_static_model_encodes_few_texts_on_one_thread_and_restores_the_thread_count(
    monkeypatch,
):
    import torch

    from pearl.encoders import phrase

    enc = PhraseEncoder("pearl-static")
    texts = [f"company number {i}" for i in range(20)]
    seen = []
    forward = enc.model.forward
    monkeypatch.setattr(
        enc.model, "forward", lambda f: seen.append(torch.get_num_threads()) or forward(f)
    )
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        few = enc.encode(texts)
        assert seen == [1] and torch.get_num_threads() == 2
        monkeypatch.setattr(phrase, "STATIC_ONE_THREAD", 10)  # 20 texts are now many
        many = enc.encode(texts)
        assert seen == [1, 2] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    np.testing.assert_allclose(few, many, atol=1e-6)


def test_transformer_batches_are_formed_by_token_count(tiny_model_dir):
    # one character length, 3 and 8 tokens: batched by characters (sentence-transformers'
    # rule) every batch pads to 8 tokens; by tokens, half the batches hold 3
    enc = PhraseEncoder(tiny_model_dir)
    short, long_ = "information", "x y z w v u"  # 11 characters: 1 and 6 word pieces
    assert len(short) == len(long_)
    texts = [short, long_] * 8
    seen: list[int] = []
    hook = enc.model[0].register_forward_pre_hook(
        lambda _m, args: seen.append(int(args[0]["attention_mask"].numel()))
    )
    try:
        emb = enc.encode(texts, batch_size=4)
    finally:
        hook.remove()
    lengths = [len(enc.model.tokenizer(t)["input_ids"]) for t in (short, long_)]
    assert sum(seen) == 8 * sum(lengths)  # no padding at all: each batch holds one length
    np.testing.assert_allclose(emb[0::2], enc.encode([short])[[0] * 8], atol=1e-5)
    np.testing.assert_allclose(emb[1::2], enc.encode([long_])[[0] * 8], atol=1e-5)
