"""The ``pearl review`` command: a join's borderline pairs labelled by hand, each answer
saved as it is given."""

from __future__ import annotations

import sys
from pathlib import Path

from pearl._io import check_writable
from pearl.cli._common import (
    COSINE,
    POSITIVE,
    add_encoding,
    float_between,
    key_args,
    key_names,
    key_sides,
    model_arg,
    read_table,
    write_table,
)

__all__ = ["add_review", "cmd_review", "known_matches", "register"]


def known_matches(path: str) -> list[tuple[int, int]]:
    """The pairs of a file of known matches: its first two columns, row numbers of LEFT
    and RIGHT (0 = the first data row); of a ``pearl review`` file, its pairs labelled 1."""
    from pearl.tables.review import REVIEW_COLUMNS, check_review_table, whole_numbers

    table = read_table(path)
    if set(REVIEW_COLUMNS) <= set(table.columns):
        table = check_review_table(table, path)
        table = table[table["label"] == 1][["left_row", "right_row"]]
        if not len(table):
            raise ValueError(f"{path}: no pair is labelled a match (label 1)")
    if table.shape[1] < 2:
        raise ValueError(f"{path}: --known-matches needs two columns (left row, right row)")
    rows = [whole_numbers(table.iloc[:, k], f"{path}: --known-matches' rows") for k in (0, 1)]
    return [(int(a), int(b)) for a, b in zip(*rows, strict=True)]


def cmd_review(args) -> int:
    from pearl.tables import join_report
    from pearl.tables.review import check_review_table, review_pairs

    key_sides(args)
    labelled = None
    if Path(args.output).is_file():  # an earlier session's labels: kept, not asked again
        labelled = check_review_table(read_table(args.output), args.output)  # pearl's: UTF-8
    check_writable(args.output, "review file")  # before any question, not after the last
    known = known_matches(args.known_matches) if args.known_matches else None
    report = join_report(
        read_table(args.left, encoding=args.encoding),
        read_table(args.right, encoding=args.encoding),
        left_on=key_names(args.left_on),
        right_on=key_names(args.right_on),
        threshold=args.threshold,
        precision=args.precision,
        model=args.model,
        known_matches=known,
        borderline=0,
    )
    # every answer is written as it is given (atomically): a closed terminal, SIGTERM or
    # SIGHUP between questions loses none
    table = review_pairs(
        report,
        args.n,
        show=lambda text: print(text, file=sys.stderr),
        labelled=labelled,
        save=lambda labels: write_table(labels, args.output),
    )
    before = 0 if labelled is None else len(labelled)
    if len(table) == before:
        print(f"no new label; {args.output} unchanged", file=sys.stderr)
        return 0
    print(
        f"wrote {len(table):,} labels ({int(table['label'].sum()):,} matches, "
        f"{len(table) - before:,} new) to {args.output}; use them with pearl join "
        f"--known-matches {args.output} or pearl finetune {args.output}",
        file=sys.stderr,
    )
    return 0


def add_review(sub) -> None:
    """The ``pearl review`` command."""
    p = sub.add_parser(
        "review",
        help="label a join's borderline pairs by hand",
        description="Join LEFT and RIGHT as pearl join does, show the pairs nearest the "
        "threshold one by one and ask whether each is the same entity (y/n/s/q), and save "
        "the answers to OUTPUT (left_row, right_row, left, right, label, match_score). An "
        "existing OUTPUT's labels are kept and their pairs not asked again. Use the file "
        "with pearl join --known-matches (several key columns) or pearl finetune.",
    )
    p.add_argument("left", help="left table file (CSV, TSV or Parquet)")
    p.add_argument("right", help="right table file")
    key_args(p)
    p.add_argument("-o", "--output", required=True, help="labels CSV to write (or add to)")
    p.add_argument("-n", type=POSITIVE, default=20, help="pairs to ask about (default 20)")
    p.add_argument("--threshold", type=COSINE, default=None, help="as pearl join's")
    p.add_argument(
        "--target-precision", dest="precision", type=float_between(0.0, 1.0), help="as pearl join's"
    )
    p.add_argument("--known-matches", metavar="FILE", help="as pearl join's")
    model_arg(p)
    add_encoding(p)
    p.set_defaults(func=cmd_review)


def register(sub) -> None:
    """Add ``pearl review`` to the ``pearl`` sub-parsers."""
    add_review(sub)
