"""The n-gram bag character channel of the fused model (issue 49)."""

import numpy as np
import pytest
import torch

from pearl import PhraseEncoder
from pearl.models import build_pearl_model, fusion_module
from pearl.models.char_encoder import CharEncoder, encode_chars
from pearl.models.ngram_bag import BothCharEncoders, NgramBagEncoder, build_char_encoder
from pearl.training.saving import save_model

TEXTS = ["The New York Times", "nytimes.com", "", "café 🙂 naïve", "NYTimes", "New York Post"]


def _cos(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_the_bag_is_the_mean_of_the_phrase_s_ngram_vectors():
    from pearl.models.char_ngrams import char_ngram_ids

    torch.manual_seed(0)
    bag = NgramBagEncoder(out_dim=6, n_buckets=101)
    out = bag(encode_chars(["Paris", ""])).detach().numpy()
    ids, _ = char_ngram_ids(["Paris"], 101)
    want = bag.ngrams.weight.detach().numpy()[ids].mean(0)
    np.testing.assert_allclose(out[0], want, atol=1e-6)
    assert not out[1].any()  # an empty phrase has no n-gram: the zero vector


def test_surface_forms_that_share_ngrams_are_close_even_untrained():
    torch.manual_seed(0)
    bag = NgramBagEncoder(out_dim=64)
    v = bag(encode_chars(["nytimes", "nytimes.com", "new york post"])).detach().numpy()
    assert _cos(v[0], v[1]) > 0.5 > abs(_cos(v[0], v[2]))


def test_subwords_add_their_mean_vector():
    torch.manual_seed(0)
    bag = NgramBagEncoder(out_dim=4, n_buckets=11, subword_vocab=20)
    chars = encode_chars(["ab"])  # "<ab>" has 3-grams: the subwords decide the difference
    one = bag(chars, torch.tensor([[5, 0, 0]]))
    two = bag(chars, torch.tensor([[5, 7, 0]]))
    none = bag(chars)
    w = bag.subwords.weight.detach()
    torch.testing.assert_close(one - none, w[5][None])
    torch.testing.assert_close(two - none, ((w[5] + w[7]) / 2)[None])
    with pytest.raises(ValueError, match="without a subword"):
        NgramBagEncoder(out_dim=4)(chars, torch.tensor([[5]]))


def test_build_char_encoder_kinds():
    assert isinstance(build_char_encoder({"out_dim": 8}), CharEncoder)
    assert isinstance(build_char_encoder({"kind": "ngram_bag", "out_dim": 8}), NgramBagEncoder)
    both = build_char_encoder({"kind": "both", "out_dim": 8, "dim": 16, "n_buckets": 50})
    assert isinstance(both, BothCharEncoders) and both.config["out_dim"] == 8
    with pytest.raises(ValueError, match="kind must be one of"):
        build_char_encoder({"kind": "lstm"})
    with pytest.raises(ValueError, match="ngram_range"):
        NgramBagEncoder(ngram_range=(4, 2))


@pytest.mark.parametrize("kind", ["ngram_bag", "both"])
def test_a_fused_model_with_the_bag_saves_and_loads_strictly(tiny_model_dir, tmp_path, kind):
    torch.manual_seed(0)
    model = build_pearl_model(
        str(tiny_model_dir), {"kind": kind, "out_dim": 8, "dim": 16, "n_buckets": 257}
    )
    emb = model.encode(TEXTS)
    assert emb.shape == (len(TEXTS), 40) and np.isfinite(emb).all()
    save_model(model, tmp_path / "m")
    loaded = PhraseEncoder(tmp_path / "m")  # the strict loader: no code from the folder
    np.testing.assert_allclose(loaded.encode(TEXTS), emb, atol=1e-5)
    fusion = fusion_module(loaded.model)
    assert fusion.char_config["kind"] == kind
