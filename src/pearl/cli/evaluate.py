"""Evaluation commands: eval (the PEARL benchmark) and model-card."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from pearl._io import check_output
from pearl.cli._common import (
    POSITIVE,
    float_between,
    int_at_least,
    model_arg,
)
from pearl.encoders.resolve import DEFAULT_MODEL


def cmd_eval(args) -> int:
    from pearl.evaluation import evaluate, load_records, render_markdown, save_record, write_report
    from pearl.paths import results_dir

    out = Path(args.output) if args.output else results_dir() / ("quick" if args.quick else "")
    check_output(out, [args.data, args.short_text], "--output")
    if out.is_dir():  # the table reads every JSON there: refuse a foreign one before the run
        load_records(out)
    from pearl.evaluation.runner import EvaluationInterrupted

    failed = False
    with _sigterm_as_interrupt() as stopped:
        for model in args.model or [DEFAULT_MODEL]:
            try:
                record = _evaluate_one(evaluate, model, args, out)
            except EvaluationInterrupted as stop:
                return _interrupted(stop.record, out, 143 if stopped else 130)
            path = save_record(record, out)
            print(f"\nwrote {path}", file=sys.stderr)
            failed |= any(v.get("status") == "error" for v in record["tasks"].values())
    report = write_report(out)
    print(render_markdown(load_records(out)))
    print(
        f"this table (every model evaluated into {out}, beside the paper's published rows) "
        f"is in {report}",
        file=sys.stderr,
    )
    return 1 if failed else 0


def _evaluate_one(evaluate, model, args, out: Path) -> dict:
    """:func:`pearl.evaluate` of one model with the command's options; the tasks already
    in ``out`` with this model and these settings are kept, not run (but with --rerun)."""
    return evaluate(
        model,
        tasks=args.tasks,
        data=args.data,
        short_text=args.short_text,
        quick=args.quick,
        seed=args.seed,
        batch_size=args.batch_size,
        retrieval_index=args.retrieval_index,
        cache=not args.no_cache,
        show_progress_bar=not args.quiet,
        probe_runs=args.probe_runs,
        resume=None if args.rerun else out,
    )


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[list[int]]:
    """SIGTERM (a closed session, ``kill``, a scheduler's stop) stops ``pearl eval`` as
    Ctrl-C does: the finished tasks saved, one line said; the yielded list then holds the
    signal. Outside the main thread, where Python sets no handler, SIGTERM keeps its
    usual effect (as :func:`~pearl.training.checkpoint.stop_on_signals` does)."""
    stopped: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield stopped
        return

    def stop(signum, frame):
        stopped.append(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield stopped
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupted(record: dict, out: Path, status: int = 130) -> int:
    """Ctrl-C (or SIGTERM) during ``pearl eval``: the finished tasks saved (merged into an
    earlier record of the same model, as any run is), what was not run said; exit status
    130 (143 for SIGTERM)."""
    from pearl.evaluation import save_record

    stop = record["interrupted"]
    kept = ""
    if record["tasks"]:
        kept = f"; the {len(record['tasks'])} finished task(s) are in {save_record(record, out)}"
    print(
        f"\ninterrupted during {stop['task']}{kept}. Run the same command again to finish "
        f"the rest ({','.join(stop['not_run'])}); embeddings already computed are cached",
        file=sys.stderr,
    )
    return status


def add_eval(sub) -> None:
    """The ``pearl eval`` command."""
    p = sub.add_parser(
        "eval",
        help="run the PEARL benchmark",
        description="Run the PEARL benchmark (9 phrase datasets + 4 short-text sets) with the "
        "paper's protocols. Writes <output>/<model>.json and <output>/results.md (a table of "
        "every model evaluated into that folder) and prints the table.",
    )
    model_arg(p, multi=True)
    p.add_argument(
        "-t",
        "--tasks",
        default="all",
        help="comma-separated tasks or groups: all, phrase, short_text, ppdb, "
        "ppdb_filtered, turney, bird, yago, umls, conll2003, bc5cdr, autofj, "
        "twitter_s, twitter_l, atis_s, atis_l (default: all)",
    )
    p.add_argument("--data", help="benchmark root (default: $PEARL_DATA/benchmark)")
    p.add_argument("--short-text", help="short-text root (default: <data>/../short_text)")
    p.add_argument(
        "-o",
        "--output",
        help="results folder (default: $PEARL_RESULTS or "
        "pearl-results/, and its quick/ subfolder with --quick)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="subsample every task for a smoke run (labelled QUICK in the output)",
    )
    p.add_argument(
        "--seed", type=int_at_least(0), default=0, help="seed of splits and probes (default 0)"
    )
    p.add_argument(
        "--probe-runs",
        type=POSITIVE,
        default=5,
        help="PPDB/PPDB-filtered: mean over N probe runs with seeds seed..seed+N-1 "
        "(default 5; every run and the first run's score are kept in the record; "
        "1 is the paper's single probe)",
    )
    p.add_argument("-b", "--batch-size", type=POSITIVE, default=64, help="encoding batch size")
    p.add_argument(
        "--retrieval-index",
        choices=["flat", "ivfpq"],
        default="flat",
        help="YAGO/UMLS search: exact (flat, default) or the paper's IVF-PQ",
    )
    p.add_argument(
        "--no-cache", action="store_true", help="do not read or write the on-disk embedding cache"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.add_argument(
        "--rerun",
        action="store_true",
        help="run every task again, also those the output folder's record of the model "
        "already holds with the same settings (by default they are kept, not run)",
    )
    p.set_defaults(func=cmd_eval)


def cmd_model_card(args) -> int:
    from pathlib import Path

    from pearl.evaluation.model_card import (
        is_static_folder,
        write_card,
        write_model_card,
        write_static_model_card,
    )

    training = Path(args.folder) / "training"
    if not (training / "config.json").is_file() and (training / "finetune.json").is_file():
        path = write_card(args.folder)  # a sentence-transformers model fine-tuned
    elif is_static_folder(args.folder):
        path = write_static_model_card(args.folder, args.results, speed=args.speed)
    else:
        path = write_model_card(
            args.folder, args.results, args.backbone, args.train_seconds, args.command
        )
    print(path)
    return 0


def add_model_card(sub) -> None:
    """The ``pearl model-card`` command."""
    p = sub.add_parser(
        "model-card",
        help="write the README.md of a trained model folder",
        description="Render FOLDER/README.md from what the folder records "
        "(training config, loss curve) and the pearl eval records in "
        "--results.",
    )
    p.add_argument("folder", help="model folder written by pearl train, train-static or finetune")
    p.add_argument("--results", help="folder of pearl eval records (JSON)")
    p.add_argument("--backbone", help="name of the backbone's record (default: the config's)")
    p.add_argument(
        "--train-seconds",
        type=float_between(0.0, float("inf")),
        help="training wall time, when the folder does not record it",
    )
    p.add_argument("--command", help="the command that trained the model")
    p.add_argument("--speed", help="pearl-static: a model_speed.json record")
    p.set_defaults(func=cmd_model_card)


def cmd_benchmark_strings(args) -> int:
    from pearl._io import write_text_atomic
    from pearl.evaluation.tasks.autofj import autofj_strings
    from pearl.paths import benchmark_dir

    if args.dev_proxy:
        from pearl.evaluation.dev_proxy import dev_strings

        check_output(args.output, [], "--output")
        strings, what = dev_strings(), "development proxy strings"
    else:
        data = Path(args.data) if args.data else benchmark_dir()
        check_output(args.output, [data], "--output")
        strings, what = autofj_strings(data / "autofj"), "benchmark strings"
    write_text_atomic(args.output, "".join(f"{s}\n" for s in strings))
    print(f"{len(strings):,} {what} -> {args.output}", file=sys.stderr)
    return 0


def add_benchmark_strings(sub) -> None:
    """The ``pearl benchmark-strings`` command."""
    p = sub.add_parser(
        "benchmark-strings",
        help="list the benchmark strings training data must exclude",
        description="Write every AutoFJ title of the benchmark (left and right tables, one "
        "per line, sorted), or with --dev-proxy every string of the development proxy (ISO 3166 "
        "names and their seeded typos; needs pycountry, the train extra): the lists that "
        "the shipped recipes pass to `pearl aliases --exclude`, so that no alias group "
        "holds an evaluation string.",
    )
    p.add_argument("-o", "--output", required=True, help="the list to write (one per line)")
    p.add_argument("--data", help="benchmark root (default: $PEARL_DATA/benchmark)")
    p.add_argument(
        "--dev-proxy", action="store_true", help="the development proxy's strings instead"
    )
    p.set_defaults(func=cmd_benchmark_strings)


def register(sub) -> None:
    """Add this group's commands to the ``pearl`` sub-parsers."""
    add_eval(sub)
    add_model_card(sub)
    add_benchmark_strings(sub)
