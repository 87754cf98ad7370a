import json

import numpy as np
import pandas as pd
import pytest

from pearl import PhraseEncoder
from pearl.cli import main
from pearl.training.finetune import LabelledGroups, finetune, read_labelled

PAIRS = pd.DataFrame(
    {
        "left": [
            "Acme Inc",
            "ACME Incorporated",
            "Globex Corp",
            "Initech",
            "Umbrella Co",
            "Hooli",
            "Vandelay Industries",
            "Acme Inc",
        ],
        "right": [
            "ACME Incorporated",
            "Acme Corporation",
            "Globex Corporation",
            "Initech LLC",
            "Umbrella Company",
            "Hooli Inc",
            "Vandelay Ind.",
            "Globex Corp",
        ],
        "label": [1, 1, 1, 1, 1, 1, 1, 0],
    }
)


def test_finetune_saves_a_model_every_tool_loads(tiny_model_dir, tmp_path):
    res = finetune(
        LabelledGroups.from_frame(PAIRS),
        tmp_path / "ft",
        model=str(tiny_model_dir),
        epochs=3,
        batch_size=8,
        lr=1e-3,
        validation=0.3,
        patience=1,
        show_progress_bar=False,
    )
    assert 1 <= res.best_epoch <= res.epochs <= 3 and len(res.validation_top1) == res.epochs
    emb = PhraseEncoder(res.output).encode(["Acme Inc", "Hooli"])
    assert emb.shape == (2, 32) and np.allclose(np.linalg.norm(emb, axis=1), 1, atol=1e-5)
    with pytest.raises(ValueError, match="group of two"):
        finetune(
            LabelledGroups(["a", "b"], np.array([0, 1])),
            tmp_path / "x",
            model=str(tiny_model_dir),
            show_progress_bar=False,
        )


@pytest.mark.parametrize("loss", ["infonce", "triplet"])
def test_other_objectives_train(tiny_model_dir, tmp_path, loss):
    res = finetune(
        LabelledGroups.from_frame(PAIRS),
        tmp_path / loss,
        model=str(tiny_model_dir),
        loss=loss,
        epochs=1,
        batch_size=8,
        validation=0.0,
        show_progress_bar=False,
    )
    assert (res.output / "modules.json").is_file()


