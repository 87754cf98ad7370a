import os
import signal

import numpy as np
import pytest
import torch
from safetensors.torch import load_file

from pearl import PhraseEncoder
from pearl.training import Trainer, average_weights, load_config
from pearl.training.objective import ContextLoss


def _config(files, backbone, output, **extra):
    opts = dict(
        files,
        backbone=str(backbone),
        output=str(output),
        batch_size=4,
        epochs=3,
        char_pretrain_steps=3,
        char_pretrain_batch=8,
        char_pretrain_words=50,
        checkpoint_every=2,
        char_out_dim=8,
        char_dim=16,
        max_seq_length=16,
        augmenter_weights="{}",
    )
    opts.update(extra)
    return load_config(None, opts)


def _weights(folder):
    out = {}
    for f in ("model.safetensors", "2_CharFusion/model.safetensors"):
        out.update({f"{f}:{k}": v for k, v in load_file(str(folder / f)).items()})
    return out


def test_full_run_writes_a_loadable_model_and_logs(training_files, tiny_model_dir, tmp_path):
    cfg = _config(training_files, tiny_model_dir, tmp_path / "model")
    result = Trainer(cfg, show_progress_bar=False).train()
    assert not result.interrupted and result.steps == result.total_steps == 9
    log = tmp_path / "model" / "training"
    assert (log / "loss.png").stat().st_size > 0
    assert len((log / "loss.tsv").read_text().splitlines()) == 10
    assert all(np.isfinite(r["loss"]) for r in result.history)
    emb = PhraseEncoder(tmp_path / "model").encode(["The New York Times", ""])
    assert emb.shape == (2, 40) and np.isfinite(emb).all()


def test_resume_reaches_the_same_weights(training_files, tiny_model_dir, tmp_path):
    Trainer(
        _config(training_files, tiny_model_dir, tmp_path / "a"), show_progress_bar=False
    ).train()

    def stop_at_5(trainer, step, record):
        if step == 5:
            trainer.request_stop()

    cfg = _config(training_files, tiny_model_dir, tmp_path / "b")
    first = Trainer(cfg, show_progress_bar=False, on_step=stop_at_5).train()
    assert first.interrupted and first.steps == 5 and first.output is None
    assert not (tmp_path / "b").exists()
    second = Trainer(cfg, show_progress_bar=False).train(resume=True)
    assert second.steps == 9 and len(second.history) == 9
    wa, wb = _weights(tmp_path / "a"), _weights(tmp_path / "b")
    assert wa.keys() == wb.keys()
    for k in wa:
        torch.testing.assert_close(wa[k], wb[k], rtol=0, atol=0, msg=k)


def test_an_interruption_before_the_first_checkpoint_keeps_the_char_pretraining(
    training_files, tiny_model_dir, tmp_path, monkeypatch
):
    Trainer(
        _config(training_files, tiny_model_dir, tmp_path / "a"), show_progress_bar=False
    ).train()
    import pearl.training.trainer as trainer_module

    calls = []
    real = trainer_module.pretrain_char_encoder
    monkeypatch.setattr(
        trainer_module, "pretrain_char_encoder", lambda *a, **k: calls.append(1) or real(*a, **k)
    )

    def killed_at_1(trainer, step, record):
        if step == 1:  # checkpoint_every=2: no interval checkpoint yet
            raise KeyboardInterrupt

    cfg = _config(training_files, tiny_model_dir, tmp_path / "b")
    with pytest.raises(KeyboardInterrupt):
        Trainer(cfg, show_progress_bar=False, on_step=killed_at_1).train()
    resumed = Trainer(cfg, show_progress_bar=False).train(resume=True)
    assert calls == [1] and resumed.steps == 9 and len(resumed.history) == 9
    wa, wb = _weights(tmp_path / "a"), _weights(tmp_path / "b")
    for k in wa:
        torch.testing.assert_close(wa[k], wb[k], rtol=0, atol=0, msg=k)


