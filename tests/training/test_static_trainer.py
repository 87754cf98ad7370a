import numpy as np
import pytest
import torch
from conftest import HashEncoder

from pearl import PhraseEncoder
from pearl.models.static import StaticPhraseEmbedding
from pearl.training.static import StaticConfig, StaticTrainer
from pearl.training.teacher import encode_teacher


def _module(tiny_model_dir):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tiny_model_dir / "tokenizer.json"))
    torch.manual_seed(0)
    return StaticPhraseEmbedding(
        tok, embedding_weights=torch.randn(tok.get_vocab_size(), 16), n_buckets=256
    )


def _config(files, out, **kw):
    return StaticConfig(
        **{
            "output": str(out),
            "batch_size": 4,
            "hard_negatives": 2,
            "max_steps": 6,
            "checkpoint_every": 2,
            **files,
            **kw,
        }
    )


def test_static_training_learns_the_ngrams_and_saves_a_folder(
    training_files, tiny_model_dir, tmp_path
):
    module = _module(tiny_model_dir)
    before = module.embedding.weight.detach().clone()
    result = StaticTrainer(
        _config(training_files, tmp_path / "m"), show_progress_bar=False, module=module
    ).train()
    out = result.output  # a TrainResult, as Trainer.train returns
    assert result.steps == result.total_steps and not result.interrupted
    assert {"contrastive", "type", "loss", "step"} <= set(result.history[-1])
    assert module.ngrams.weight.abs().sum() > 0  # trained from zero
    enc = PhraseEncoder(out)
    emb = enc.encode(["The New York Times", "The New York Timse"])
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, rtol=1e-3)
    assert not torch.equal(module.embedding.weight, before)  # averaged, not the original
    assert (out / "training" / "loss.tsv").is_file()


def test_static_resume_ends_on_the_same_weights(training_files, tiny_model_dir, tmp_path):
    StaticTrainer(
        _config(training_files, tmp_path / "a"),
        show_progress_bar=False,
        module=_module(tiny_model_dir),
    ).train()
    half = _config(training_files, tmp_path / "b", max_steps=4)
    StaticTrainer(half, show_progress_bar=False, module=_module(tiny_model_dir)).train()
    with pytest.raises(FileExistsError, match="--resume"):  # never over its checkpoint
        StaticTrainer(half, show_progress_bar=False, module=_module(tiny_model_dir)).train()
    StaticTrainer(
        _config(training_files, tmp_path / "b"),
        show_progress_bar=False,
        module=_module(tiny_model_dir),
    ).train(resume=True)
    a = PhraseEncoder(tmp_path / "a").encode(["Albert Einstein", "Paris"])
    b = PhraseEncoder(tmp_path / "b").encode(["Albert Einstein", "Paris"])
    np.testing.assert_array_equal(a, b)


def test_a_static_checkpoint_keeps_its_layout_and_time(training_files, tiny_model_dir, tmp_path):
    from pearl.training.checkpoint import STATE, load_checkpoint

    config = _config(training_files, tmp_path / "m", max_steps=2)
    StaticTrainer(config, show_progress_bar=False, module=_module(tiny_model_dir)).train()
    saved = load_checkpoint(config.checkpoints / STATE)
    # the layout of checkpoints written before: those still resume
    assert {k.split(".")[0] for k in saved.model} == {"module", "head", "initial"}
    assert saved.model["initial"].shape == saved.model["module.embedding.weight"].shape
    assert saved.step == 2 and saved.seconds > 0


