import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pearl import GloveEncoder
from pearl.encoders.glove import glove_tokenize


@pytest.fixture
def tiny_glove(tmp_path):
    words = ["new", "york", "times", ",", "the"]
    vecs = np.arange(len(words) * 3, dtype=np.float32).reshape(len(words), 3)
    np.save(tmp_path / "v.npy", vecs)
    pq.write_table(pa.table({"index": words}), tmp_path / "vocab.parquet")
    return GloveEncoder(tmp_path / "v.npy", tmp_path / "vocab.parquet"), vecs


def test_tokenize_lowercases_and_splits_punctuation():
    assert glove_tokenize("The New-York Times, NYT's") == [
        "the",
        "new",
        "-",
        "york",
        "times",
        ",",
        "nyt's",
    ]


def test_average_of_known_words(tiny_glove):
    enc, vecs = tiny_glove
    emb = enc.encode(["New York", "york unknownword"])
    np.testing.assert_allclose(emb[0], (vecs[0] + vecs[1]) / 2)
    np.testing.assert_allclose(emb[1], vecs[1])


def test_no_known_word_gives_zero_vector(tiny_glove):
    enc, _ = tiny_glove
    emb = enc.encode(["", "qqq zzz"], normalize=True)
    assert not emb.any()
    assert enc.similarity("qqq", "new") == 0.0


def test_mismatched_files_are_rejected(tmp_path):
    np.save(tmp_path / "v.npy", np.zeros((3, 2), dtype=np.float32))
    pq.write_table(pa.table({"index": ["a", "b"]}), tmp_path / "vocab.parquet")
    with pytest.raises(ValueError, match="different lengths"):
        GloveEncoder(tmp_path / "v.npy", tmp_path / "vocab.parquet")


def test_packaged_glove_loads():
    enc = GloveEncoder()
    assert enc.embedding_dim == 50
    sim = enc.similarity(["king"], ["queen", "carburetor"])
    assert sim[0, 0] > sim[0, 1]