def test_a_finished_run_extended_by_resume_equals_the_longer_run(
    training_files, tiny_model_dir, tmp_path
):
    Trainer(
        _config(training_files, tiny_model_dir, tmp_path / "long", max_steps=7),
        show_progress_bar=False,
    ).train()
    Trainer(
        _config(training_files, tiny_model_dir, tmp_path / "ext", max_steps=4),
        show_progress_bar=False,
    ).train()
    longer = _config(training_files, tiny_model_dir, tmp_path / "ext", max_steps=7)
    result = Trainer(longer, show_progress_bar=False).train(resume=True)
    assert result.steps == 7 and len(result.history) == 7
    wa, wb = _weights(tmp_path / "long"), _weights(tmp_path / "ext")
    for k in wa:
        torch.testing.assert_close(wa[k], wb[k], rtol=0, atol=0, msg=k)


def test_a_stopped_run_finished_at_its_step_equals_the_run_of_that_length(
    training_files, tiny_model_dir, tmp_path
):
    # docs/training.md: a run stopped early is finished with --resume --set max_steps=N
    Trainer(
        _config(training_files, tiny_model_dir, tmp_path / "short", max_steps=4),
        show_progress_bar=False,
    ).train()

    def stop_at_4(trainer, step, record):
        if step == 4:
            trainer.request_stop()

    long = _config(training_files, tiny_model_dir, tmp_path / "cut", max_steps=7)
    assert Trainer(long, show_progress_bar=False, on_step=stop_at_4).train().interrupted
    at_4 = _config(training_files, tiny_model_dir, tmp_path / "cut", max_steps=4)
    result = Trainer(at_4, show_progress_bar=False).train(resume=True)
    assert not result.interrupted and result.steps == 4 and len(result.history) == 4
    wa, wb = _weights(tmp_path / "short"), _weights(tmp_path / "cut")
    for k in wa:
        torch.testing.assert_close(wa[k], wb[k], rtol=0, atol=0, msg=k)


def test_resume_cannot_shorten_a_run_past_its_checkpoint(training_files, tiny_model_dir, tmp_path):
    Trainer(
        _config(training_files, tiny_model_dir, tmp_path / "m", max_steps=6),
        show_progress_bar=False,
    ).train()
    shorter = _config(training_files, tiny_model_dir, tmp_path / "m", max_steps=3)
    with pytest.raises(ValueError, match="past the 3 steps"):
        Trainer(shorter, show_progress_bar=False).train(resume=True)


def test_saved_model_ends_with_normalize_unless_switched_off(
    training_files, tiny_model_dir, tmp_path
):
    Trainer(
        _config(training_files, tiny_model_dir, tmp_path / "unit", max_steps=2),
        show_progress_bar=False,
    ).train()
    emb = PhraseEncoder(tmp_path / "unit").encode(["The New York Times", "NYTimes"])
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, rtol=1e-5)
    assert "Normalize" in (tmp_path / "unit" / "modules.json").read_text()
    Trainer(
        _config(training_files, tiny_model_dir, tmp_path / "raw", max_steps=2, normalize=False),
        show_progress_bar=False,
    ).train()
    assert "Normalize" not in (tmp_path / "raw" / "modules.json").read_text()


def test_sigint_stops_with_a_checkpoint(training_files, tiny_model_dir, tmp_path):
    def interrupt(trainer, step, record):
        if step == 3:
            os.kill(os.getpid(), signal.SIGINT)

    cfg = _config(training_files, tiny_model_dir, tmp_path / "m")
    before = signal.getsignal(signal.SIGINT)  # SIG_IGN when run in the background
    result = Trainer(cfg, show_progress_bar=False, on_step=interrupt).train()
    assert result.interrupted and result.steps == 3
    assert (cfg.checkpoints / "state.safetensors").is_file()
    assert signal.getsignal(signal.SIGINT) is before  # the caller's handler is restored


def test_resume_with_another_configuration_is_refused(training_files, tiny_model_dir, tmp_path):
    def stop(trainer, step, record):
        trainer.request_stop()

    cfg = _config(training_files, tiny_model_dir, tmp_path / "m")
    Trainer(cfg, show_progress_bar=False, on_step=stop).train()
    other = _config(training_files, tiny_model_dir, tmp_path / "m", lr=1e-3)
    with pytest.raises(ValueError, match="different configuration.*lr"):
        Trainer(other, show_progress_bar=False).train(resume=True)


