import torch

from pearl.training.checkpoint import Checkpoint, load_checkpoint, save_checkpoint


def _checkpoint(**extra):
    return Checkpoint(
        config={"lr": 1e-3},
        step=3,
        history=[{"loss": 1.0}],
        model={"w": torch.arange(4.0)},
        optimizer={
            "state": {0: {"step": torch.tensor(3.0), "exp_avg": torch.ones(4)}},
            "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "params": [0]}],
        },
        scheduler={"last_epoch": 3},
        torch_rng=torch.get_rng_state(),
        **extra,
    )


def test_a_checkpoint_round_trips_without_a_cuda_state(tmp_path):
    save_checkpoint(tmp_path / "state.safetensors", _checkpoint())
    back = load_checkpoint(tmp_path / "state.safetensors")
    assert back.cuda_rng is None and back.step == 3
    torch.testing.assert_close(back.model["w"], torch.arange(4.0))
    assert back.optimizer["param_groups"][0]["betas"] == (0.9, 0.999)


def test_a_gpu_run_s_random_state_is_kept(tmp_path):
    rng = torch.randint(0, 255, (16,), dtype=torch.uint8)
    save_checkpoint(tmp_path / "state.safetensors", _checkpoint(cuda_rng=rng))
    back = load_checkpoint(tmp_path / "state.safetensors")
    assert torch.equal(back.cuda_rng, rng)


def test_a_loop_s_extra_state_round_trips_and_must_be_an_object(tmp_path):
    import json

    import pytest
    from safetensors import safe_open
    from safetensors.torch import save_file

    path = tmp_path / "state.safetensors"
    save_checkpoint(path, _checkpoint(extra={"epoch": 2, "rng": [3, [1, 2], None]}))
    assert load_checkpoint(path).extra == {"epoch": 2, "rng": [3, [1, 2], None]}
    assert load_checkpoint(_written(tmp_path, _checkpoint())).extra == {}
    with safe_open(str(path), framework="pt") as f:
        meta = json.loads(f.metadata()["pearl_state"])
        tensors = {k: f.get_tensor(k) for k in f.keys()}
    meta["extra"] = ["not", "an", "object"]
    save_file(tensors, str(path), metadata={"pearl_state": json.dumps(meta)})
    with pytest.raises(OSError, match="'extra'"):
        load_checkpoint(path)


def _written(folder, ckpt):
    save_checkpoint(folder / "plain.safetensors", ckpt)
    return folder / "plain.safetensors"


def test_a_full_disk_at_a_checkpoint_is_an_os_error_naming_it(tmp_path, monkeypatch):
    import pytest
    from safetensors import SafetensorError

    from pearl.training import checkpoint

    path = tmp_path / "state.safetensors"
    save_checkpoint(path, _checkpoint())
    before = path.read_bytes()

    def full(*args, **kwargs):
        raise SafetensorError("Error while serializing: I/O error: No space left on device")

    monkeypatch.setattr(checkpoint, "save_file", full)
    with pytest.raises(OSError, match=r"state\.safetensors.*No space left.*unchanged"):
        save_checkpoint(path, _checkpoint())
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["state.safetensors"]


def test_capture_and_restore_run_bring_back_weights_optimiser_and_random_state(tmp_path):
    import pytest

    from pearl.training.checkpoint import capture_run, restore_run

    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5**s)
    model(torch.randn(4, 3)).sum().backward()
    opt.step()
    sched.step()
    path = tmp_path / "state.safetensors"
    save_checkpoint(
        path,
        capture_run(model, opt, config={"a": 1}, step=1, history=[], seconds=2.0, scheduler=sched),
    )
    after = torch.rand(1)  # the next draw after the checkpoint
    twin = torch.nn.Linear(3, 2)
    twin_opt = torch.optim.Adam(twin.parameters(), lr=0.1)
    twin_sched = torch.optim.lr_scheduler.LambdaLR(twin_opt, lambda s: 0.5**s)
    saved = load_checkpoint(path)
    restore_run(saved, path, twin, twin_opt, scheduler=twin_sched)
    assert saved.seconds == 2.0 and saved.cuda_rng is None
    assert torch.equal(twin.weight, model.weight) and torch.equal(torch.rand(1), after)
    assert twin_sched.get_last_lr() == sched.get_last_lr()
    torch.testing.assert_close(
        twin_opt.state_dict()["state"][0]["exp_avg"], opt.state_dict()["state"][0]["exp_avg"]
    )
    with pytest.raises(OSError, match="does not fit this model"):  # another shape
        restore_run(saved, path, torch.nn.Linear(4, 2), twin_opt)
