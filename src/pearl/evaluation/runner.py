"""Run the benchmark for one model and collect a result record."""

from __future__ import annotations

import os
import platform
import time
import traceback
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from pearl._validation import check_bool, check_choice, check_int
from pearl.encoders.base import is_embedding_model
from pearl.encoders.cache import EmbeddingCache
from pearl.encoders.resolve import DEFAULT_MODEL
from pearl.evaluation.resume import resume_tasks
from pearl.evaluation.string_distance import load_model
from pearl.evaluation.tasks import (
    PAPER_OWN_TASKS,
    PHRASE_TASKS,
    SHORT_TEXT_TASKS,
    TASKS,
    NotApplicable,
    TaskContext,
    select_tasks,
)
from pearl.paths import benchmark_dir

__all__ = ["evaluate", "averages", "task_scores", "EvaluationInterrupted"]


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in (
        "pearl",
        "torch",
        "transformers",
        "sentence-transformers",
        "numpy",
        "scikit-learn",
        "faiss-cpu",
        "scipy",
    ):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


def _param_count(model: Any) -> int | None:
    inner = getattr(model, "model", None)
    if inner is None or not hasattr(inner, "parameters"):
        return None
    return int(sum(p.numel() for p in inner.parameters()))


def task_scores(tasks: dict[str, dict[str, Any]]) -> dict[str, float]:
    """The scores of a record's tasks that ran (status ``ok``)."""
    return {k: v["score"] for k, v in tasks.items() if v.get("status") == "ok"}


def averages(scores: dict[str, float]) -> dict[str, float | None]:
    """Avg-7 (the paper's own seven datasets), Avg-9 (all nine), short-text average.

    An average is None unless every dataset it covers has a score.

    Parameters
    ----------
    scores : dict of str to float
        Task name -> score.

    Returns
    -------
    dict
        ``avg7``, ``avg9`` and ``short_text`` (None where a score it needs is missing).
    """

    def mean(keys):
        vals = [scores.get(k) for k in keys]
        return float(np.mean(vals)) if all(v is not None for v in vals) else None

    return {
        "avg7": mean(PAPER_OWN_TASKS),
        "avg9": mean(PHRASE_TASKS),
        "short_text": mean(SHORT_TEXT_TASKS),
    }


def _new_record(
    encoder: Any, model: Any, quick: bool, seed: int, probe_runs: int, retrieval_index: str
) -> dict[str, Any]:
    """A result record before any task: the model, the seeds, the versions, the machine."""
    return {
        "model": getattr(encoder, "name", str(model)),
        "model_source": str(getattr(encoder, "path", model)),
        "fingerprint": getattr(encoder, "fingerprint", None),
        "parameters": _param_count(encoder),
        "quick": quick,
        "seed": seed,
        "seeds": {
            "splits_and_probes": seed,
            "short_text_runs": "seed + run, run = 0..9",
            "paraphrase_probe_runs": (
                f"seed + run, run = 0..{probe_runs - 1}" if probe_runs > 1 else seed
            ),
            "kmeans_random_state": 0,
        },
        "retrieval_index": retrieval_index,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "versions": _versions(),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
        "tasks": {},
    }


class EvaluationInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`evaluate`: a ``KeyboardInterrupt`` that carries the record of
    the tasks finished before it (``.record``, with ``"interrupted"``: the task stopped and
    those not run), so that hours of finished tasks are not lost (``pearl eval`` saves it)."""

    def __init__(self, record: dict[str, Any]) -> None:
        super().__init__(f"interrupted during {record['interrupted']['task']}")
        self.record = record


def _check_data(keys: list[str], data: Path, short_text: Path) -> None:
    """A ``FileNotFoundError`` naming what to pass where the tasks' data folders are not."""
    phrase = [k for k in keys if TASKS[k].group == "phrase"]
    if phrase and not data.is_dir():
        raise FileNotFoundError(f"benchmark data not found at {data}; pass --data")
    if phrase and (data / "benchmark").is_dir() and not any((data / k).is_dir() for k in phrase):
        # the data root given for the benchmark root: every task failed on its own file
        raise FileNotFoundError(
            f"{data} holds no benchmark task folders but a 'benchmark' folder: pass "
            f"--data {data / 'benchmark'} (the benchmark root), or set PEARL_DATA={data}"
        )
    if any(TASKS[k].group == "short_text" for k in keys) and not short_text.is_dir():
        raise FileNotFoundError(f"short-text data not found at {short_text}; pass --short-text")