def test_a_retired_option_is_refused_not_ignored(training_files, tiny_model_dir, tmp_path):
    with pytest.raises(ValueError, match="type_balance were retired"):
        _config(training_files, tiny_model_dir, tmp_path / "m", type_balance=0.5)
    cfg = _config(training_files, tiny_model_dir, tmp_path / "m", max_steps=2)
    trainer = Trainer(cfg, show_progress_bar=False)
    saved = cfg.to_dict()
    trainer._check_resumable({**saved, "type_balance": 0.0})  # off: the same run
    with pytest.raises(ValueError, match="retired.*type_balance"):
        trainer._check_resumable({**saved, "type_balance": 0.5})


def test_triplet_objective_uses_the_triplet_loss(
    training_files, tiny_model_dir, tmp_path, monkeypatch
):
    from pearl.training import objective

    calls = []
    real = objective.batch_hard_triplet_loss

    def spy(*args, **kw):
        calls.append(args[3] if len(args) > 3 else kw.get("margin"))
        return real(*args, **kw)

    monkeypatch.setattr(objective, "batch_hard_triplet_loss", spy)
    monkeypatch.setattr(objective, "info_nce", None)  # must not be called
    cfg = _config(
        training_files, tiny_model_dir, tmp_path / "m", objective="triplet", margin=0.5, max_steps=2
    )
    result = Trainer(cfg, show_progress_bar=False).train()
    assert calls == [0.5, 0.5]
    assert all(np.isfinite(r["contrastive"]) and r["contrastive"] >= 0 for r in result.history)
    with pytest.raises(ValueError, match="objective"):
        _config(training_files, tiny_model_dir, tmp_path / "x", objective="mnrl")


def test_learned_char_gain_is_trained_logged_and_saved(training_files, tiny_model_dir, tmp_path):
    from pearl.models import fusion_module, load_pearl_model

    cfg = _config(
        training_files, tiny_model_dir, tmp_path / "m", char_gain=True, max_steps=4, char_lr=0.05
    )
    result = Trainer(cfg, show_progress_bar=False).train()
    scales = [r["char_scale"] for r in result.history]
    assert scales[-1] != 1.0  # the scale is a trained parameter
    header = (tmp_path / "m" / "training" / "loss.tsv").read_text().splitlines()[0]
    assert header.split("\t")[-1] == "char_scale"
    saved = fusion_module(load_pearl_model(tmp_path / "m")).char_scale
    # weight averaging mixes the log-scale with its start (0) like every other weight
    assert saved == pytest.approx(np.exp(0.5 * np.log(scales[-1])), rel=1e-5)


def test_a_fixed_char_share_is_trained_and_saved(training_files, tiny_model_dir, tmp_path):
    from pearl.models import fusion_module, load_pearl_model

    cfg = _config(
        training_files,
        tiny_model_dir,
        tmp_path / "m",
        char_kind="ngram_bag",
        char_share=0.4,
        max_steps=3,
    )
    Trainer(cfg, show_progress_bar=False).train()
    loaded = load_pearl_model(tmp_path / "m")
    assert fusion_module(loaded).char_share == pytest.approx(0.4)
    emb = loaded.encode(["The New York Times", "nytimes.com"], normalize_embeddings=False)
    char = emb[:, -fusion_module(loaded).char_encoder.config["out_dim"] :]
    np.testing.assert_allclose((char**2).sum(1), 0.4, rtol=1e-4)  # saved with Normalize


def test_every_component_can_be_switched_off(training_files, tiny_model_dir, tmp_path):
    cfg = _config(
        training_files,
        tiny_model_dir,
        tmp_path / "bare",
        use_chars=False,
        type_loss=False,
        hard_negatives=0,
        char_aug=False,
        token_aug=False,
        phrase_aug=False,
        average=False,
        max_steps=2,
    )
    result = Trainer(cfg, show_progress_bar=False).train()
    assert "type" not in result.history[0]
    assert PhraseEncoder(tmp_path / "bare").encode(["x"]).shape == (1, 32)


def test_weight_averaging():
    model = torch.nn.Linear(2, 2)
    initial = {k: torch.zeros_like(v) for k, v in model.state_dict().items()}
    before = {k: v.clone() for k, v in model.state_dict().items()}
    average_weights(model, initial, 0.25)
    for k, v in model.state_dict().items():
        torch.testing.assert_close(v, 0.75 * before[k])


