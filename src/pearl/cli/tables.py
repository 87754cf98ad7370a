"""Table commands: join, dedup, topics (review: :mod:`pearl.cli.review`)."""

from __future__ import annotations

import sys
from pathlib import Path

from pearl._extras import pyplot
from pearl._io import check_output
from pearl._progress import no_progress
from pearl._terminal import printable
from pearl.cli._common import (
    COMPRESSION,
    COSINE,
    PARQUET,
    POSITIVE,
    TSV,
    add_encoding,
    close_client,
    dask_args,
    dask_client,
    float_between,
    int_at_least,
    key_args,
    key_names,
    key_sides,
    model_arg,
    read_parquet,
    read_table,
    utf8_only,
    write_table,
)
from pearl.encoders import TABLE_BATCH_SIZE


def cmd_join_distributed(args) -> int:
    utf8_only(args, "on Dask")
    if max(len(args.left_on), len(args.right_on)) > 1:  # refused before a cluster starts
        from pearl.distributed.graph import MULTI_KEY

        raise ValueError(MULTI_KEY)
    # a file name (out.parquet, out.csv) gets one file; a folder name the Parquet parts
    single = Path(args.output).suffix.lower() in {*PARQUET, *TSV, ".csv", *COMPRESSION}
    folder = _parts_folder(args.output) if single else Path(args.output)
    client = dask_client(args)
    try:
        from pearl.distributed import dask as pdk

        out = pdk.join_to_parquet(
            args.left,
            args.right,
            folder,
            left_on=key_names(args.left_on),
            right_on=key_names(args.right_on),
            model=args.model,
            threshold=args.threshold,
            top_k=args.top_k,
            how=args.how,
            batch_size=args.batch_size,
            right_shards=args.right_shards,
            index=args.index,
            matcher=args.matcher,
            partitions=args.partitions,
            show_progress_bar=not args.quiet,
            precision=args.precision,
        )
    finally:
        close_client(client)
    if not single:
        _say(args, f"wrote the joined table to {out}/part-*.parquet")
        return 0
    import shutil

    import pandas as pd

    parts = sorted(Path(out).glob("part-*.parquet"))
    frame = pd.concat([read_parquet(p) for p in parts], ignore_index=True)
    write_table(frame, args.output)
    shutil.rmtree(out)  # the parts, written by pearl beside the output for this run
    _say(args, f"wrote {len(frame):,} rows to {args.output}")
    return 0


def _parts_folder(output: str) -> Path:
    """Where the Dask join writes its parts for an output file: a hidden sibling folder,
    kept if the run stops (a re-run skips the finished parts), removed once the file is
    written."""
    out = Path(output)
    return out.with_name(f".{out.name}.parts")


def cmd_join(args) -> int:
    with no_progress(args.quiet):
        return _join(args)


def _say(args, text: str) -> None:
    """A summary line on standard error, unless ``-q``."""
    if not getattr(args, "quiet", False):
        print(text, file=sys.stderr)


def _join(args) -> int:
    from pearl.cli.review import known_matches
    from pearl.tables import join_report

    key_sides(args)
    if args.left == args.right == "-":
        raise ValueError("LEFT and RIGHT cannot both be '-' (standard input is read once)")
    check_output(args.output, [args.left, args.right], "--output")
    if args.report == "-":
        raise ValueError("--report '-': name a file for the page")
    if args.report is not None and Path(args.report).resolve() == Path(args.output).resolve():
        raise ValueError("--report and --output name the same file")
    if args.scheduler or args.workers:
        if args.report is not None:
            raise ValueError("--report is not offered on Dask (it reads every row's scores)")
        return cmd_join_distributed(args)
    left = read_table(args.left, encoding=args.encoding)
    left_on, right_on = key_names(args.left_on), key_names(args.right_on)
    multi = isinstance(left_on, list) or isinstance(right_on, list)
    right = read_table(
        args.right, chunksize=None if multi else args.right_chunksize, encoding=args.encoding
    )
    known = known_matches(args.known_matches) if args.known_matches else None
    report = join_report(
        left,
        right,
        left_on=left_on,
        right_on=right_on,
        threshold=args.threshold,
        top_k=args.top_k,
        how=args.how,
        model=args.model,
        batch_size=args.batch_size,
        matcher=args.matcher,
        precision=args.precision,
        known_matches=known,
        one_to_one=args.one_to_one,
    )
    out = report.result
    write_table(out, args.output)
    if args.report is not None:
        report.write_html(args.report)
        _say(args, f"wrote the report to {args.report}")
    score = [c for c in out.columns if str(c).startswith("match_score")][-1]
    matched = int(out[score].notna().sum())
    _say(args, f"wrote {len(out):,} rows ({matched:,} matched) to {args.output}")
    return 0


