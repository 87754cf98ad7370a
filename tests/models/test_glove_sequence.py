import numpy as np
import pytest
import torch
from sentence_transformers import SentenceTransformer
from sentence_transformers.sentence_transformer.modules import Normalize

from pearl import PhraseEncoder
from pearl.models.glove_sequence import GloveSequenceEncoder

WORDS = ["new", "york", "times", "post", "the", ".", "acme", "inc"]


def _module(arch, seed=0):
    torch.manual_seed(seed)
    vectors = np.random.default_rng(seed).normal(size=(len(WORDS), 6)).astype(np.float32)
    return GloveSequenceEncoder(WORDS, vectors, arch=arch, hidden_dim=4)


@pytest.mark.parametrize("arch", ["bilstm", "cnn"])
def test_phrases_of_any_shape_encode_and_blank_ones_are_zero(arch):
    st = SentenceTransformer(modules=[_module(arch)], device="cpu")
    texts = ["The New York Times", "", "   ", "zzz unknownword", "Acme Inc. 🚀", "new " * 100]
    emb = st.encode(texts, convert_to_numpy=True)
    assert emb.shape == (len(texts), 8) and np.isfinite(emb).all()
    assert not emb[1].any() and not emb[2].any()
    assert emb[3].any()  # unknown words are read as the mean vector, not dropped
    # padding does not change a phrase's vector: alone or in a batch of longer ones
    alone = st.encode(["new york"], convert_to_numpy=True)[0]
    np.testing.assert_allclose(
        alone,
        st.encode(["new york", "the new york times post"], convert_to_numpy=True)[0],
        atol=1e-5,
    )


@pytest.mark.parametrize("arch", ["bilstm", "cnn"])
def test_a_saved_encoder_loads_with_pearl_without_remote_code(arch, tmp_path):
    st = SentenceTransformer(modules=[_module(arch), Normalize()], device="cpu")
    st.save(str(tmp_path / "m"))
    texts = ["The New York Times", "acme inc", ""]
    np.testing.assert_allclose(
        PhraseEncoder(tmp_path / "m").encode(texts),
        st.encode(texts, convert_to_numpy=True),
        atol=1e-6,
    )


def test_bad_arguments_and_corrupt_folders_are_refused(tmp_path):
    with pytest.raises(ValueError, match="arch"):
        GloveSequenceEncoder(WORDS, np.zeros((len(WORDS), 6)), arch="gru")
    with pytest.raises(ValueError, match="shape"):
        GloveSequenceEncoder(WORDS, np.zeros((3, 6)))
    _module("cnn").save(str(tmp_path / "g"))
    (tmp_path / "g" / "vocab.json").write_text('{"not": "a list"}')
    with pytest.raises(OSError, match="corrupt"):
        GloveSequenceEncoder.load(str(tmp_path / "g"))
    (tmp_path / "g" / "model.safetensors").unlink()
    with pytest.raises(OSError, match="missing"):
        GloveSequenceEncoder.load(str(tmp_path / "g"))
