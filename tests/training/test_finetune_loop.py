import os
import signal
from dataclasses import replace

import pandas as pd
import pytest
import torch
from safetensors.torch import load_file

from pearl.cli import main
from pearl.training.checkpoint import load_checkpoint, save_checkpoint
from pearl.training.finetune import LabelledGroups, finetune
from pearl.training.finetune_loop import FinetuneLoop

NAMES = [
    ["Acme Inc", "ACME Incorporated", "Acme Corporation"],
    ["Globex Corp", "Globex Corporation", "GLOBEX"],
    ["Initech", "Initech LLC", "INITECH"],
    ["Umbrella Co", "Umbrella Company", "UMBRELLA"],
    ["Hooli", "Hooli Inc", "HOOLI"],
    ["Vandelay Industries", "Vandelay Ind.", "VANDELAY"],
    ["Stark Industries", "Stark Ind", "STARK"],
    ["Wayne Enterprises", "Wayne Ent.", "WAYNE"],
]
DATA = LabelledGroups.from_frame(
    pd.DataFrame(
        {
            "text": [t for g in NAMES for t in g],
            "group": [i for i, g in enumerate(NAMES) for _ in g],
        }
    )
)
# 8 groups of 3, 6 of them trained on: with batches of 6 strings (3 per group), an epoch
# is 3 batches
OPTIONS = dict(epochs=3, batch_size=6, per_group=3, lr=1e-2, validation=0.25, patience=3)


def _weights(folder):
    return load_file(str(folder / "model.safetensors"))


def _crash_after(monkeypatch, n):
    """Make the n+1-th optimiser step fail, as a killed process would stop there."""
    real, calls = FinetuneLoop._step, []

    def step(self, idx):
        if len(calls) == n:
            raise RuntimeError("killed")
        calls.append(idx)
        real(self, idx)

    monkeypatch.setattr(FinetuneLoop, "_step", step)


def test_a_resumed_run_ends_on_the_uninterrupted_weights(tiny_model_dir, tmp_path, monkeypatch):
    kw = dict(model=str(tiny_model_dir), show_progress_bar=False, **OPTIONS)
    whole = finetune(DATA, tmp_path / "whole", **kw)
    assert whole.epochs == 3 and not whole.interrupted
    assert not (tmp_path / "whole.checkpoints").exists()  # removed once the model is saved
    # killed in epoch 2 after 5 batches: resumed from batch 4 (checkpoint_every=2), the
    # first of epoch 2 (epoch 1 ended on batch 3)
    with monkeypatch.context() as m:
        _crash_after(m, 5)
        with pytest.raises(RuntimeError, match="killed"):
            finetune(DATA, tmp_path / "cut", checkpoint_every=2, **kw)
    state = tmp_path / "cut.checkpoints" / "state.safetensors"
    assert state.is_file() and not (tmp_path / "cut").exists()
    before = state.read_bytes()  # a fresh run would overwrite it, then delete it
    with pytest.raises(FileExistsError, match="--resume"):
        finetune(DATA, tmp_path / "cut", checkpoint_every=2, **kw)
    assert state.read_bytes() == before
    resumed = finetune(DATA, tmp_path / "cut", checkpoint_every=2, resume=True, **kw)
    assert resumed.validation_top1 == whole.validation_top1
    assert resumed.best_epoch == whole.best_epoch
    a, b = _weights(tmp_path / "whole"), _weights(tmp_path / "cut")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert not state.exists()


def test_sigint_stops_after_the_batch_with_a_checkpoint(tiny_model_dir, tmp_path, monkeypatch):
    real, calls = FinetuneLoop._step, []

    def step(self, idx):
        calls.append(idx)
        real(self, idx)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(FinetuneLoop, "_step", step)
    before = signal.getsignal(signal.SIGINT)
    kw = dict(model=str(tiny_model_dir), show_progress_bar=False, **OPTIONS)
    res = finetune(DATA, tmp_path / "m", **kw)
    assert res.interrupted and res.output is None and len(calls) == 2
    assert res.checkpoints == tmp_path / "m.checkpoints"
    assert (tmp_path / "m.checkpoints" / "state.safetensors").is_file()
    assert signal.getsignal(signal.SIGINT) is before
    monkeypatch.undo()
    res = finetune(DATA, tmp_path / "m", resume=True, **kw)
    assert res.output == tmp_path / "m" and res.epochs == 3


