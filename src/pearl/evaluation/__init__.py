"""The PEARL benchmark: the paper's 9 phrase datasets and short-text classification."""

from pearl._lazy import lazy_exports

__all__ = [
    "TASKS",
    "EmbeddingCache",
    "StringDistance",
    "averages",
    "evaluate",
    "load_records",
    "render_markdown",
    "save_record",
    "select_tasks",
    "write_report",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "EmbeddingCache": "pearl.encoders.cache",
        "StringDistance": "pearl.evaluation.string_distance",
        "load_records": "pearl.evaluation.report",
        "render_markdown": "pearl.evaluation.report",
        "save_record": "pearl.evaluation.report",
        "write_report": "pearl.evaluation.report",
        "averages": "pearl.evaluation.runner",
        "evaluate": "pearl.evaluation.runner",
        "TASKS": "pearl.evaluation.tasks",
        "select_tasks": "pearl.evaluation.tasks",
    },
)
