import numpy as np
import torch

from pearl import PhraseEncoder
from pearl.models import build_pearl_model, encode_chars, fusion_module
from pearl.models.raw_text import CHAR_IDS, RawTextTransformer
from pearl.training.saving import save_model

TEXTS = ["The New York Times", "nytimes.com", "NYTimes", "Café Zürich 🚀", ""]


def _naive_chars(texts, max_chars):
    rows = [list(t.encode("utf-8")[:max_chars]) for t in texts]
    width = max((len(r) for r in rows), default=0) or 1
    out = torch.zeros(len(rows), width, dtype=torch.long)
    for i, r in enumerate(rows):
        if r:
            out[i, : len(r)] = torch.tensor(r) + 2
    return out


def test_encode_chars_matches_a_per_row_reference():
    for texts in (TEXTS, ["", ""], [], ["x" * 200, "é" * 40]):
        assert torch.equal(encode_chars(texts, 64), _naive_chars(texts, 64))


def test_the_character_encoder_reads_the_typed_text(tiny_model_dir):
    torch.manual_seed(0)
    model = build_pearl_model(str(tiny_model_dir), {"out_dim": 8}, raw_text=True)
    assert isinstance(model[0], RawTextTransformer)
    feats = model.preprocess(["NYTimes.com", "x"])
    chars, _ = fusion_module(model).char_inputs(
        feats["input_ids"], feats["attention_mask"], feats[CHAR_IDS]
    )
    assert bytes((chars[0][chars[0] > 0] - 2).tolist()).decode() == "NYTimes.com"
    # case reaches the character part (the uncased token ids are the same)
    emb = model.encode(["NYTimes", "nytimes"], output_value=None)
    assert torch.equal(emb[0]["input_ids"], emb[1]["input_ids"])
    assert not torch.allclose(emb[0]["char_embedding"], emb[1]["char_embedding"])
    decoded = build_pearl_model(str(tiny_model_dir), {"out_dim": 8})
    same = decoded.encode(["NYTimes", "nytimes"], output_value=None)
    assert torch.allclose(same[0]["char_embedding"], same[1]["char_embedding"])


def test_subword_ids_are_left_aligned_without_special_tokens(tiny_model_dir):
    model = build_pearl_model(str(tiny_model_dir), {"out_dim": 8}, raw_text=True)
    fusion = fusion_module(model)
    feats = model.preprocess(["New York", "", "the new york times"])
    _, sub = fusion.char_inputs(feats["input_ids"], feats["attention_mask"], feats[CHAR_IDS])
    special = set(model.tokenizer.all_special_ids)
    for row, ids, mask in zip(sub, feats["input_ids"], feats["attention_mask"], strict=True):
        expected = [
            i for i, m in zip(ids.tolist(), mask.tolist(), strict=True) if m and i not in special
        ]
        assert row.tolist() == expected + [0] * (len(row) - len(expected))


def test_raw_text_folder_round_trips(tiny_model_dir, tmp_path):
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    model = build_pearl_model(str(tiny_model_dir), {"out_dim": 8}, raw_text=True)
    save_model(model, tmp_path / "m", normalize=True)
    ours = PhraseEncoder(tmp_path / "m").encode(TEXTS)
    direct = SentenceTransformer(str(tmp_path / "m"), trust_remote_code=True).encode(TEXTS)
    np.testing.assert_allclose(ours, direct, atol=1e-6)
    np.testing.assert_allclose(ours, model.encode(TEXTS, normalize_embeddings=True), atol=1e-6)
    assert not np.allclose(ours[1], PhraseEncoder(tmp_path / "m").encode(["NYTIMES.COM"])[0])
