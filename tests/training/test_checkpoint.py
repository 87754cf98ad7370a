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
