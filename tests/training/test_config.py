from pathlib import Path

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
    with pytest.raises(ValueError, match="^lr: expected a number, got 'fast'$"):
        load_config(None, {"lr": "fast"})
    with pytest.raises(ValueError, match="^batch_size: expected an integer, got 'many'$"):
        load_config(None, {"batch_size": "many"})
    with pytest.raises(ValueError, match="char_share"):
        TrainConfig(char_share=0.99)
    with pytest.raises(ValueError, match="char_share"):
        TrainConfig(char_share=0.3, char_gain=True)
    assert load_config(None, {"char_share": "0.3"}).char_share == 0.3


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


OLD_MINILM = """
backbone = "all-MiniLM-L6-v2"
corpus = "data_out/corpus/corpus.tsv"
augmented = "data_out/augmented.tsv"
negatives = "data_out/hard_negatives.tsv"
output = "models/pearl-minilm"
[model]
char_out_dim = 128
char_dim = 64
max_seq_length = 32
use_chars = true
[char_pretraining]
char_pretrain_steps = 1500
char_pretrain_words = 30000
char_pretrain_batch = 256
char_pretrain_lr = 2e-3
[objective]
temperature = 0.07
hard_negatives = 2
type_loss = true
type_weight = 1.0
type_contrastive_weight = 0.2
type_batch_share = 0.25
[augmentation]
char_aug = true
token_aug = true
phrase_aug = true
augmenter_weights = { mined_paraphrase = 0.25, acronym = 0.35 }
[optimisation]
batch_size = 128
epochs = 2.0
max_steps = 0
lr = 3e-5
char_lr = 1e-3
lr_decay = 0.98
decay_steps = 2000
seed = 0
[end]
average = true
average_weight = 0.5
save_dtype = "float16"
normalize = true
[bookkeeping]
checkpoint_every = 200
threads = 2
"""

OLD_STATIC = """
backbone = "all-MiniLM-L6-v2"
corpus = "data_out/corpus/corpus.tsv"
augmented = "data_out/augmented-static.tsv"
negatives = "data_out/hard_negatives-static.tsv"
output = "models/pearl-static"
[model]
pca_dims = 256
n_buckets = 16384
[objective]
temperature = 0.07
hard_negatives = 256
type_loss = true
type_weight = 1.0
teacher = "data_out/teacher-pearl-minilm"
distill_weight = 1.0
distill_temperature = 0.05
[optimisation]
batch_size = 2048
epochs = 4.0
lr = 0.002
seed = 0
[end]
average_weight = 0.5
save_dtype = "float16"
checkpoint_every = 100
"""


@pytest.mark.parametrize(
    "old, name, kind",
    [(OLD_MINILM, "pearl-minilm.toml", "train"), (OLD_STATIC, "pearl-static.toml", "static")],
)
def test_the_flat_files_of_before_load_as_the_sectioned_recipes(old, name, kind, tmp_path):
    import warnings

    from pearl.training.static import StaticConfig

    cls = StaticConfig if kind == "static" else TrainConfig
    path = tmp_path / "old.toml"
    path.write_text(old)
    with pytest.warns(FutureWarning, match=r"checkpoint_every -> \[output\]"):
        before = load_config(path, config_class=cls)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the shipped recipes sit in their sections
        now = load_config(Path(__file__).parents[2] / "configs" / name, config_class=cls)
    assert now == before


def test_the_objective_as_a_list_of_loss_specs(tmp_path):
    from pearl.training.loss_specs import flat_options, loss_specs

    path = tmp_path / "c.toml"
    path.write_text(
        '[[objective]]\nloss = "triplet"\nmargin = 0.5\n'
        '[[objective]]\nloss = "type_contrastive"\nweight = 0.3\ngroup_size = 3\n'
    )
    cfg = load_config(path)
    assert cfg.objective == "triplet" and cfg.margin == 0.5
    assert not cfg.type_loss  # left out of the list: off
    assert cfg.type_contrastive_weight == 0.3 and cfg.type_group_size == 3
    assert [s["loss"] for s in loss_specs(cfg)] == ["triplet", "type_contrastive"]
    # a configuration's specs give its options back
    default = TrainConfig()
    again = TrainConfig(**flat_options(loss_specs(default), set(default.to_dict())))
    assert again == default
    for text, error in (
        ('[[objective]]\nloss = "type"\n', "first loss"),
        ('[[objective]]\nloss = "infonce"\n[[objective]]\nloss = "focal"\n', "unknown loss"),
        ('[[objective]]\nloss = "infonce"\nweight = 2.0\n', "no option 'weight'"),
        ('[[objective]]\nloss = "infonce"\n[[objective]]\nloss = "infonce"\n', "twice"),
        ('temperature = 0.1\n[[objective]]\nloss = "infonce"\ntemperature = 0.2\n', "both"),
    ):
        path.write_text(text)
        with pytest.raises(ValueError, match=error):
            load_config(path)
