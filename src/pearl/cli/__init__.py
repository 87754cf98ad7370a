"""The ``pearl`` command line: a thin layer over the public API.

One module per group of commands: :mod:`~pearl.cli.use` (encode, similarity, index),
:mod:`~pearl.cli.tables` (join, dedup, topics), :mod:`~pearl.cli.evaluate` (eval,
model-card), :mod:`~pearl.cli.training_data` and :mod:`~pearl.cli.train`. This
module builds the parser, guards every command's outputs and runs it.
"""

from __future__ import annotations

import argparse
import logging
import sys
import warnings

from pearl._extras import MissingExtraError
from pearl._terminal import printable, show_warnings_plainly
from pearl.cli import evaluate, review, tables, train, training_data, use
from pearl.encoders.resolve import DEFAULT_MODEL

__all__ = ["IO", "NOT_PATHS", "STDOUT", "build_parser", "guard", "leaf_commands", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``pearl`` command."""
    parser = argparse.ArgumentParser(
        prog="pearl",
        description="Phrase embeddings that understand names, typos and types. "
        f"Models (default: {DEFAULT_MODEL}): 'pearl-minilm' and 'pearl-static' (shipped), "
        "'all-MiniLM-L6-v2' and 'all-mpnet-base-v2' (offline), 'glove', 'string-distance', "
        "a sentence-transformers folder, or a Hugging Face name where the hub is reachable.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    parser.add_argument("--version", action="version", version=f"pearl {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", help="what to do")
    for group in (use, tables, review, evaluate, training_data, train):
        group.register(sub)
    for name, leaf in leaf_commands(parser):
        leaf.set_defaults(io_command=name)  # the key of IO, for the output guard
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pearl")
    except PackageNotFoundError:  # a source tree that is not installed
        return "unknown"


def leaf_commands(parser: argparse.ArgumentParser, prefix: str = ""):
    """``(name, parser)`` of every command that runs (``"index build"``...)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from leaf_commands(sub, f"{prefix} {name}".strip())
            return
    yield prefix, parser


#: What each command reads and writes, by argument name. :func:`main` hands both to the
#: one output guard (:func:`pearl._io.check_io`) before the command runs, so no command
#: writes over, into or around what it reads. Every argument of every command is listed
#: here or in :data:`NOT_PATHS` (``tests/test_cli.py`` enumerates the parser to check it).
IO: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "encode": (("input", "model"), ("output",)),
    "similarity": (("input", "model"), ()),
    "eval": (("model", "data", "short_text"), ("output",)),
    "index build": (("names", "model"), ("output",)),
    "index search": (("index_dir", "input", "model"), ("output",)),
    "join": (("left", "right", "model", "known_matches"), ("output", "report")),
    "review": (("left", "right", "model", "known_matches"), ("output",)),
    "dedup": (("table", "model"), ("output",)),
    "topics": (("documents", "vocab", "model"), ("output",)),
    "build-corpus": (("data", "corpus", "lexicon"), ("output",)),
    "augment": (("corpus", "model", "data"), ("output",)),
    "mine": (("corpus", "model", "exclude"), ("output",)),
    "triplets": (("augmented", "corpus", "data"), ("output",)),
    "teacher": (("corpus", "model"), ("output",)),
    "train": (("config", "backbone", "corpus", "augmented", "negatives"), ("output",)),
    "finetune": (("pairs", "config", "model", "dev", "test"), ("output", "checkpoint_dir")),
    "aliases": (("corpus", "text", "wordnet", "replay", "negatives", "exclude"), ("output",)),
    "distill-static": (("model",), ("output",)),
    "add-static": (("model", "static"), ("output",)),
    "add-split": (("model",), ("output",)),
    "train-static": (("config",), ("output",)),
    "matcher-weights": (("corpus", "model", "negatives", "aliases", "data"), ("output",)),
    "model-card": (("results", "speed"), ()),
    "benchmark-strings": (("data",), ("output",)),
}


