"""The PEARL benchmark: the paper's 9 phrase datasets and short-text classification."""

from pearl.encoders.cache import EmbeddingCache
from pearl.evaluation.report import load_records, render_markdown, save_record, write_report
from pearl.evaluation.runner import averages, evaluate
from pearl.evaluation.tasks import TASKS, select_tasks

__all__ = [
    "TASKS",
    "EmbeddingCache",
    "averages",
    "evaluate",
    "load_records",
    "render_markdown",
    "save_record",
    "select_tasks",
    "write_report",
]