def test_weight_averaging_of_the_transformer_only():
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2))
    initial = {k: torch.zeros_like(v) for k, v in model.state_dict().items()}
    before = {k: v.clone() for k, v in model.state_dict().items()}
    average_weights(model, initial, 0.5, scope="transformer")
    for k, v in model.state_dict().items():  # module 0 mixed, module 1 as trained
        torch.testing.assert_close(v, 0.5 * before[k] if k.startswith("0.") else before[k])
    with pytest.raises(ValueError, match="scope"):
        average_weights(model, initial, 0.5, scope="chars")
    with pytest.raises(ValueError, match="model of modules"):
        average_weights(torch.nn.Linear(2, 2), initial, 0.5, scope="transformer")


def test_a_finished_run_refinished_with_the_transformer_averaged_only(
    training_files, tiny_model_dir, tmp_path
):
    # the end of a finished run is re-done by a resume with other averaging options: the
    # transformer's weights as with full averaging, the character channel's as trained
    ckpt = tmp_path / "ckpt"
    runs = {}
    for name, extra in [
        ("all", {}),
        ("transformer", {"average_scope": "transformer"}),
        ("none", {"average": False}),
    ]:
        cfg = _config(
            training_files, tiny_model_dir, tmp_path / name, checkpoint_dir=str(ckpt), **extra
        )
        Trainer(cfg, show_progress_bar=False).train(resume=name != "all")
        runs[name] = _weights(tmp_path / name)
    chars = [k for k in runs["all"] if k.startswith("2_CharFusion") and "char_encoder" in k]
    others = [k for k in runs["all"] if k.startswith("model.safetensors")]
    assert chars and others
    for k in others:
        torch.testing.assert_close(runs["transformer"][k], runs["all"][k])
    for k in chars:
        torch.testing.assert_close(runs["transformer"][k], runs["none"][k])
    assert any(not torch.equal(runs["all"][k], runs["none"][k]) for k in chars)
    with pytest.raises(ValueError, match="average_scope"):
        _config(training_files, tiny_model_dir, tmp_path / "x", average_scope="chars")


def test_device_defaults_to_cuda_only_when_torch_sees_one(monkeypatch):
    from pearl.training.saving import resolve_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("") == torch.device("cpu")
    assert resolve_device("cpu") == torch.device("cpu")
    with pytest.raises(ValueError, match="no CUDA"):
        resolve_device("cuda")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device("") == torch.device("cuda")


def test_a_run_asked_for_a_missing_gpu_fails_before_training(
    training_files, tiny_model_dir, tmp_path, monkeypatch
):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    cfg = _config(training_files, tiny_model_dir, tmp_path / "m", device="cuda")
    with pytest.raises(ValueError, match="no CUDA"):
        Trainer(cfg, show_progress_bar=False).train()
    assert not (tmp_path / "m").exists()


def test_resume_may_change_the_device_option(training_files, tiny_model_dir, tmp_path):
    def stop_at_5(trainer, step, record):
        if step == 5:
            trainer.request_stop()

    cfg = _config(training_files, tiny_model_dir, tmp_path / "b", device="")
    assert Trainer(cfg, show_progress_bar=False, on_step=stop_at_5).train().interrupted
    cfg = _config(training_files, tiny_model_dir, tmp_path / "b", device="cpu")
    assert Trainer(cfg, show_progress_bar=False).train(resume=True).steps == 9


def test_context_objective_trains_on_the_phrases_that_have_a_context(
    training_files, tiny_model_dir, tmp_path
):
    from pearl.data.contexts import write_contexts
    from pearl.data.corpus import read_corpus

    phrases = [r.phrase for r in read_corpus(training_files["corpus"])]
    contexts = {p: f"we read [MASK] number {i} today" for i, p in enumerate(phrases[::2])}
    write_contexts(tmp_path / "ctx.tsv", contexts, phrases)
    cfg = _config(
        training_files,
        tiny_model_dir,
        tmp_path / "m",
        contexts=str(tmp_path / "ctx.tsv"),
        context_weight=0.5,
    )
    result = Trainer(cfg, show_progress_bar=False).train()
    values = [r["context"] for r in result.history if "context" in r]
    assert values and all(np.isfinite(v) and v >= 0 for v in values)
    assert "context" in (tmp_path / "m" / "training" / "loss.tsv").read_text().splitlines()[0]
    stranger = "not a training phrase"
    write_contexts(tmp_path / "none.tsv", {stranger: "[MASK]"}, [stranger])
    cfg = _config(
        training_files, tiny_model_dir, tmp_path / "n", contexts=str(tmp_path / "none.tsv")
    )
    with pytest.raises(ValueError, match="no training phrase has a context"):
        Trainer(cfg, show_progress_bar=False).train()


