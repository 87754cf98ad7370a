"""The lab of the pearl repository: what its benchmarks, experiments and tests share.

Not part of pearl (``pearl`` never imports it; a test checks): the data generators and
development sets the scripts under ``benchmarks/`` and ``experiments/`` use, so that no
script imports another script or edits ``sys.path``. ``make install`` installs it
(``pip install -e lab``) beside ``pearl[dev]``.

- :mod:`pearl_lab.typos`: typo and abbreviation generators, typo'd deduplication tasks;
- :mod:`pearl_lab.synthetic`: linkage tables of people and companies with unmatched rows,
  FEBRL4 with partners removed;
- :mod:`pearl_lab.suite`: the decision suite's tables (issue 80): people with typos in
  names and digits, relatives, accents and full-width digits, companies, OCR'd companies,
  FEBRL4, with few, some or most rows having a partner;
- :mod:`pearl_lab.dev`: the development proxy's tasks (ISO 3166 names) and their strings
  (:mod:`pearl.evaluation.dev_proxy`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

__all__ = [
    "REPOSITORY",
    "data_root",
    "ppdb_phrases",
    "commit",
    "command_line",
    "alternating_rounds",
]

_Key = TypeVar("_Key")

#: the repository this lab belongs to
REPOSITORY = Path(__file__).resolve().parents[2]


def data_root() -> Path:
    """``$PEARL_DATA``, or the repository's convention: ``../shared/data`` beside it (the
    Makefile's value)."""
    return Path(os.environ.get("PEARL_DATA") or REPOSITORY.parent / "shared" / "data")


def ppdb_phrases(n: int, data: Path) -> list[str]:
    """The first ``n`` distinct phrases of PPDB under ``data`` (the speed benchmarks'
    phrases: for timing only)."""
    from pearl.evaluation.tasks.paraphrase import load_ppdb

    p1, p2, _ = load_ppdb(data / "benchmark" / "ppdb" / "ppdb.json")
    uniq = list(dict.fromkeys(p1 + p2))
    if len(uniq) < n:
        raise SystemExit(f"only {len(uniq)} distinct phrases available")
    return uniq[:n]


def commit() -> str:
    """The short hash of the repository's checked-out commit ("" outside a git checkout),
    for a record to name what made it."""
    import subprocess

    done = subprocess.run(
        ["git", "-C", str(REPOSITORY), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip()


def command_line() -> str:
    """The command that runs this script as it was typed (``python`` and its arguments),
    for a record to say how it was made; never rebuilt from the parsed options."""
    import sys

    return "python " + " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]])


def alternating_rounds(
    runs: Mapping[str, Callable[[], object]], rounds: int
) -> dict[str, list[float]]:
    """Wall seconds of each of ``runs``, called in turn ``rounds`` times (one call of each
    per round, so that a change of the machine's load falls on all of them alike); warm
    them up before."""
    times: dict[_Key, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, fn in runs.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return times
