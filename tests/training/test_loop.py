"""The one step loop of the three trainers (issue 51)."""

from pearl.training.loop import StepLoop


def _loop(saved, done_steps, every=3, on_step=None):
    return StepLoop(
        lambda i: done_steps.append(i) or {"loss": 1.0, "phrases_per_s": 2.0},
        saved.append,
        checkpoint_every=every,
        desc="t",
        show_progress_bar=False,
        on_step=on_step,
    )


def test_checkpoints_fall_every_n_steps_and_after_the_last():
    saved, steps = [], []
    assert _loop(saved, steps).run(0, 7, lambda: False) == (7, False)
    assert steps == list(range(7)) and saved == [3, 6, 7]
    # resumed at step 3: the same schedule, counted from the run's first step
    saved, steps = [], []
    assert _loop(saved, steps).run(3, 7, lambda: False) == (7, False)
    assert steps == [3, 4, 5, 6] and saved == [6, 7]
    # a finished run does nothing
    assert _loop(saved, steps).run(7, 7, lambda: False) == (7, False)


def test_a_stop_request_ends_after_the_step_with_one_checkpoint():
    saved, steps, seen = [], [], []
    loop = _loop(saved, steps, on_step=lambda n, record: seen.append(n))
    assert loop.run(0, 10, lambda: len(steps) == 3) == (3, True)
    assert saved == [3] and seen == [1, 2, 3]  # not written twice at step 3
    # a request at the last step is no interruption: the run is done
    saved, steps = [], []
    assert _loop(saved, steps).run(0, 4, lambda: len(steps) == 4) == (4, False)
    assert saved == [3, 4]


def test_an_epoch_counts_checkpoints_from_the_run_and_leaves_its_end_to_the_caller():
    saved, steps = [], []
    # 5 steps done before this epoch of 4 batches: checkpoints at steps 6 and 9 of the run
    loop = _loop(saved, steps)
    assert loop.run(0, 4, lambda: False, offset=5, checkpoint_last=False) == (4, False)
    assert saved == [1]  # the epoch's first batch is the run's sixth step
    saved, steps = [], []
    assert _loop(saved, steps).run(0, 3, lambda: False, checkpoint_last=False) == (3, False)
    assert saved == []  # a multiple of 3 at the epoch's end: left to the caller