def cmd_dedup(args) -> int:
    with no_progress(args.quiet):
        return _dedup(args)


def _dedup(args) -> int:
    import pandas as pd

    from pearl.tables import deduplicate
    from pearl.tables.encoding import to_string_list

    check_output(args.output, [args.table], "--output")
    table = read_table(args.table, encoding=args.encoding)
    columns = list(dict.fromkeys(args.column))
    if missing := [c for c in columns if c not in table.columns]:
        raise ValueError(f"no column {missing[0]!r} in {args.table}")
    new_column = "cluster" if len(columns) > 1 else f"{columns[0]}_deduplicated"
    if new_column in table.columns:
        raise ValueError(
            f"{args.table} already has a column {new_column!r}; rename "
            "it first (pearl never overwrites an input column)"
        )
    options = {"threshold": args.threshold, "model": args.model, "matcher": args.matcher}
    if len(columns) > 1:
        return _dedup_records(table, columns, args, options)
    column = columns[0]
    canon = deduplicate(table[column], top_k=args.top_k, **options)
    table[new_column] = canon
    write_table(table, args.output)
    texts, _ = to_string_list(table[column], non_string="str")  # what deduplicate compared
    changed = int((canon.notna() & (canon != pd.Series(texts, index=canon.index))).sum())
    _say(
        args,
        f"wrote {args.output}: {changed:,} of {len(table):,} values mapped to another "
        f"representative ({pd.Series(canon).nunique():,} distinct left)",
    )
    return 0


def _dedup_records(table, columns: list[str], args, options: dict) -> int:
    """The rows clustered as records (:func:`pearl.cluster` of a table), as ``cluster``."""
    import pandas as pd

    from pearl.tables import cluster

    labels = cluster(table[columns], top_k=args.top_k, **options)
    table["cluster"] = pd.array([None if lab < 0 else int(lab) for lab in labels], dtype="Int64")
    write_table(table, args.output)
    sizes = table["cluster"].value_counts()
    shared = f"{int(sizes[sizes > 1].sum()):,} rows share theirs with another row"
    _say(args, f"wrote {args.output}: {len(sizes):,} clusters; {shared}")
    return 0


def cmd_topics(args) -> int:
    from pearl.tables.topics import (
        PhraseTopicModel,
        document_vocabulary,
        read_documents,
        write_topics,
    )

    check_output(args.output, [args.documents] + ([args.vocab] if args.vocab else []), "--output")
    docs = read_documents(args.documents, args.split, args.encoding)
    if args.vocab:
        from pearl.data.corpus import read_corpus

        present = set(document_vocabulary(docs, min_df=args.min_df, max_terms=10**9))
        vocab = [r.phrase for r in read_corpus(args.vocab) if r.phrase.lower() in present]
    else:
        vocab = document_vocabulary(docs, min_df=args.min_df)
    pyplot("plotting the topics")  # before training, not after
    model = PhraseTopicModel(
        args.topics,
        model=args.model,
        epochs=args.epochs,
        seed=args.seed,
        show_progress_bar=not args.quiet,
    )
    model.fit(docs, vocabulary=vocab)
    write_topics(model, docs, args.output)
    print(
        f"{len(docs):,} documents, {len(vocab):,} terms, {args.topics} topics in {args.output}",
        file=sys.stderr,
    )
    print(printable((Path(args.output) / "topics.md").read_text(encoding="utf-8"), lines=True))
    return 0


