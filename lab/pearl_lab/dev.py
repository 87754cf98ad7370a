"""The development proxy's tasks (ISO 3166 names), as the lab's scripts use them: pearl's
own :mod:`pearl.evaluation.dev_proxy` (its strings: ``pearl benchmark-strings --dev-proxy``)."""

from __future__ import annotations

from pearl.evaluation.dev_proxy import dev_strings
from pearl.evaluation.dev_proxy import dev_tasks as tasks

__all__ = ["tasks", "dev_strings"]