def test_max_contexts_caps_the_contexts_of_a_batch(training_files, tiny_model_dir, tmp_path):
    anchors = [f"phrase {i}" for i in range(10)]
    with_ctx = {a: f"context of [MASK] {a}" for a in anchors[::2]}  # rows 0, 2, 4, 6, 8
    for cap, rows in ((0, [0, 2, 4, 6, 8]), (3, [0, 2, 4]), (1, [])):
        got, texts = ContextLoss(with_ctx, weight=1.0, max_contexts=cap).rows(anchors)
        assert got == rows  # a single context is no triplet: none
        assert texts == [with_ctx[anchors[i]] for i in rows]


def test_type_contrastive_loss_trains_on_typed_groups(training_files, tiny_model_dir, tmp_path):
    cfg = _config(
        training_files,
        tiny_model_dir,
        tmp_path / "m",
        batch_size=6,
        type_contrastive_weight=0.5,
        type_batch_share=0.7,
        type_group_size=2,
        max_steps=2,
    )
    result = Trainer(cfg, show_progress_bar=False).train()
    assert all(np.isfinite(r["type_contrastive"]) for r in result.history)
    header = (tmp_path / "m" / "training" / "loss.tsv").read_text().splitlines()[0]
    assert "type_contrastive" in header.split("\t")
    with pytest.raises(ValueError, match="type_batch_share"):
        _config(training_files, tiny_model_dir, tmp_path / "x", type_batch_share=0.95)
    # typed rows come in whole groups, as the batches take them: round(0.7 * 6) = 4 rows
    # are one group of 3
    assert (
        Trainer(
            _config(
                training_files,
                tiny_model_dir,
                tmp_path / "z",
                batch_size=6,
                type_batch_share=0.7,
                type_group_size=3,
            ),
            show_progress_bar=False,
        ).typed_rows
        == 3
    )
    few = _config(
        training_files,
        tiny_model_dir,
        tmp_path / "y",
        batch_size=6,
        type_batch_share=0.7,
        type_group_size=3,
    )  # no type has 3 phrases
    with pytest.raises(ValueError, match="type_group_size = 3"):
        Trainer(few, show_progress_bar=False).train()


def _interrupted(training_files, tiny_model_dir, out):
    def stop_at_3(trainer, step, record):
        if step == 3:
            trainer.request_stop()

    cfg = _config(training_files, tiny_model_dir, out)
    assert Trainer(cfg, show_progress_bar=False, on_step=stop_at_3).train().interrupted
    return cfg


def test_a_fresh_run_never_replaces_an_interrupted_run_s_checkpoint(
    training_files, tiny_model_dir, tmp_path
):
    cfg = _interrupted(training_files, tiny_model_dir, tmp_path / "m")
    state = cfg.checkpoints / "state.safetensors"
    before = state.read_bytes()
    with pytest.raises(FileExistsError, match="--resume"):
        Trainer(cfg, show_progress_bar=False).train()
    assert state.read_bytes() == before
    assert Trainer(cfg, show_progress_bar=False).train(resume=True).steps == 9


@pytest.mark.parametrize("field", ["optimizer tensor", "scheduler"])
def test_a_crafted_checkpoint_is_refused_at_resume_not_mid_run(
    training_files, tiny_model_dir, tmp_path, field
):
    import json

    from safetensors import safe_open
    from safetensors.torch import save_file

    cfg = _interrupted(training_files, tiny_model_dir, tmp_path / "m")
    path = cfg.checkpoints / "state.safetensors"
    with safe_open(str(path), framework="pt") as f:
        meta = json.loads(f.metadata()["pearl_state"])
        tensors = {k: f.get_tensor(k) for k in f.keys()}
    if field == "optimizer tensor":
        key = next(k for k in tensors if k.endswith(".exp_avg"))
        tensors[key] = torch.zeros(3, 7)
    else:
        meta["scheduler"]["last_epoch"] = "three"
    save_file(tensors, str(path), metadata={"pearl_state": json.dumps(meta)})
    with pytest.raises(OSError, match="does not fit.*invalid checkpoint field"):
        Trainer(cfg, show_progress_bar=False).train(resume=True)


