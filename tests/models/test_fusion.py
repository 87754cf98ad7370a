import shutil

import numpy as np
import pytest
import torch

from pearl import PhraseEncoder
from pearl.models import CharFusion, build_pearl_model, fusion_module, load_pearl_model
from pearl.training.saving import save_model

TEXTS = ["The New York Times", "nytimes.com", "", "café 🙂 naïve", "NYTimes"]


def test_embedding_is_the_concatenation(tiny_model_dir):
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    model = build_pearl_model(str(tiny_model_dir), {"out_dim": 8, "dim": 16})
    emb = model.encode(TEXTS)
    assert emb.shape == (len(TEXTS), 32 + 8)
    # the first 32 dimensions are the backbone's own mean-pooled embedding
    plain = SentenceTransformer(str(tiny_model_dir)).encode(TEXTS)
    np.testing.assert_allclose(emb[:, :32], plain, atol=1e-5)
    assert model.get_embedding_dimension() == 40


def test_output_dim_and_no_chars(tiny_model_dir):
    projected = build_pearl_model(str(tiny_model_dir), {"out_dim": 8}, output_dim=12)
    assert projected.encode(TEXTS).shape == (len(TEXTS), 12)
    no_chars = build_pearl_model(str(tiny_model_dir), use_chars=False)
    assert no_chars.encode(TEXTS).shape == (len(TEXTS), 32)


def test_char_inputs_read_the_phrase_back(tiny_model_dir):
    model = build_pearl_model(str(tiny_model_dir), {"out_dim": 8})
    fusion = fusion_module(model)
    feats = model.preprocess(["New York", "", "x"])
    chars, sub = fusion.char_inputs(feats["input_ids"], feats["attention_mask"])
    first = bytes((chars[0][chars[0] > 0] - 2).tolist()).decode()
    assert first == "new york"  # the tokenizer is uncased; [CLS]/[SEP] are gone
    assert chars[1].sum() == 0 and sub[1].sum() == 0  # empty phrase: all padding
    assert sub.shape[0] == 3


def test_round_trip_in_sentence_transformers_and_pearl(tiny_pearl_dir):
    from sentence_transformers import SentenceTransformer

    direct = SentenceTransformer(str(tiny_pearl_dir), trust_remote_code=True).encode(TEXTS)
    ours = PhraseEncoder(tiny_pearl_dir).encode(TEXTS)
    np.testing.assert_array_equal(direct, ours)
    assert ours.shape == (len(TEXTS), 40)
    assert isinstance(fusion_module(load_pearl_model(tiny_pearl_dir)), CharFusion)
    assert fusion_module(load_pearl_model(tiny_pearl_dir)).labels == [
        "NP-ORG",
        "NP-GPE",
        "NP-OTHER",
    ]


def test_type_head_predicts_over_the_labels(tiny_pearl_dir):
    model = load_pearl_model(tiny_pearl_dir)
    emb = torch.as_tensor(model.encode(["Paris"]))
    assert fusion_module(model).type_logits(emb).shape == (1, 3)


def test_float16_storage_computes_in_float32(tiny_model_dir, tmp_path):
    from safetensors.torch import load_file
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    model = build_pearl_model(str(tiny_model_dir), {"out_dim": 8})
    ref = model.encode(TEXTS)
    save_model(model, tmp_path / "half", "float16")
    assert all(
        v.dtype == torch.float16
        for v in load_file(str(tmp_path / "half" / "model.safetensors")).values()
        if v.is_floating_point()
    )
    np.testing.assert_array_equal(model.encode(TEXTS), ref)  # the caller's model is intact
    loaded = SentenceTransformer(str(tmp_path / "half"), trust_remote_code=True)
    assert {p.dtype for p in loaded.parameters()} == {torch.float32}
    np.testing.assert_array_equal(
        loaded.encode(TEXTS), PhraseEncoder(tmp_path / "half").encode(TEXTS)
    )
    np.testing.assert_allclose(loaded.encode(TEXTS), ref, atol=2e-2)


def _copy(model_dir, tmp_path):
    """A copy of a model folder to break, and its CharFusion subfolder."""
    broken = tmp_path / "broken"
    shutil.copytree(model_dir, broken)
    return broken, broken / "2_CharFusion"


def test_missing_module_weights_give_a_clear_error(tiny_pearl_dir, tmp_path):
    broken, fusion = _copy(tiny_pearl_dir, tmp_path)
    (fusion / "model.safetensors").unlink()
    with pytest.raises(OSError, match="missing"):
        load_pearl_model(broken)
    with pytest.raises(OSError, match="missing"):
        PhraseEncoder(broken)


