import numpy as np
import pytest
import torch

from pearl.models.static import StaticPhraseEmbedding, char_ngram_ids


def test_ngram_ids_and_offsets():
    ids, offsets = char_ngram_ids(["ab", "", "Paris", "paris"], n_buckets=97)
    # "<ab>" has 2 trigrams + 1 four-gram; "<>" none; "<paris>" has 5 + 4 + 3
    assert offsets.tolist() == [0, 3, 3, 15]
    assert len(ids) == 27 and ids.min() >= 0 and ids.max() < 97
    np.testing.assert_array_equal(ids[3:15], ids[15:])  # lower-cased


def test_ngram_ids_are_shared_by_a_typo():
    ids, offsets = char_ngram_ids(["washington", "washingtno", "beijing"], n_buckets=1 << 20)
    a, b, c = (set(x) for x in np.split(ids, offsets[1:]))
    assert len(a & b) > len(a & c) and len(a & b) >= len(a) // 2


def test_long_and_unicode_texts_are_cut_not_refused():
    ids, offsets = char_ngram_ids(["🙂" * 100, "東京"], n_buckets=64, max_chars=16)
    assert offsets[1] == 14 + 13 + 12  # the first 16 bytes: 3-, 4- and 5-grams
    assert len(ids) > offsets[1]


@pytest.fixture(scope="module")
def tiny_static(tiny_model_dir):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tiny_model_dir / "tokenizer.json"))
    torch.manual_seed(0)
    return StaticPhraseEmbedding(
        tok, embedding_weights=torch.randn(tok.get_vocab_size(), 16), n_buckets=128
    )


def test_fresh_module_equals_its_token_table(tiny_static):
    feats = tiny_static.preprocess(["new york times"])
    out = tiny_static(feats)["sentence_embedding"]
    ids = tiny_static.tokenizer.encode("new york times", add_special_tokens=False).ids
    torch.testing.assert_close(out[0], tiny_static.embedding.weight[ids].mean(0))


def test_folder_round_trip_through_phrase_encoder_and_sentence_transformers(tiny_static, tmp_path):
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize

    from pearl import PhraseEncoder

    with torch.no_grad():
        tiny_static.ngrams.weight.normal_()
    SentenceTransformer(modules=[tiny_static, Normalize()]).save(str(tmp_path / "m"))
    texts = ["The New York Times", "NYTimes", "", "🙂"]
    mine = PhraseEncoder(tmp_path / "m").encode(texts)
    theirs = SentenceTransformer(str(tmp_path / "m"), trust_remote_code=True).encode(texts)
    np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)
    assert mine.shape == (4, 16) and np.isfinite(mine).all()
    # the static fast path does not depend on the batch size
    one_by_one = PhraseEncoder(tmp_path / "m").encode(texts, batch_size=1, normalize=True)
    np.testing.assert_allclose(one_by_one, mine, rtol=1e-5, atol=1e-6)


def test_missing_file_is_an_oserror(tiny_static, tmp_path):
    from pearl import PhraseEncoder

    tiny_static.save(str(tmp_path / "m"))
    (tmp_path / "m" / "pearl_static_config.json").unlink()
    with pytest.raises(OSError, match="pearl_static_config.json"):
        StaticPhraseEmbedding.load(str(tmp_path / "m"))
    with pytest.raises(OSError):
        PhraseEncoder(tmp_path / "m")


def test_weights_file_is_not_model2vecs_and_old_folders_still_load(tiny_static, tmp_path):
    tiny_static.save(str(tmp_path / "s"))
    assert (tmp_path / "s" / "pearl_static.safetensors").is_file()
    assert not (tmp_path / "s" / "model.safetensors").exists()
    (tmp_path / "s" / "pearl_static.safetensors").rename(tmp_path / "s" / "model.safetensors")
    old = StaticPhraseEmbedding.load(str(tmp_path / "s"))  # a folder of pearl before 0.2
    feats = tiny_static.preprocess(["new york"])
    torch.testing.assert_close(
        old(dict(feats))["sentence_embedding"], tiny_static(dict(feats))["sentence_embedding"]
    )


def test_whitespace_only_is_the_empty_string(tiny_static):
    a = tiny_static(tiny_static.preprocess(["", " ", "\t\n"]))["sentence_embedding"]
    torch.testing.assert_close(a[1], a[0])
    torch.testing.assert_close(a[2], a[0])
