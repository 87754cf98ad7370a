import pytest

from pearl.training import TrainConfig, load_config


def test_toml_tables_and_overrides(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text(
        'backbone = "x"\n[objective]\nhard_negatives = 3\ntype_loss = false\n'
        "[augmentation]\naugmenter_weights = { acronym = 0.5 }\n"
    )
    cfg = load_config(path, {"batch_size": "64", "char_aug": "off", "lr": "1e-4"})
    assert cfg.backbone == "x" and cfg.hard_negatives == 3 and cfg.type_loss is False
    assert cfg.augmenter_weights == {"acronym": 0.5}
    assert cfg.batch_size == 64 and cfg.lr == 1e-4
    assert cfg.levels == {"token", "phrase"}


def test_paper_defaults():
    cfg = TrainConfig()
    assert (
        cfg.temperature,
        cfg.hard_negatives,
        cfg.lr,
        cfg.lr_decay,
        cfg.decay_steps,
        cfg.average_weight,
        cfg.batch_size,
    ) == (0.07, 2, 3e-5, 0.98, 2000, 0.5, 512)


def test_unknown_option_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="unknown training option.*batchsize"):
        load_config(None, {"batchsize": 3})


def test_bad_values():
    with pytest.raises(ValueError, match="batch_size"):
        TrainConfig(batch_size=1)
    with pytest.raises(ValueError, match="average_weight"):
        TrainConfig(average_weight=2)
    with pytest.raises(ValueError, match="boolean"):
        load_config(None, {"type_loss": "maybe"})


def test_missing_config_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="config file"):
        load_config(tmp_path / "nope.toml")


def test_shipped_config_parses():
    from pathlib import Path

    cfg = load_config(Path(__file__).parents[2] / "configs" / "pearl-minilm.toml")
    assert cfg.backbone == "all-MiniLM-L6-v2" and cfg.save_dtype == "float16"


def test_shipped_config_is_the_shipped_models_recipe():
    """configs/pearl-minilm.toml gives the training config recorded in the shipped folder."""
    import dataclasses
    import json
    from pathlib import Path

    from pearl.training.config import RETIRED

    root = Path(__file__).parents[2]
    recorded = json.loads(
        (root / "src/pearl/pretrained/pearl-minilm/training/config.json").read_text()
    )
    cfg = dataclasses.asdict(load_config(root / "configs" / "pearl-minilm.toml"))
    run_facts = {"output", "training_pairs", "total_steps", "train_seconds"}
    differing = {
        k for k, v in recorded.items() if k not in run_facts and cfg.get(k, RETIRED.get(k)) != v
    }
    assert differing == set()