def evaluate(
    model: Any = DEFAULT_MODEL,
    tasks: str | list[str] | None = None,
    *,
    data: str | os.PathLike | None = None,
    short_text: str | os.PathLike | None = None,
    quick: bool = False,
    seed: int = 0,
    batch_size: int = 64,
    retrieval_index: str = "flat",
    cache: bool = True,
    cache_root: str | os.PathLike | None = None,
    show_progress_bar: bool = True,
    probe_runs: int = 5,
    resume: str | os.PathLike | None = None,
) -> dict[str, Any]:
    """Run benchmark tasks for one model.

    Parameters
    ----------
    model : str or encoder, default=DEFAULT_MODEL
        A model name or folder (see :class:`~pearl.PhraseEncoder`), ``"glove"``,
        ``"string-distance"``, or an encoder object.
    tasks : str or list of str, optional
        Task names or groups (``all``, ``phrase``, ``short_text``); all by default.
    data : path-like, optional
        Benchmark root (holding ``ppdb/``, ``turney/``...); defaults to
        ``benchmark_dir()``.
    short_text : path-like, optional
        Short-text root; defaults to ``<data>/../short_text``.
    quick : bool, default=False
        Subsample every task (smoke run); results are labelled as such.
    seed : int, default=0
        Seed of splits, probes and subsampling.
    batch_size : int, default=64
        Encoding batch size.
    retrieval_index : {"flat", "ivfpq"}
        Exact or the paper's approximate search for YAGO and UMLS.
    cache : bool, default=True
        Keep embeddings on disk, keyed by model fingerprint and text.
    cache_root : path-like, optional
        Where the embedding cache lives.
    show_progress_bar : bool, default=True
        Progress bars.
    probe_runs : int, default=5
        Probe runs of PPDB and PPDB-filtered (seeds ``seed + run``; the score is their
        mean, every run and the first run's score stay in the record). 1 is the paper's
        single probe, which sometimes stops early and moves PPDB-filtered by several points
        for the same embeddings (docs/benchmark.md).
    resume : path-like, optional
        A results folder (where ``pearl eval`` writes): the tasks its record of this model
        holds as finished, with the same model fingerprint and settings (``quick``,
        ``seed``, ``probe_runs``, ``retrieval_index``), are not run again; the record
        returned holds them as they were.

    Returns
    -------
    dict
        The result record (also what ``pearl eval`` writes as JSON).

    Raises
    ------
    EvaluationInterrupted
        On Ctrl-C, with the record of the tasks finished so far (a ``KeyboardInterrupt``).
    """
    keys = select_tasks(tasks)
    seed = check_int(seed, "seed", 0)
    batch_size = check_int(batch_size, "batch_size", 1)
    probe_runs = check_int(probe_runs, "probe_runs", 1)
    quick, cache = check_bool(quick, "quick"), check_bool(cache, "cache")
    retrieval_index = check_choice(retrieval_index, "retrieval_index", ("flat", "ivfpq"))
    data = Path(data) if data else benchmark_dir()
    short_text = Path(short_text) if short_text else data.parent / "short_text"
    _check_data(keys, data, short_text)
    # a name or folder is loaded (None or "": the default), an encoder object used as it is
    encoder = load_model(DEFAULT_MODEL if model is None or model == "" else model)
    has_embeddings = is_embedding_model(encoder)
    embed = (
        EmbeddingCache(encoder, root=cache_root, persist=cache, batch_size=batch_size)
        if has_embeddings
        else None
    )
    ctx = TaskContext(
        model=encoder,
        embed=embed,
        data=data,
        short_text=short_text,
        quick=quick,
        seed=seed,
        retrieval_index=retrieval_index,
        probe_runs=probe_runs,
        show_progress_bar=show_progress_bar,
    )
    record = _new_record(encoder, model, quick, seed, probe_runs, retrieval_index)
    todo = resume_tasks(resume, record, keys, say=show_progress_bar)  # the rest, if resumed
    bar = tqdm(
        todo, desc=f"pearl eval {record['model']}", unit="task", disable=not show_progress_bar
    )
    for done, key in enumerate(bar):
        bar.set_postfix_str(key)
        t0 = time.perf_counter()
        before = embed.n_encoded if embed is not None else 0
        try:
            res = TASKS[key].run(ctx)
        except KeyboardInterrupt:  # Ctrl-C: the finished tasks travel with the interrupt
            bar.close()
            record["interrupted"] = {"task": key, "not_run": todo[done:]}
            record["averages"] = averages(task_scores(record["tasks"]))
            raise EvaluationInterrupted(record) from None
        except NotApplicable as exc:
            record["tasks"][key] = {"status": "n/a", "reason": str(exc)}
            continue
        except Exception as exc:  # noqa: BLE001 - one task's failure must not hide the others
            record["tasks"][key] = {
                "status": "error",
                # str() names the file of an OSError, which repr() leaves out
                "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc(),
            }
            continue
        record["tasks"][key] = {
            "status": "ok",
            "score": round(res.score, 4),
            "std": None if res.std is None else round(res.std, 4),
            "n": res.n,
            "wall_time_s": round(time.perf_counter() - t0, 2),
            "newly_encoded": (embed.n_encoded - before) if embed is not None else 0,
            "details": res.details,
        }
    record["averages"] = averages(task_scores(record["tasks"]))
    return record