def test_corrupt_module_weights_give_a_clear_error(tiny_pearl_dir, tmp_path):
    broken, fusion = _copy(tiny_pearl_dir, tmp_path)
    path = fusion / "model.safetensors"
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(OSError, match="corrupt"):
        load_pearl_model(broken)


def test_weights_that_do_not_match_the_config(tiny_pearl_dir, tmp_path):
    import json

    broken, fusion = _copy(tiny_pearl_dir, tmp_path)
    cfg = fusion / "config.json"
    data = json.loads(cfg.read_text())
    data["char_config"]["out_dim"] = 4
    cfg.write_text(json.dumps(data))
    with pytest.raises(OSError, match="do not match"):
        load_pearl_model(broken)


def test_not_a_model_folder(tmp_path):
    with pytest.raises(OSError, match="modules.json"):
        load_pearl_model(tmp_path)


def test_fusion_without_tokenizer_says_so():
    fusion = CharFusion(4, {"out_dim": 2})
    with pytest.raises(RuntimeError, match="tokenizer"):
        fusion.char_inputs(torch.ones(1, 3, dtype=torch.long), torch.ones(1, 3))


def test_char_gain_scales_the_character_part_and_round_trips(tiny_model_dir, tmp_path):
    torch.manual_seed(0)
    model = build_pearl_model(str(tiny_model_dir), {"out_dim": 8, "dim": 16}, char_gain=True)
    fusion = fusion_module(model)
    assert fusion.char_scale == 1.0  # starts as the plain concatenation
    before = model.encode(TEXTS)
    with torch.no_grad():
        fusion.char_log_scale.fill_(float(np.log(3.0)))
    after = model.encode(TEXTS)
    np.testing.assert_allclose(after[:, :32], before[:, :32], atol=1e-6)
    np.testing.assert_allclose(after[:, 32:], 3.0 * before[:, 32:], rtol=1e-4, atol=1e-6)
    save_model(model, tmp_path / "gain")
    loaded = load_pearl_model(tmp_path / "gain")
    assert fusion_module(loaded).char_scale == pytest.approx(3.0)
    np.testing.assert_allclose(loaded.encode(TEXTS), after, atol=1e-5)


def test_without_char_gain_there_is_no_scale_parameter(tiny_model_dir):
    fusion = fusion_module(build_pearl_model(str(tiny_model_dir), {"out_dim": 8}))
    assert fusion.char_log_scale is None and fusion.char_scale == 1.0
    assert not any("char_log_scale" in k for k in fusion.state_dict())


def test_char_share_fixes_the_character_parts_share_and_round_trips(tiny_model_dir, tmp_path):
    torch.manual_seed(0)
    model = build_pearl_model(str(tiny_model_dir), {"out_dim": 8, "dim": 16}, char_share=0.3)
    emb = model.encode(TEXTS)
    assert emb.shape == (len(TEXTS), 40)
    phrase, char = emb[:, :32], emb[:, 32:]
    live = np.linalg.norm(char, axis=1) > 0
    assert live.sum() >= 4
    np.testing.assert_allclose((phrase**2).sum(1), 0.7, rtol=1e-5)
    np.testing.assert_allclose((char[live] ** 2).sum(1), 0.3, rtol=1e-5)
    # so a cosine of two outputs is the weighted mean of the parts' cosines
    plain = build_pearl_model(str(tiny_model_dir), {"out_dim": 8, "dim": 16})
    plain.load_state_dict(model.state_dict())
    raw = plain.encode(TEXTS[:2])
    unit = [
        raw[:, sl] / np.linalg.norm(raw[:, sl], axis=1, keepdims=True)
        for sl in (slice(0, 32), slice(32, 40))
    ]
    expected = 0.7 * unit[0][0] @ unit[0][1] + 0.3 * unit[1][0] @ unit[1][1]
    assert emb[0] @ emb[1] == pytest.approx(expected, abs=1e-5)
    save_model(model, tmp_path / "share")
    loaded = load_pearl_model(tmp_path / "share")
    assert fusion_module(loaded).char_share == pytest.approx(0.3)
    np.testing.assert_allclose(loaded.encode(TEXTS), emb, atol=1e-5)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"char_share": 1.0},
        {"char_share": -0.1},
        {"char_share": 0.3, "char_gain": True},
        {"char_share": 0.3, "output_dim": 12},
        {"char_share": 0.3, "use_chars": False},
    ],
)
def test_char_share_out_of_range_or_with_another_weighting_is_refused(tiny_model_dir, kwargs):
    with pytest.raises(ValueError, match="char_share"):
        build_pearl_model(str(tiny_model_dir), {"out_dim": 8}, **kwargs)