def test_the_character_channel_kind_is_built_from_the_config(
    training_files, tiny_model_dir, tmp_path
):
    from pearl.models import fusion_module, load_pearl_model
    from pearl.models.ngram_bag import NgramBagEncoder

    opts = dict(max_steps=3, char_kind="ngram_bag", char_buckets=509)
    cfg = _config(training_files, tiny_model_dir, tmp_path / "bag", **opts)
    result = Trainer(cfg, show_progress_bar=False).train()
    assert result.steps == 3
    fusion = fusion_module(load_pearl_model(tmp_path / "bag"))
    assert isinstance(fusion.char_encoder, NgramBagEncoder)
    assert fusion.char_encoder.ngrams.weight.shape == (509, 8)
    with pytest.raises(ValueError, match="char_kind"):
        _config(training_files, tiny_model_dir, tmp_path / "x", char_kind="lstm")


def test_dev_every_logs_the_development_score_without_changing_the_run(
    training_files, tiny_model_dir, tmp_path, monkeypatch
):
    import pearl.evaluation.dev_proxy as proxy

    tasks = {
        "official": (["Republic of Freedonia", "Sylvania"], ["Freedonia", "Sylvania"], [0, 1]),
        "typo": (["Bavria", "Saxony"], ["Bavaria", "Saxony", "Hesse"], [0, 1]),
    }
    monkeypatch.setattr(proxy, "dev_tasks", lambda: tasks)
    plain = Trainer(
        _config(training_files, tiny_model_dir, tmp_path / "a"), show_progress_bar=False
    ).train()

    def stop_at_5(trainer, step, record):
        if step == 5:
            trainer.request_stop()

    cfg = _config(training_files, tiny_model_dir, tmp_path / "b", dev_every=4)
    Trainer(cfg, show_progress_bar=False, on_step=stop_at_5).train()
    assert (cfg.checkpoints / "dev.tsv").read_text().splitlines()[1].startswith("4\t")
    logged = Trainer(cfg, show_progress_bar=False).train(resume=True)
    scored = [r["step"] for r in logged.history if "dev" in r]
    assert scored == [4, 8, 9]  # every 4 steps and the last
    for r in logged.history:
        if "dev" in r:
            assert 0 <= r["dev_official"] <= 100 and 0 <= r["dev_typo"] <= 100
            assert r["dev"] == round((r["dev_official"] + r["dev_typo"]) / 2, 2)
    table = (tmp_path / "b" / "training" / "dev.tsv").read_text().splitlines()
    assert table[0] == "step\tdev\tdev_official\tdev_typo" and len(table) == 4
    assert [r["loss"] for r in plain.history] == [r["loss"] for r in logged.history]
    wa, wb = _weights(tmp_path / "a"), _weights(tmp_path / "b")
    for k in wa:
        torch.testing.assert_close(wa[k], wb[k], rtol=0, atol=0, msg=k)


def test_word_negatives_train_from_a_pearl_mine_file(training_files, tiny_model_dir, tmp_path):
    from pearl.data.corpus import read_corpus

    anchors = [r.phrase for r in read_corpus(training_files["corpus"])]
    path = tmp_path / "word_negatives.tsv"
    path.write_text(
        "phrase\tnegative\n"
        + "".join(f"{a}\t{anchors[(i + 1) % len(anchors)]}\n" for i, a in enumerate(anchors))
    )
    cfg = _config(
        training_files,
        tiny_model_dir,
        tmp_path / "m",
        word_negatives=str(path),
        word_negative_weight=0.5,
    )
    result = Trainer(cfg, show_progress_bar=False).train()
    assert all(np.isfinite(r["word_negatives"]) for r in result.history)
    # the training log and its plot list every term the objective logged
    header = (tmp_path / "m" / "training" / "loss.tsv").read_text().splitlines()[0]
    assert "word_negatives" in header.split("\t")
    empty = tmp_path / "none.tsv"
    empty.write_text("phrase\tnegative\nnot a training phrase\tx\n")
    with pytest.raises(ValueError, match="no training phrase has a word negative"):
        Trainer(
            _config(
                training_files,
                tiny_model_dir,
                tmp_path / "n",
                word_negatives=str(empty),
                word_negative_weight=0.5,
            ),
            show_progress_bar=False,
        ).train()
