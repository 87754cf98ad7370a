import json

import pytest

from pearl.cli import main
from pearl.evaluation.model_card import write_model_card
from pearl.training import Trainer, load_config


def test_card_gathers_recipe_and_benchmark_rows(training_files, tiny_model_dir, tmp_path):
    out = tmp_path / "pearl-tiny"
    cfg = load_config(
        None,
        dict(
            training_files,
            backbone=str(tiny_model_dir),
            output=str(out),
            batch_size=4,
            max_steps=2,
            char_pretrain_steps=2,
            char_out_dim=8,
        ),
    )
    Trainer(cfg, show_progress_bar=False).train()
    # pearl train wrote its recipe's card (not sentence-transformers' generic one)
    written = (out / "README.md").read_text()
    assert "# pearl-tiny" in written and "A PEARL phrase encoder trained with pearl" in written
    assert "# SentenceTransformer" not in written and 'PhraseEncoder("./pearl-tiny")' in written
    results = tmp_path / "results"
    results.mkdir()
    for name, score in (("pearl-tiny", 50.0), (str(tiny_model_dir), 40.0)):
        task = {"status": "ok", "score": score, "wall_time_s": 1.0}
        (results / f"{abs(hash(name))}.json").write_text(
            json.dumps({"model": name, "parameters": 1, "tasks": {"bird": task}, "averages": {}})
        )
    card = write_model_card(out, results, train_seconds=120, command="pearl train -c x")
    text = card.read_text()
    assert "# pearl-tiny" in text and "2 steps, batch 4" in text
    assert "pearl train -c x" in text and "2 min" in text
    assert "| pearl-tiny |" in text and "50.0" in text and "40.0" in text
    assert "`Normalize`" in text
    assert "Then fine-tuned by" not in text
    # a pearl finetune stage after training is told in the card
    stage = dict(groups=3, strings=5, loss="ms", batch_size=4, per_group=2, lr=2e-5)
    stage.update(epochs_run=2, validation=0.1, best_epoch=1, average_weight=0.5, seconds=3.0)
    (out / "training" / "finetune.json").write_text(json.dumps(stage))
    text = write_model_card(out, results).read_text()
    assert "Then fine-tuned by `pearl finetune` on 3 groups of 5 strings" in text


def test_card_needs_a_trained_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="pearl train"):
        write_model_card(tmp_path)


def test_cli_writes_the_card(training_files, tiny_model_dir, tmp_path, capsys):
    out = tmp_path / "pearl-tiny"
    cfg = load_config(
        None,
        dict(
            training_files,
            backbone=str(tiny_model_dir),
            output=str(out),
            batch_size=4,
            max_steps=1,
            char_pretrain_steps=1,
            char_out_dim=8,
        ),
    )
    Trainer(cfg, show_progress_bar=False).train()
    (out / "README.md").unlink(missing_ok=True)
    assert main(["model-card", str(out), "--command", "pearl train -c y"]) == 0
    assert "pearl train -c y" in (out / "README.md").read_text()
    assert str(out / "README.md") in capsys.readouterr().out