def add_join(sub) -> None:
    """The ``pearl join`` command."""
    p = sub.add_parser(
        "join",
        help="fuzzy-join two tables (CSV, TSV, Parquet)",
        description="Each row of LEFT takes its most similar row(s) of RIGHT: by default the "
        "combined matcher (embedding and character n-gram candidates, scored by a learned "
        "match probability); with --matcher cosine, the cosine of phrase embeddings. Rows "
        "below --threshold keep empty right columns (--how left) or are dropped (--how "
        "inner). A match_score column is added. Table formats follow the file names "
        "(.parquet, .tsv, else CSV).",
    )
    p.add_argument("left", help="left table file (CSV, TSV or Parquet; '-': CSV on standard input)")
    p.add_argument(
        "right",
        help="right table file (a CSV or TSV is read in chunks, see --right-chunksize; '-': "
        "CSV on standard input)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars or summary line")
    key_args(
        p,
        "string column of LEFT to match; several columns (as many as --right-on) "
        "link records field by field into one match probability",
    )
    out_help = "joined table to write (.csv, .tsv, .parquet; '-': CSV on standard output)"
    p.add_argument("-o", "--output", required=True, help=out_help)
    p.add_argument(
        "--threshold",
        type=COSINE,
        default=None,
        help="minimum match score: a probability in [0, 1] with the combined matcher "
        "(the default) or several key columns, a cosine in [-1, 1] with --matcher "
        "cosine. Default: 0.5 on a match probability (a row whose best candidate is "
        "unlikely stays unmatched; 0 links every row), none with --matcher cosine",
    )
    p.add_argument("--top-k", type=POSITIVE, default=1, help="matches per left row (default 1)")
    p.add_argument(
        "--how",
        choices=["left", "inner"],
        default="left",
        help="keep unmatched left rows (left, default) or drop them (inner)",
    )
    p.add_argument(
        "--matcher",
        choices=["cosine", "combined"],
        default="combined",
        help="combined (default): embedding and character n-gram candidates "
        "scored by a learned match probability; cosine: the embeddings' cosine",
    )
    p.add_argument(
        "--target-precision",
        "--precision",
        dest="precision",
        type=float_between(0.0, 1.0),
        help="with --matcher combined: pick the threshold so that the expected "
        "precision of the matches is at least this (e.g. 0.9), instead of "
        "--threshold (not with it); --precision is "
        "the older name (in sentence-transformers, precision means quantization)",
    )
    _add_join_linkage_options(p)
    p.add_argument(
        "--right-chunksize",
        type=POSITIVE,
        default=100_000,
        help="rows of RIGHT embedded at a time (default 100000; a join on several "
        "columns reads RIGHT whole)",
    )
    model_arg(p)
    p.add_argument(
        "-b",
        "--batch-size",
        type=POSITIVE,
        default=TABLE_BATCH_SIZE,
        help=f"encoding batch size (default {TABLE_BATCH_SIZE})",
    )
    _add_join_dask_options(p)
    add_encoding(p)
    p.set_defaults(func=cmd_join)


def _add_join_linkage_options(p) -> None:
    """``pearl join``'s options for record linkage and its report."""
    p.add_argument(
        "--known-matches",
        metavar="FILE",
        help="with several key columns: a CSV/TSV/Parquet file of rows known to match, "
        "its first two columns the row numbers in LEFT and RIGHT (0 = first data row); "
        "the record-linkage model learns from them instead of by EM",
    )
    p.add_argument("--one-to-one", action="store_true", help="see fuzzy_join's one_to_one")
    p.add_argument(
        "--report",
        metavar="HTML",
        help="also write a page on the join's decisions: each key column's match weights, "
        "the histogram of match scores, the expected precision and recall over the "
        "threshold, and the borderline pairs (pearl.join_report)",
    )


