import random

import numpy as np
import pytest

from pearl.augment.phrase_bert import make_triplets, read_triplets, replace_one_word
from pearl.augment.sampler import read_augmented


def test_replace_one_word_keeps_stopwords_and_changes_one_word():
    rng = random.Random(0)
    out = replace_one_word("the price of oil", ["banana", "river"], rng)
    toks = out.split()
    assert toks[0] == "the" and toks[2] == "of" and len(toks) == 4
    assert sum(a != b for a, b in zip(toks, "the price of oil".split(), strict=True)) == 1
    assert replace_one_word("of the", ["banana"], rng) is None
    assert replace_one_word("oil", [], rng) is None


def test_negative_goes_through_the_positive_augmenter(tmp_path):
    rows = [("big apple pie", "BIG APPLE PIE", "upper"), ("red river", "red rivers", "plural")]
    augs = {"upper": lambda p, rng: p.upper(), "plural": lambda p, rng: None}
    path = make_triplets(
        rows, augs, ["stone", "cloud"], tmp_path / "t.tsv", show_progress_bar=False
    )
    got = read_triplets(path)
    assert [r[0] for r in got] == ["big apple pie", "red river"]
    assert got[0][2].isupper() and got[0][2] != "BIG APPLE PIE"  # same augmenter applied
    assert len(got[1][2].split()) == 2  # the augmenter did not apply: the replaced phrase
    (tmp_path / "bad.tsv").write_text("a\tb\n")
    with pytest.raises(ValueError, match="triplet"):
        read_triplets(tmp_path / "bad.tsv")


def test_phrase_bert_objective_trains_on_triplets(
    training_files, tiny_model_dir, tmp_path, monkeypatch
):
    from pearl.training import Trainer, load_config, objective

    rows = read_augmented(training_files["augmented"])
    triplets = make_triplets(
        rows, {}, ["stone", "cloud", "lamp"], tmp_path / "t.tsv", show_progress_bar=False
    )
    calls = []
    real = objective.triplet_loss

    def spy(a, p, n, margin):
        calls.append((a.shape, n.shape, margin))
        return real(a, p, n, margin)

    monkeypatch.setattr(objective, "triplet_loss", spy)
    cfg = load_config(
        None,
        dict(
            training_files,
            backbone=str(tiny_model_dir),
            output=str(tmp_path / "m"),
            batch_size=4,
            max_steps=2,
            char_pretrain_steps=1,
            char_out_dim=8,
            objective="phrase-bert",
            triplets=str(triplets),
        ),
    )
    result = Trainer(cfg, show_progress_bar=False).train()
    assert len(calls) == 2 and all(a == n for a, n, _ in calls) and calls[0][2] == 1.0
    assert all(np.isfinite(r["contrastive"]) for r in result.history)
    with pytest.raises(ValueError, match="triplets"):
        load_config(None, dict(training_files, objective="phrase-bert"))
