"""The benchmark's tasks: the paper's 9 phrase datasets and 4 short-text sets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from pearl.evaluation.tasks.autofj import run_autofj
from pearl.evaluation.tasks.base import NotApplicable, TaskContext, TaskResult
from pearl.evaluation.tasks.clustering import run_clustering
from pearl.evaluation.tasks.paraphrase import run_paraphrase
from pearl.evaluation.tasks.retrieval import run_retrieval
from pearl.evaluation.tasks.short_text import run_short_text
from pearl.evaluation.tasks.similarity import run_bird, run_turney

__all__ = [
    "TASKS",
    "PHRASE_TASKS",
    "PAPER_OWN_TASKS",
    "SHORT_TEXT_TASKS",
    "Task",
    "TaskContext",
    "TaskResult",
    "NotApplicable",
    "select_tasks",
]


@dataclass(frozen=True)
class Task:
    """A benchmark task.

    Attributes
    ----------
    key : str
        Name used by ``--tasks``.
    column : str
        Column header of the results table.
    run : callable
        ``run(ctx) -> TaskResult``.
    paper_own : bool
        True where the data files are the paper's own (its seven exact datasets).
    """

    key: str
    column: str
    run: Callable[[TaskContext], TaskResult]
    paper_own: bool = True
    group: str = "phrase"


TASKS: dict[str, Task] = {
    t.key: t
    for t in [
        Task("ppdb", "PPDB", partial(run_paraphrase, name="ppdb")),
        Task("ppdb_filtered", "PPDB-f", partial(run_paraphrase, name="ppdb_filtered")),
        Task("turney", "Turney", run_turney),
        Task("bird", "BIRD", run_bird),
        Task("yago", "YAGO*", partial(run_retrieval, name="yago"), paper_own=False),
        Task("umls", "UMLS*", partial(run_retrieval, name="umls"), paper_own=False),
        Task("conll2003", "CoNLL-03", partial(run_clustering, name="conll2003")),
        Task("bc5cdr", "BC5CDR", partial(run_clustering, name="bc5cdr")),
        Task("autofj", "AutoFJ", run_autofj),
        Task(
            "twitter_s",
            "Twitter-S",
            partial(run_short_text, corpus="twitter", part="S"),
            paper_own=False,
            group="short_text",
        ),
        Task(
            "twitter_l",
            "Twitter-L",
            partial(run_short_text, corpus="twitter", part="L"),
            paper_own=False,
            group="short_text",
        ),
        Task(
            "atis_s",
            "ATIS-S",
            partial(run_short_text, corpus="atis", part="S"),
            paper_own=False,
            group="short_text",
        ),
        Task(
            "atis_l",
            "ATIS-L",
            partial(run_short_text, corpus="atis", part="L"),
            paper_own=False,
            group="short_text",
        ),
    ]
}
PHRASE_TASKS = [k for k, t in TASKS.items() if t.group == "phrase"]
PAPER_OWN_TASKS = [k for k in PHRASE_TASKS if TASKS[k].paper_own]
SHORT_TEXT_TASKS = [k for k, t in TASKS.items() if t.group == "short_text"]
_GROUPS = {"all": list(TASKS), "phrase": PHRASE_TASKS, "short_text": SHORT_TEXT_TASKS}


def select_tasks(spec: str | list[str] | None) -> list[str]:
    """Expand a task selection: names, groups (``all``, ``phrase``, ``short_text``), commas.

    Parameters
    ----------
    spec : str or list of str or None
        None: every task.

    Returns
    -------
    list of str
        Task names, in the benchmark's order.
    """
    if spec is None:
        return list(TASKS)
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    out: list[str] = []
    for item in (i.strip() for i in items):
        if not item:
            continue
        if item in _GROUPS:
            out += _GROUPS[item]
        elif item in TASKS:
            out.append(item)
        else:
            raise ValueError(
                f"unknown task {item!r}; choose from {', '.join(TASKS)} or {', '.join(_GROUPS)}"
            )
    if not out:
        raise ValueError(
            f"no task selected by {spec!r}; choose from {', '.join(TASKS)} or {', '.join(_GROUPS)}"
        )
    return list(dict.fromkeys(out))
