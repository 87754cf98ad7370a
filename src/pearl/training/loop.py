"""The one step loop of pearl's three trainers (``train``, ``train-static``, ``finetune``).

:class:`StepLoop` runs optimisation steps with a progress bar, writes a checkpoint every
``checkpoint_every`` steps (and, if asked, after the last one), and stops after the current
step when SIGINT/SIGTERM arrives (:func:`~pearl.training.checkpoint.stop_on_signals`) or a
caller asks, with a checkpoint, so an interrupted run loses nothing. What a step computes
and what a checkpoint holds belong to the trainer: the loop calls them.
"""

from __future__ import annotations

from collections.abc import Callable

from tqdm.auto import tqdm

__all__ = ["StepLoop"]


class StepLoop:
    """Run steps ``start .. total - 1`` of a training run.

    Parameters
    ----------
    step : callable(int) -> dict or None
        Does step ``i`` (0-based): its batch, the loss, one optimiser step. Returns the
        step's record for the progress bar (``loss`` and a speed entry), or None.
    checkpoint : callable(int)
        Writes the checkpoint of the run after ``n`` steps.
    checkpoint_every : int
        A checkpoint every this many steps (counted from the run's first step).
    desc, unit : str
        The progress bar's label and unit.
    show_progress_bar : bool, default=True
    speed : str, default="phrases_per_s"
        The record's entry shown beside the loss.
    on_step : callable(int, dict), optional
        Called after each step with the number of steps done and the record.
    """

    def __init__(
        self,
        step: Callable[[int], dict | None],
        checkpoint: Callable[[int], None],
        *,
        checkpoint_every: int,
        desc: str,
        unit: str = "step",
        show_progress_bar: bool = True,
        speed: str = "phrases_per_s",
        on_step: Callable[[int, dict], None] | None = None,
    ) -> None:
        self.step = step
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.desc = desc
        self.unit = unit
        self.show_progress_bar = show_progress_bar
        self.speed = speed
        self.on_step = on_step

    def run(
        self,
        start: int,
        total: int,
        should_stop: Callable[[], bool],
        *,
        offset: int = 0,
        checkpoint_last: bool = True,
    ) -> tuple[int, bool]:
        """Steps ``start`` to ``total``; returns the steps done and whether the run stopped
        early (``should_stop()`` true before the last step; its checkpoint written).

        ``offset`` counts steps done before this run of the loop (an epoch's batches in
        fine-tuning), so checkpoints fall every ``checkpoint_every`` steps of the whole
        run; ``checkpoint_last`` writes one after the last step too.
        """
        bar = tqdm(
            total=total,
            initial=start,
            desc=self.desc,
            unit=self.unit,
            disable=not self.show_progress_bar,
        )
        try:
            for i in range(start, total):
                record = self.step(i)
                done = i + 1
                bar.update(1)
                if record:
                    self._postfix(bar, record)
                if self.on_step is not None:
                    self.on_step(done, record or {})
                stop = done < total and should_stop()
                if (
                    stop
                    or (offset + done) % self.checkpoint_every == 0
                    and (done < total or checkpoint_last)
                    or (done == total and checkpoint_last)
                ):
                    self.checkpoint(done)
                if stop:
                    return done, True
        finally:
            bar.close()
        return max(start, total), False

    def _postfix(self, bar, record: dict) -> None:
        shown = {}
        if "loss" in record:
            shown["loss"] = f"{record['loss']:.3f}"
        if self.speed in record:
            shown[self.speed.replace("_per_", "_")] = f"{record[self.speed]:.0f}"
        if shown:
            bar.set_postfix(**shown)