def test_resume_refuses_other_options_data_and_corrupt_files(
    tiny_model_dir, tmp_path, monkeypatch, caplog
):
    kw = dict(model=str(tiny_model_dir), show_progress_bar=False, **OPTIONS)
    with monkeypatch.context() as m:
        _crash_after(m, 3)
        with pytest.raises(RuntimeError):
            finetune(DATA, tmp_path / "m", checkpoint_every=1, **kw)
    with pytest.raises(ValueError, match="lr"):
        finetune(DATA, tmp_path / "m", resume=True, **{**kw, "lr": 1e-3})
    other = LabelledGroups(DATA.texts[:-1], DATA.groups[:-1])
    with pytest.raises(ValueError, match="data"):
        finetune(other, tmp_path / "m", resume=True, **kw)
    state = tmp_path / "m.checkpoints" / "state.safetensors"
    saved = load_checkpoint(state)
    for field, bad in (("epoch_rng", "x"), ("position", -1), ("finished", 1)):
        save_checkpoint(state, replace(saved, extra={**saved.extra, field: bad}))
        with pytest.raises(OSError, match=field):
            finetune(DATA, tmp_path / "m", resume=True, **kw)
    state.write_bytes(state.read_bytes()[:1000])
    with pytest.raises(OSError, match="corrupt or truncated"):
        finetune(DATA, tmp_path / "m", resume=True, **kw)
    # no checkpoint: a warning, then a run from scratch
    res = finetune(DATA, tmp_path / "fresh", resume=True, **kw)
    assert res.epochs == 3 and "no checkpoint" in caplog.text


def test_checkpoint_folder_is_guarded(tiny_model_dir, tmp_path):
    kw = dict(model=str(tiny_model_dir), show_progress_bar=False, **OPTIONS)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    with pytest.raises(FileExistsError, match="does not overwrite"):
        finetune(DATA, tmp_path / "m", checkpoint_dir=mine, **kw)
    with pytest.raises(ValueError):
        finetune(DATA, tmp_path / "m", checkpoint_dir=tiny_model_dir, **kw)
    assert (mine / "notes.txt").read_text() == "keep"


def test_cli_finetune_resumes_from_its_checkpoint_folder(tiny_model_dir, tmp_path, monkeypatch):
    path = tmp_path / "groups.csv"
    pd.DataFrame({"text": DATA.texts, "group": DATA.groups}).to_csv(path, index=False)
    args = ["finetune", str(path), "-o", str(tmp_path / "m"), "-m", str(tiny_model_dir)]
    args += ["--epochs", "2", "-b", "6", "--checkpoint-dir", str(tmp_path / "ck"), "-q"]
    with monkeypatch.context() as m:
        _crash_after(m, 2)
        with pytest.raises(RuntimeError):
            main([*args, "--checkpoint-every", "1"])
    assert (tmp_path / "ck" / "state.safetensors").is_file()
    assert main([*args, "--checkpoint-every", "1", "--resume"]) == 0
    assert (tmp_path / "m" / "model.safetensors").is_file() and not (tmp_path / "ck").exists()


def test_finetune_options_read_the_trainers_sections(tmp_path):
    from pearl.training.finetune_loop import FinetuneOptions

    path = tmp_path / "ft.toml"
    path.write_text(
        '[model]\nencoder = "transformer"\n'
        '[[objective]]\nloss = "triplet"\nmargin = 0.5\n'
        "[data]\nper_group = 3\nvalidation = 0.2\n"
        "[optimisation]\nepochs = 4\nbatch_size = 16\nlr = 1e-4\n"
        '[output]\nsave_dtype = "float16"\ncheckpoint_every = 10\n'
    )
    opts = FinetuneOptions.from_file(path, {"epochs": 2})  # the command line wins
    assert (opts.loss, opts.margin, opts.per_group, opts.validation) == ("triplet", 0.5, 3, 0.2)
    assert (opts.epochs, opts.batch_size, opts.lr, opts.save_dtype) == (2, 16, 1e-4, "float16")
    assert opts.checkpoint_every == 10 and opts.alpha == FinetuneOptions().alpha
    assert FinetuneOptions.from_file(None, {"loss": "infonce"}) == FinetuneOptions(loss="infonce")


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ('[[objective]]\nloss = "ms"\nmargin = 1.0\n', "takes alpha"),  # another loss's
        ('[[objective]]\nloss = "ms"\n[[objective]]\nloss = "triplet"\n', "one loss spec"),
        ('[[objective]]\nloss = "supcon"\n', "loss must be one of"),
        ("[optimisation]\nepochz = 3\n", "unknown fine-tuning option"),
        ("[optimisation]\nepochs = 0\n", "epochs"),
    ],
)
def test_a_bad_finetune_file_is_refused_naming_the_option(tmp_path, text, match):
    from pearl.training.finetune_loop import FinetuneOptions

    path = tmp_path / "ft.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        FinetuneOptions.from_file(path)


def test_a_misplaced_finetune_option_loads_with_a_warning(tmp_path):
    from pearl.training.finetune_loop import FinetuneOptions

    path = tmp_path / "ft.toml"
    path.write_text("[output]\nepochs = 3\n")
    with pytest.warns(FutureWarning, match=r"epochs -> \[optimisation\]"):
        assert FinetuneOptions.from_file(path).epochs == 3


def test_an_unmeasured_validation_is_said_once_with_its_reason(tiny_model_dir, tmp_path, caplog):
    import logging

    with caplog.at_level(logging.INFO, logger="pearl"):
        finetune(
            DATA,
            tmp_path / "m",
            model=str(tiny_model_dir),
            show_progress_bar=False,
            **{**OPTIONS, "validation": 0.0, "epochs": 4},
        )
    said = [r.getMessage() for r in caplog.records if "validation top-1" in r.getMessage()]
    assert len(said) == 1 and "no validation split" in said[0]
    assert "nan" not in caplog.text