#: arguments that name no file or folder
NOT_PATHS = frozenset(
    {
        "texts",
        "batch_size",
        "normalize",
        "quiet",
        "column",
        "keys",
        "scheduler",
        "shared_words",
        "workers",
        "partitions",
        "query",
        "candidates",
        "tasks",
        "quick",
        "rerun",
        "seed",
        "probe_runs",
        "retrieval_index",
        "no_cache",
        "index",
        "queries",
        "matcher",
        "on",
        "left_on",
        "right_on",
        "threshold",
        "top_k",
        "how",
        "precision",
        "right_chunksize",
        "one_to_one",
        "unmatched_share",
        "right_shards",
        "topics",
        "split",
        "min_df",
        "epochs",
        "min_freq",
        "typed_min_freq",
        "max_tokens",
        "no_lists",
        "list_types",
        "processes",
        "limit",
        "contexts",
        "levels",
        "weights",
        "views",
        "glove_threshold",
        "glove_keep_names",
        "mine_paraphrases",
        "min_ratio",
        "max_cosine",
        "chunk_size",
        "device",
        "set",
        "resume",
        "ship",
        "checkpoint_every",
        "dry_run",
        "loss",
        "encoder",
        "lr",
        "validation",
        "patience",
        "max_steps",
        "average_weight",
        "encoding",
        "save_dtype",
        "negatives_per_group",
        "word_negatives",
        "n_replay",
        "min_definitions",
        "max_variants",
        "pca_dims",
        "n_buckets",
        "n",
        "n_aliases",
        "folder",
        "backbone",
        "train_seconds",
        "command",
        "help",
        "func",
        "index_command",
        "io_command",
        "dev_proxy",
    }
)


#: the commands whose ``--output -`` means standard output; for any other, ``-`` is refused
#: before any work (it would otherwise name a file ``-``, possibly the input ``./-``)
STDOUT = frozenset({"encode", "join", "dedup", "index search"})


def guard(command: str, args) -> None:
    """Refuse, before any work, a command whose outputs overlap its inputs (see :data:`IO`),
    or that is asked to write ``-`` (standard output) and has no such mode."""
    from pearl._io import check_io
    from pearl.encoders.resolve import model_folder

    reads, writes = IO[command]
    for name in writes:
        if getattr(args, name, None) == "-" and (
            command not in STDOUT or (command == "encode" and getattr(args, "column", None))
        ):
            raise ValueError(
                f"--{name.replace('_', '-')} '-': pearl {command} cannot write to standard "
                "output; name a file or folder (./- for one named '-')"
            )
    inputs: list = []
    for name in reads:
        value = getattr(args, name, None)
        values = value if isinstance(value, list) else [value]
        if name in ("model", "backbone"):
            values = [model_folder(v) for v in values]
        inputs += [v for v in values if v is not None]
    outputs = {f"--{name.replace('_', '-')}": getattr(args, name, None) for name in writes}
    check_io(outputs, inputs)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pearl`` console script."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    args.argv = argv  # the command line, for the records that name it
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    from pearl._validation import InputError

    shown_before = warnings.showwarning
    show_warnings_plainly()  # "pearl: warning: ...", no Python source line beneath
    try:
        guard(args.io_command, args)
        return args.func(args)
    except (OSError, ValueError, InputError, MissingExtraError) as exc:
        # what pearl raises about its input; any other exception is a bug and surfaces
        # with its traceback
        print(f"pearl: error: {printable(exc, lines=True)}", file=sys.stderr)
        return 2
    except MemoryError as exc:  # NumPy's _ArrayMemoryError says how much it asked for
        print(
            f"pearl: error: out of memory: {exc or 'an allocation failed'}. This input needs "
            "more memory than the process may use (see ulimit -v and free memory): split "
            "the input, stream a large right table (--right-chunksize), spread the work "
            "with --workers (Dask), or use pearl-static's smaller vectors",
            file=sys.stderr,
        )
        return 2
    finally:
        warnings.showwarning = shown_before