def test_static_card_names_the_teacher(training_files, tiny_model_dir, tmp_path):
    import torch
    from conftest import HashEncoder
    from tokenizers import Tokenizer

    from pearl.evaluation.model_card import write_static_model_card
    from pearl.models.static import StaticPhraseEmbedding
    from pearl.training.static import StaticConfig, StaticTrainer
    from pearl.training.teacher import encode_teacher

    tok = Tokenizer.from_file(str(tiny_model_dir / "tokenizer.json"))
    module = StaticPhraseEmbedding(
        tok, embedding_weights=torch.randn(tok.get_vocab_size(), 8), n_buckets=64
    )
    teacher = encode_teacher(
        training_files["corpus"], tmp_path / "t", model=HashEncoder(), show_progress_bar=False
    )
    out = tmp_path / "static-tiny"
    cfg = StaticConfig(
        **training_files,
        output=str(out),
        batch_size=4,
        hard_negatives=2,
        max_steps=2,
        teacher=str(teacher),
        distill_weight=0.5,
    )
    StaticTrainer(cfg, show_progress_bar=False, module=module).train()
    written = (out / "README.md").read_text()  # pearl train-static wrote the card itself
    text = write_static_model_card(out).read_text()
    assert written == text
    assert "# static-tiny" in text and "distillation of the in-batch similarities" in text
    assert f"`{teacher}`" in text and "weight 0.5" in text
    # a fine-tuning stage after it: stored in float16, its record beside the first stage's,
    # and both stages in the card
    import pandas as pd

    pairs = tmp_path / "groups.csv"
    pd.DataFrame(
        {
            "text": ["Acme Inc", "ACME Inc.", "Globex", "Globex Corp", "Hooli"],
            "group": [0, 0, 1, 1, 2],
        }
    ).to_csv(pairs, index=False)
    tuned = tmp_path / "static-tuned"
    assert (
        main(
            [
                "finetune",
                str(pairs),
                "-m",
                str(out),
                "-o",
                str(tuned),
                "--epochs",
                "1",
                "-b",
                "4",
                "--lr",
                "1e-3",
                "--validation",
                "0",
                "--save-dtype",
                "float16",
                "-q",
            ]
        )
        == 0
    )
    from safetensors import safe_open

    with safe_open(str(tuned / "pearl_static.safetensors"), "pt") as f:
        assert {f.get_tensor(k).dtype for k in f.keys()} == {torch.float16}
    record = json.loads((tuned / "training" / "finetune.json").read_text())
    assert record["start"] == str(out) and record["groups"] == 3 and record["strings"] == 5
    assert record["save_dtype"] == "float16" and record["command"].startswith("pearl finetune")
    assert (tuned / "training" / "config.json").read_text() == (
        out / "training" / "config.json"
    ).read_text()
    written = (tuned / "README.md").read_text()  # pearl finetune wrote the card itself
    text = write_static_model_card(tuned).read_text()
    assert written == text and 'PhraseEncoder("./static-tuned")' in text
    assert "`pearl train-static -c configs/pearl-static.toml`" in text
    assert "Then fine-tuned by `pearl finetune` on 3 groups of 5 strings" in text
    assert f"`{record['command']}`" in text


def test_shipped_cards_come_from_the_templates():
    """Each shipped card is the template rendered (no field left, no link that only works
    inside the repository), and only the default model's card says it is the default."""
    import pearl
    from pearl.encoders.resolve import PRETRAINED, SHIPPED

    for name in SHIPPED:
        text = (PRETRAINED / name / "README.md").read_text(encoding="utf-8")
        assert "${" not in text and "../../" not in text
        assert f'pearl.PhraseEncoder("{name}")' in text
        assert ("pearl's default model" in text) == (name == pearl.DEFAULT_MODEL), name


def test_card_says_default_only_for_the_default(
    training_files, tiny_model_dir, tmp_path, monkeypatch
):
    from pearl.evaluation import model_card

    out = tmp_path / "pearl-tiny"
    cfg = load_config(
        None,
        dict(
            training_files,
            backbone=str(tiny_model_dir),
            output=str(out),
            batch_size=4,
            max_steps=1,
            char_pretrain_steps=1,
            char_out_dim=8,
        ),
    )
    Trainer(cfg, show_progress_bar=False).train()
    assert "default model" not in write_model_card(out).read_text()
    monkeypatch.setattr(model_card, "DEFAULT_MODEL", "pearl-tiny")
    assert "pearl's default model" in write_model_card(out).read_text()


def test_avg7_line_compares_like_with_like():
    from pearl.evaluation.model_card import _avg7_comparison
    from pearl.evaluation.tasks import PAPER_OWN_TASKS

    def record(score, ppdb, runs=None):
        tasks = {k: {"status": "ok", "score": score} for k in PAPER_OWN_TASKS}
        details = {"runs": runs, "first_run": runs[0]} if runs else {}
        tasks["ppdb"] = {"status": "ok", "score": ppdb, "details": details}
        mean = (score * (len(PAPER_OWN_TASKS) - 1) + ppdb) / len(PAPER_OWN_TASKS)
        return {"tasks": tasks, "averages": {"avg7": mean}}

    single = record(60.0, 95.0)
    five = record(67.0, 95.0, runs=[88.0, 99.0, 99.0, 98.0, 91.0])
    (line,) = _avg7_comparison(single, record(67.0, 95.0))
    assert line.startswith("Avg-7 against the backbone: +6.0 points")
    (line,) = _avg7_comparison(single, five)
    # seed-0 probe: PPDB 88 instead of 95, so 1 point lower on the mean of 7
    assert "seed-0 probe" in line and "+5.0 points" in line