def test_static_training_with_a_teacher_fits_its_similarities(
    training_files, tiny_model_dir, tmp_path
):
    from pearl.data.corpus import read_corpus
    from pearl.losses import similarity_distillation

    teacher = encode_teacher(
        training_files["corpus"], tmp_path / "t", model=HashEncoder(), show_progress_bar=False
    )
    phrases = [r.phrase for r in read_corpus(training_files["corpus"])]
    target = torch.from_numpy(HashEncoder().encode(phrases))

    def kl(folder) -> float:
        return similarity_distillation(
            torch.from_numpy(PhraseEncoder(folder).encode(phrases)), target
        ).item()

    opts = dict(
        type_loss=False,
        epochs=200.0,
        max_steps=60,
        checkpoint_every=60,
        lr=0.05,
        average_weight=0.0,
    )
    StaticTrainer(
        _config(training_files, tmp_path / "m", teacher=str(teacher), distill_weight=5.0, **opts),
        show_progress_bar=False,
        module=_module(tiny_model_dir),
    ).train()
    StaticTrainer(
        _config(training_files, tmp_path / "plain", **opts),
        show_progress_bar=False,
        module=_module(tiny_model_dir),
    ).train()
    StaticTrainer(
        _config(training_files, tmp_path / "none", max_steps=1, lr=1e-9),
        show_progress_bar=False,
        module=_module(tiny_model_dir),
    ).train()
    header = (tmp_path / "m" / "training" / "loss.tsv").read_text().split("\n")[0]
    assert "distill" in header.split("\t")
    assert kl(tmp_path / "m") < 0.7 * kl(tmp_path / "none")
    assert kl(tmp_path / "m") < 0.7 * kl(tmp_path / "plain")


def test_static_training_refuses_a_teacher_without_the_corpus(
    training_files, tiny_model_dir, tmp_path
):
    teacher = encode_teacher(
        training_files["corpus"],
        tmp_path / "t",
        model=HashEncoder(),
        limit=2,
        show_progress_bar=False,
    )
    cfg = _config(training_files, tmp_path / "m", teacher=str(teacher))
    with pytest.raises(KeyError, match="pearl teacher"):
        StaticTrainer(cfg, show_progress_bar=False, module=_module(tiny_model_dir)).train()
    assert not (tmp_path / "m").exists()


def test_static_config_is_checked():
    with pytest.raises(TypeError, match="batch_size"):
        StaticConfig(batch_size=8.5)
    with pytest.raises(ValueError, match="save_dtype"):
        StaticConfig(save_dtype="int8")
    with pytest.raises(ValueError, match="distill"):
        StaticConfig(distill_weight=-1.0)
    with pytest.raises(ValueError, match="distill_temperature"):
        StaticConfig(distill_temperature=0.0)


def test_static_training_stops_on_sigint_with_a_checkpoint(
    training_files, tiny_model_dir, tmp_path
):
    import os
    import signal

    def interrupt(trainer, step, record):
        if step == 3:
            os.kill(os.getpid(), signal.SIGINT)

    cfg = _config(training_files, tmp_path / "b")
    before = signal.getsignal(signal.SIGINT)
    cut = StaticTrainer(
        cfg, show_progress_bar=False, module=_module(tiny_model_dir), on_step=interrupt
    ).train()
    assert cut.interrupted and cut.steps == 3 and cut.output is None
    assert (cfg.checkpoints / "state.safetensors").is_file()
    assert not (tmp_path / "b").exists()
    assert signal.getsignal(signal.SIGINT) is before
    StaticTrainer(cfg, show_progress_bar=False, module=_module(tiny_model_dir)).train(resume=True)
    StaticTrainer(
        _config(training_files, tmp_path / "a"),
        show_progress_bar=False,
        module=_module(tiny_model_dir),
    ).train()
    a = PhraseEncoder(tmp_path / "a").encode(["Albert Einstein", "Paris"])
    b = PhraseEncoder(tmp_path / "b").encode(["Albert Einstein", "Paris"])
    np.testing.assert_array_equal(a, b)


def test_static_training_depends_on_its_seed_not_on_earlier_random_draws(
    training_files, tiny_model_dir, tmp_path
):
    # the type head was made before the trainer seeded torch, so whatever drew random
    # numbers before training (model2vec's distillation, other code in the process)
    # changed the trained weights
    def train(out, draws):
        module = _module(tiny_model_dir)
        torch.rand(draws)
        StaticTrainer(_config(training_files, out), show_progress_bar=False, module=module).train()
        return (out / "pearl_static.safetensors").read_bytes()

    assert train(tmp_path / "a", 1) == train(tmp_path / "b", 1000)
