"""PhraseEncoder.encode follows sentence-transformers' documented ``encode`` conventions
(shapes, keywords, quantisation), checked against SentenceTransformer itself on the three
shipped model families: a plain transformer (all-MiniLM-L6-v2), the fused PEARL model
(pearl-minilm) and the static model (pearl-static). Integration: packaged models."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from pearl import PhraseEncoder
from pearl.encoders.resolve import resolve_model_path

pytestmark = pytest.mark.integration

MODELS = ["all-MiniLM-L6-v2", "pearl-minilm", "pearl-static"]
TEXTS = ["The New York Times", "nytimes.com", "  ", "", "café ☕", "\t\n"]


@pytest.fixture(scope="module", params=MODELS)
def pair(request):
    from sentence_transformers import SentenceTransformer

    path = resolve_model_path(request.param)
    # the installed copies, which pearl trusts (never pass this flag for a received folder)
    st = SentenceTransformer(path, trust_remote_code=True, device="cpu")
    return PhraseEncoder(request.param), st


def test_shapes_follow_sentence_transformers(pair):
    enc, st = pair
    assert enc.encode("one phrase").shape == st.encode("one phrase").shape  # (dim,)
    assert enc.encode(["a", "b"]).shape == st.encode(["a", "b"]).shape  # (2, dim)
    assert enc.get_sentence_embedding_dimension() == st.get_sentence_embedding_dimension()


def test_same_vectors_on_every_input_whitespace_included(pair):
    enc, st = pair
    ours = enc.encode(TEXTS, normalize_embeddings=True)
    theirs = st.encode(TEXTS, normalize_embeddings=True)
    np.testing.assert_allclose(ours, theirs, atol=2e-5)


def test_keywords_as_sentence_transformers_takes_them(pair):
    enc, st = pair
    t = enc.encode(sentences=["a", "b"], convert_to_tensor=True)
    assert (
        isinstance(t, torch.Tensor)
        and t.shape == st.encode(["a", "b"], convert_to_tensor=True).shape
    )
    rows = enc.encode(["a", "b"], convert_to_numpy=False)
    assert isinstance(rows, list) and len(rows) == 2 and isinstance(rows[0], torch.Tensor)
    assert enc.encode("a", truncate_dim=8).shape == st.encode("a", truncate_dim=8).shape
    np.testing.assert_allclose(
        np.linalg.norm(enc.encode(["a"], normalize_embeddings=True)), 1.0, atol=1e-5
    )


@pytest.mark.parametrize("precision", ["int8", "uint8", "binary", "ubinary"])
def test_quantisation(pair, precision):
    enc, st = pair
    ours = enc.encode(TEXTS[:2], precision=precision)
    theirs = st.encode(TEXTS[:2], precision=precision)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    if precision.endswith("binary"):  # the same bits, up to a coordinate at the threshold
        assert (ours != theirs).mean() < 0.01


def test_pearl_names_keep_working():
    enc = PhraseEncoder("pearl-static")
    a = enc.encode(["New York"], normalize=True)
    b = enc.encode(["New York"], normalize_embeddings=True)
    np.testing.assert_allclose(a, b)
    with pytest.raises(TypeError, match="once"):
        enc.encode(["a"], sentences=["b"])


def test_precision_none_is_float32_as_in_sentence_transformers(pair):
    enc, st = pair
    ours, theirs = enc.encode(["a", "b"], precision=None), st.encode(["a", "b"], precision=None)
    assert ours.dtype == theirs.dtype == np.float32
    np.testing.assert_array_equal(ours, enc.encode(["a", "b"]))


def test_similarity_takes_embeddings_as_sentence_transformers_does(pair):
    enc, st = pair
    a, b = ["New York Times", "NY Times"], ["nytimes.com", "Le Monde", "NYT"]
    ea, eb = st.encode(a, convert_to_tensor=True), st.encode(b, convert_to_tensor=True)
    theirs = st.similarity(ea, eb)
    ours = enc.similarity(ea, eb)
    assert isinstance(ours, torch.Tensor) and ours.shape == theirs.shape == (2, 3)
    torch.testing.assert_close(ours, theirs.float(), atol=1e-5, rtol=0)
    np.testing.assert_allclose(enc.similarity(ea.numpy(), eb.numpy()), theirs.numpy(), atol=1e-5)
    np.testing.assert_allclose(enc.similarity(a, b), theirs.numpy(), atol=1e-4)  # texts too


def test_max_seq_length_reads_and_sets_as_sentence_transformers_does(pair):
    enc, st = pair
    assert enc.max_seq_length == st.max_seq_length
    long = " ".join(["word"] * 300)
    if isinstance(enc.max_seq_length, int) and enc.max_seq_length > 8:
        key, before = enc.fingerprint, enc.max_seq_length
        enc.max_seq_length = 8
        st.max_seq_length = 8
        try:
            np.testing.assert_allclose(enc.encode(long), st.encode(long), atol=2e-5)
            assert enc.fingerprint != key  # cached embeddings of the old length are not reused
        finally:
            enc.max_seq_length = st.max_seq_length = before
        assert enc.fingerprint == key


def test_query_document_and_pairwise_as_sentence_transformers(pair):
    enc, st = pair
    texts = ["The New York Times", "NY Times"]
    np.testing.assert_allclose(enc.encode_query(texts), st.encode_query(texts), atol=2e-5)
    np.testing.assert_allclose(enc.encode_document(texts), st.encode_document(texts), atol=2e-5)
    q = enc.encode_query(texts, prompt="query: ")  # a given prompt wins, as in theirs
    np.testing.assert_allclose(q, st.encode_query(texts, prompt="query: "), atol=2e-5)
    a, b = st.encode(texts, convert_to_tensor=True), st.encode(texts[::-1], convert_to_tensor=True)
    theirs = st.similarity_pairwise(a, b)
    ours = enc.similarity_pairwise(a, b)
    assert isinstance(ours, torch.Tensor) and ours.shape == theirs.shape == (2,)
    torch.testing.assert_close(ours, theirs.float(), atol=1e-5, rtol=0)
    np.testing.assert_allclose(enc.similarity_pairwise(texts, texts[::-1]), theirs, atol=1e-4)
    assert enc.similarity_fn_name == st.similarity_fn_name == "cosine"
    with pytest.raises(ValueError, match="as many rows"):
        enc.similarity_pairwise(texts, texts[:1])