def test_cli_finetune_with_dev_threshold(tiny_model_dir, tmp_path, capsys):
    PAIRS.to_csv(tmp_path / "pairs.csv", index=False)
    dev = pd.DataFrame(
        {"left": ["Acme Inc", "Hooli"], "right": ["Acme Corporation", "Initech"], "label": [1, 0]}
    )
    dev.to_csv(tmp_path / "dev.csv", index=False)
    assert read_labelled(tmp_path / "pairs.csv").texts
    assert (
        main(
            [
                "finetune",
                str(tmp_path / "pairs.csv"),
                "-o",
                str(tmp_path / "m"),
                "-m",
                str(tiny_model_dir),
                "--epochs",
                "1",
                "-b",
                "8",
                "--dev",
                str(tmp_path / "dev.csv"),
                "--test",
                str(tmp_path / "dev.csv"),
                "-q",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["evaluation"]["test_pairs"] == 2 and out["evaluation"]["dev_accuracy"] >= 0.5


def test_cli_finetune_evaluates_a_bare_output_name(tiny_model_dir, tmp_path, capsys, monkeypatch):
    # "-o m": a folder in the working directory, not a model called "m" to look up
    monkeypatch.chdir(tmp_path)
    PAIRS.to_csv("pairs.csv", index=False)
    pd.DataFrame({"left": ["Acme Inc"], "right": ["Acme Corporation"], "label": [1]}).to_csv(
        "dev.csv", index=False
    )
    argv = ["finetune", "pairs.csv", "-o", "m", "-m", str(tiny_model_dir), "--epochs", "1"]
    assert main([*argv, "-b", "8", "--dev", "dev.csv", "-q"]) == 0
    assert "dev_accuracy" in json.loads(capsys.readouterr().out)["evaluation"]


@pytest.mark.parametrize("encoder", ["bilstm", "cnn"])
def test_finetune_trains_a_glove_encoder_without_a_transformer(tmp_path, encoder):
    res = finetune(
        LabelledGroups.from_frame(PAIRS),
        tmp_path / encoder,
        encoder=encoder,
        epochs=2,
        batch_size=8,
        validation=0.0,
        show_progress_bar=False,
    )
    enc = PhraseEncoder(res.output)
    emb = enc.encode(["Acme Inc", "ACME Incorporated", "Hooli"])
    assert emb.shape == (3, 300) and np.isfinite(emb).all()
    with pytest.raises(ValueError, match="encoder"):
        finetune(LabelledGroups.from_frame(PAIRS), tmp_path / "x", encoder="gru")


def test_cli_finetune_builds_a_cnn(tmp_path, capsys):
    path = tmp_path / "pairs.csv"
    PAIRS.to_csv(path, index=False)
    assert (
        main(
            [
                "finetune",
                str(path),
                "-o",
                str(tmp_path / "cnn"),
                "--encoder",
                "cnn",
                "--epochs",
                "1",
                "-b",
                "8",
                "--validation",
                "0",
                "-q",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["epochs"] == 1
    assert PhraseEncoder(tmp_path / "cnn").encode(["Hooli"]).shape == (1, 300)


def test_max_steps_caps_training_and_average_weight_keeps_the_original(tiny_model_dir, tmp_path):
    data = LabelledGroups.from_frame(PAIRS)
    res = finetune(
        data,
        tmp_path / "capped",
        model=str(tiny_model_dir),
        epochs=5,
        batch_size=4,
        lr=1e-2,
        validation=0.0,
        max_steps=1,
        show_progress_bar=False,
    )
    assert res.epochs == 1
    texts = ["Acme Inc", "Hooli", "Initech LLC"]
    original = PhraseEncoder(str(tiny_model_dir)).encode(texts)
    original /= np.linalg.norm(original, axis=1, keepdims=True)  # saved models normalise
    kept = finetune(
        data,
        tmp_path / "kept",
        model=str(tiny_model_dir),
        epochs=1,
        batch_size=8,
        lr=1e-2,
        validation=0.0,
        average_weight=1.0,
        show_progress_bar=False,
    )
    assert np.allclose(PhraseEncoder(kept.output).encode(texts), original, atol=1e-5)
    moved = PhraseEncoder(res.output).encode(texts)
    assert not np.allclose(moved, original, atol=1e-5)
    half = finetune(
        data,
        tmp_path / "half",
        model=str(tiny_model_dir),
        epochs=1,
        batch_size=4,
        lr=1e-2,
        validation=0.0,
        max_steps=1,
        average_weight=0.5,
        show_progress_bar=False,
    )
    between = PhraseEncoder(half.output).encode(texts)
    assert not np.allclose(between, original, atol=1e-5)
    assert not np.allclose(between, moved, atol=1e-5)
    with pytest.raises(ValueError, match="average_weight"):
        finetune(
            data,
            tmp_path / "bad",
            model=str(tiny_model_dir),
            average_weight=1.5,
            show_progress_bar=False,
        )


def test_a_static_model_learns_at_the_rate_of_vectors_by_default(tiny_model_dir, tmp_path):
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize
    from tokenizers import Tokenizer

    from pearl.models.static import StaticPhraseEmbedding

    tok = Tokenizer.from_file(str(tiny_model_dir / "tokenizer.json"))
    torch.manual_seed(0)
    static = StaticPhraseEmbedding(
        tok, embedding_weights=torch.randn(tok.get_vocab_size(), 16), n_buckets=128
    )
    SentenceTransformer(modules=[static, Normalize()]).save(str(tmp_path / "static"))
    kw = dict(epochs=1, batch_size=8, validation=0.0, show_progress_bar=False)
    data = LabelledGroups.from_frame(PAIRS)
    res = finetune(data, tmp_path / "s", model=str(tmp_path / "static"), **kw)
    record = json.loads((res.output / "training" / "finetune.json").read_text())
    assert record["lr"] == 1e-3  # 2e-5, a transformer's rate, barely moves a vector table
    res = finetune(data, tmp_path / "t", model=str(tiny_model_dir), **kw)
    assert json.loads((res.output / "training" / "finetune.json").read_text())["lr"] == 2e-5
    res = finetune(data, tmp_path / "u", model=str(tmp_path / "static"), lr=1e-4, **kw)
    assert json.loads((res.output / "training" / "finetune.json").read_text())["lr"] == 1e-4


def test_cli_finetune_checks_its_evaluation_pairs_before_training(tiny_model_dir, tmp_path, capsys):
    PAIRS.to_csv(tmp_path / "pairs.csv", index=False)
    bad = tmp_path / "bad.csv"
    bad.write_text("left,right,label\nAcme,ACME,yes\n")
    base = ["finetune", str(tmp_path / "pairs.csv"), "-m", str(tiny_model_dir), "-q"]
    base += ["--epochs", "1", "-b", "8"]
    for extra, message in (
        (["--dev", str(bad)], "label must be 0 or 1"),
        (["--dev", str(tmp_path / "pairs.csv"), "--test", str(bad)], "label must be 0 or 1"),
        (["--test", str(tmp_path / "pairs.csv")], "--test needs --dev"),
    ):
        assert main([*base, "-o", str(tmp_path / "m"), *extra]) == 2
        assert message in capsys.readouterr().err
        assert not (tmp_path / "m").exists()  # refused before any training
    # --dev alone is no longer ignored: its threshold and accuracy are reported
    assert main([*base, "-o", str(tmp_path / "m"), "--dev", str(tmp_path / "pairs.csv")]) == 0
    evaluation = json.loads(capsys.readouterr().out)["evaluation"]
    assert set(evaluation) == {"threshold", "dev_accuracy"}


def test_cli_finetune_reads_a_sectioned_config(tiny_model_dir, tmp_path):
    PAIRS.to_csv(tmp_path / "pairs.csv", index=False)
    config = tmp_path / "ft.toml"
    config.write_text(
        '[[objective]]\nloss = "infonce"\ntemperature = 0.1\n'
        "[optimisation]\nepochs = 5\nbatch_size = 8\n[data]\nvalidation = 0.0\n"
    )
    argv = ["finetune", str(tmp_path / "pairs.csv"), "-m", str(tiny_model_dir), "-q"]
    assert main([*argv, "-c", str(config), "--epochs", "1", "-o", str(tmp_path / "m")]) == 0
    record = json.loads((tmp_path / "m" / "training" / "finetune.json").read_text())
    text = json.dumps(record)
    assert '"loss": "infonce"' in text and '"temperature": 0.1' in text
    assert '"epochs": 1' in text and '"batch_size": 8' in text  # the command line wins
    before = config.read_bytes()
    assert main([*argv, "-c", str(config), "-o", str(config)]) == 2  # an input, never output
    assert config.read_bytes() == before


def test_a_fine_tuned_folder_gets_its_own_card_and_every_stage(tiny_model_dir, tmp_path):
    """sentence-transformers writes the starting model's card, unchanged, into a folder it
    saves without its own trainer: a fine-tuned model described as its start. The folder
    gets a card of its own, which names the start and tells each fine-tuning stage."""
    (tiny_model_dir / "README.md").write_text("# tiny-start\n\nTrained on a billion pairs.\n")
    kw = dict(epochs=1, batch_size=8, validation=0.0, show_progress_bar=False)
    data = LabelledGroups.from_frame(PAIRS)
    first = finetune(data, tmp_path / "first", model=str(tiny_model_dir), **kw).output
    card = (first / "README.md").read_text()
    assert "billion" not in card and card.count("\n# ") == 1 and "\n# first\n" in card
    assert f"base_model: {json.dumps(str(tiny_model_dir))}" in card
    assert "- Fine-tuned by `pearl finetune` on 6 groups of 13 strings" in card
    assert 'PhraseEncoder("./first")' in card
    # fine-tuned again: the first stage's record is kept, and both stages are told
    second = finetune(data, tmp_path / "second", model=str(first), lr=1e-4, **kw).output
    record = json.loads((second / "training" / "finetune.json").read_text())
    assert [r["start"] for r in record["earlier_stages"]] == [str(tiny_model_dir)]
    assert record["start"] == str(first) and record["lr"] == 1e-4
    card = (second / "README.md").read_text()
    assert card.count("fine-tuned by `pearl finetune` on 6 groups") == 1
    assert card.count("Fine-tuned by `pearl finetune` on 6 groups") == 1
    assert card.index("lr 2e-05") < card.index("lr 0.0001")
    # pearl model-card writes the same card again
    (second / "README.md").unlink()
    assert main(["model-card", str(second)]) == 0
    assert (second / "README.md").read_text() == card
