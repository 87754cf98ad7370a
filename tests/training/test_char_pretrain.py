import torch

from pearl.models import build_pearl_model
from pearl.training import pretrain_char_encoder, vocabulary


def test_vocabulary_ranks_words_by_frequency():
    words = vocabulary(["New York", "new york times", "York 2024", "x-ray"], 3)
    assert words == ["York", "New", "new"]
    assert "2024" not in vocabulary(["York 2024"], 10)


def test_pretraining_learns_to_mimic_the_backbone(tiny_model_dir):
    torch.manual_seed(0)
    model = build_pearl_model(str(tiny_model_dir), {"out_dim": 8, "dim": 16})
    words = ["paris", "london", "berlin", "madrid", "rome", "vienna", "oslo", "dublin"] * 2
    losses = pretrain_char_encoder(
        model, words, steps=60, batch_size=8, lr=5e-3, show_progress_bar=False
    )
    assert len(losses) == 60
    assert sum(losses[-10:]) / 10 < sum(losses[:10]) / 10