def _add_join_dask_options(p) -> None:
    """``pearl join``'s options for tables on Dask."""
    g = p.add_argument_group(
        "tables on Dask",
        "With --scheduler or --workers, LEFT and RIGHT are Parquet files or "
        "folders (or CSV files) and --output a Parquet folder, one part per left partition; "
        "re-running the same command after an interruption skips the finished parts. Needs "
        "pip install 'pearl[dask]'.",
    )
    dask_args(g)
    g.add_argument(
        "--right-shards",
        type=POSITIVE,
        default=1,
        help="split the reference side into N shards (default 1: the whole "
        "reference index goes to each worker)",
    )
    g.add_argument(
        "--index",
        choices=["exact", "hnsw"],
        default="exact",
        help="exact cosine top-k (default; the same result as without Dask) or "
        "an approximate faiss HNSW index per shard",
    )


def add_dedup(sub) -> None:
    """The ``pearl dedup`` command."""
    p = sub.add_parser(
        "dedup",
        help="deduplicate a column of a table, or its rows on several columns (CSV, TSV, Parquet)",
        description="Add <column>_deduplicated: each value mapped to the most frequent value "
        "of its cluster of similar values. Several columns: add 'cluster', the rows clustered "
        "as records (as pearl join on several columns).",
    )
    p.add_argument(
        "table",
        help="table file (CSV, TSV or Parquet, from the file name; '-': CSV on standard input)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars or summary line")
    column_help = "column to deduplicate; several: the columns of a record (name, birth date...)"
    p.add_argument(
        "--column", "--columns", dest="column", nargs="+", required=True, help=column_help
    )
    out_help = "table to write (.csv, .tsv, .parquet; '-': CSV on standard output)"
    p.add_argument("-o", "--output", required=True, help=out_help)
    p.add_argument(
        "--threshold",
        type=COSINE,
        default=None,
        help="minimum average similarity within a cluster: a match probability "
        "in [0, 1] (default 0.6), or a cosine with --matcher cosine (default 0.7)",
    )
    matcher_help = "similarity: the combined match probability (embedding + character n-grams)"
    p.add_argument(
        "--matcher",
        choices=["combined", "cosine"],
        default="combined",
        help=f"{matcher_help}, the default, or the embedding cosine",
    )
    p.add_argument(
        "-k",
        "--top-k",
        type=POSITIVE,
        default=5,
        help="neighbours linked per value, by embedding and by n-grams (default 5; raise it "
        "when one entity has many spellings)",
    )
    model_arg(p)
    add_encoding(p)
    p.set_defaults(func=cmd_dedup)


def add_topics(sub) -> None:
    """The ``pearl topics`` command."""
    p = sub.add_parser(
        "topics",
        help="phrase-based topic model of a document collection",
        description="Learn K topics from documents embedded by a phrase model (Phrase-BERT's "
        "PNTM) and describe each by its nearest words and phrases. Writes topics.csv, "
        "document_topics.csv, topics.md and topics.png into --output.",
    )
    p.add_argument("documents", help="text file of documents (UTF-8, or see --encoding)")
    p.add_argument("-k", "--topics", type=POSITIVE, default=20, help="topics (default 20)")
    p.add_argument("-o", "--output", required=True, help="folder to write")
    p.add_argument(
        "--split",
        choices=["lines", "blank"],
        default="lines",
        help="one document per line (default) or blocks between empty lines",
    )
    p.add_argument(
        "--vocab",
        help="describe topics with the phrases of this corpus.tsv "
        "(pearl build-corpus) found in the documents; default: the documents' "
        "frequent word n-grams",
    )
    p.add_argument(
        "--min-df", type=POSITIVE, default=5, help="documents a term must occur in (default 5)"
    )
    p.add_argument("--epochs", type=POSITIVE, default=30, help="training epochs (default 30)")
    p.add_argument("--seed", type=int_at_least(0), default=0, help="seed (default 0)")
    model_arg(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    add_encoding(p)
    p.set_defaults(func=cmd_topics)


def register(sub) -> None:
    """Add this group's commands to the ``pearl`` sub-parsers."""
    add_join(sub)
    add_dedup(sub)
    add_topics(sub)
