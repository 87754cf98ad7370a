"""Commands that use a model: encode, similarity, index."""

from __future__ import annotations

import json
import sys

from pearl._io import atomic_path, check_output
from pearl._terminal import printable
from pearl.cli._common import (
    POSITIVE,
    add_encoding,
    close_client,
    dask_args,
    dask_client,
    model_arg,
    read_lines,
    texts_of,
    utf8_only,
    write_table,
)


def cmd_encode_table(args) -> int:
    utf8_only(args, "with --column")
    if not args.input or not args.output:
        raise ValueError(
            "--column encodes a table: give --input TABLE (Parquet or "
            "CSV) and --output FOLDER (Parquet)"
        )
    check_output(args.output, [args.input], "--output")
    client = dask_client(args)
    try:
        from pearl.distributed import dask as pdk

        out = pdk.encode_to_parquet(
            args.input,
            args.column,
            args.output,
            model=args.model,
            keys=args.keys.split(",") if args.keys else None,
            batch_size=args.batch_size,
            normalize=args.normalize,
            partitions=args.partitions,
            show_progress_bar=not args.quiet,
        )
    finally:
        close_client(client)
    print(f"wrote the embeddings of {args.column!r} to {out}/part-*.parquet", file=sys.stderr)
    return 0


def cmd_encode(args) -> int:
    import numpy as np

    from pearl._validation import check_texts
    from pearl.encoders import load_encoder
    from pearl.encoders.base import is_embedding_model

    if args.column:
        return cmd_encode_table(args)
    texts = check_texts(texts_of(args))  # invalid UTF-8 arguments arrive as U+FFFD
    enc = load_encoder(args.model)
    if not is_embedding_model(enc):
        raise ValueError(f"{args.model} has no embeddings")
    emb = enc.encode(
        texts,
        batch_size=args.batch_size,
        normalize=args.normalize,
        show_progress_bar=not args.quiet,
    )
    if args.output in (None, "-"):
        for t, v in zip(texts, emb, strict=True):
            print(
                json.dumps(
                    {"text": t, "embedding": [round(float(x), 6) for x in v]}, ensure_ascii=False
                )
            )
        return 0
    with atomic_path(args.output) as tmp, open(tmp, "wb") as f:
        if args.output.endswith(".npy"):
            np.save(f, emb, allow_pickle=False)
        else:
            np.savetxt(f, emb, delimiter=",", fmt="%.6g")
    print(f"wrote {emb.shape[0]} x {emb.shape[1]} embeddings to {args.output}", file=sys.stderr)
    return 0


def cmd_similarity(args) -> int:
    import numpy as np

    from pearl._validation import check_texts
    from pearl.evaluation.string_distance import load_model

    candidates = list(args.candidates or [])
    if args.input:
        candidates += read_lines(args.input, args.encoding)
    if not candidates:
        raise ValueError("give candidates as arguments or --input FILE")
    candidates = check_texts(candidates)
    args.query = check_texts(args.query)[0]
    enc = load_model(args.model)  # an encoder, or the String Distance baseline
    sims = np.asarray(enc.similarity([args.query], candidates))[0]
    order = np.argsort(-sims, kind="stable")
    shown = [printable(c) for c in candidates]  # a cell's escape sequences do not act
    width = max(len(c) for c in shown)
    print(f"query: {printable(args.query)}   model: {getattr(enc, 'name', args.model)}")
    for rank, i in enumerate(order, 1):
        print(f"{rank:>3}. {shown[i]:<{width}}  {sims[i]:.4f}")
    return 0


def cmd_index_build(args) -> int:
    from pearl.tables import EntityIndex

    check_output(args.output, [args.names], "--output")
    idx = EntityIndex.from_file(
        args.names,
        encoding=args.encoding,
        model=args.model,
        index=args.index,
        batch_size=args.batch_size,
    )
    idx.save(args.output)
    print(
        f"indexed {len(idx):,} names into {args.output} ({args.index}; encoding "
        f"{idx.encode_seconds_:.1f}s, index {idx.index_seconds_:.1f}s)",
        file=sys.stderr,
    )
    return 0


def cmd_index_search(args) -> int:
    from pearl.tables import EntityIndex

    queries = list(args.queries or [])
    if args.input:
        queries += [q for q in read_lines(args.input, args.encoding) if q.strip()]
    if not queries:
        raise ValueError("give queries as arguments or --input FILE")
    if args.output:
        check_output(args.output, [args.input, args.index_dir], "--output")
    idx = EntityIndex.load(args.index_dir, model=args.model)
    frame = idx.search(queries, top_k=args.top_k, matcher=args.matcher).to_frame()
    if args.output:
        write_table(frame, args.output)
        print(f"wrote {len(frame)} rows to {args.output}", file=sys.stderr)
    else:
        shown = frame.copy()
        for column in shown.select_dtypes(include="object").columns:
            shown[column] = shown[column].map(printable)  # escape sequences do not act
        print(shown.to_string(index=False))
    return 0


def add_encode(sub) -> None:
    """The ``pearl encode`` command."""
    p = sub.add_parser(
        "encode",
        help="embed phrases",
        description="Embed phrases given as arguments and/or one per line in "
        "--input. Output: JSON lines on stdout, or --output FILE (.npy for a "
        "float32 array, anything else for CSV).",
    )
    p.add_argument("texts", nargs="*", help="phrases to embed")
    p.add_argument("-i", "--input", help="file with one phrase per line ('-' for stdin)")
    p.add_argument(
        "-o",
        "--output",
        help="write embeddings to FILE (.npy or .csv); '-' or none: JSON lines on standard output",
    )
    model_arg(p)
    p.add_argument("-b", "--batch-size", type=POSITIVE, default=64, help="batch size (default 64)")
    p.add_argument("--normalize", action="store_true", help="L2-normalise the embeddings")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    g = p.add_argument_group(
        "tables on Dask",
        "With --column, --input is a Parquet file or folder (or a CSV file) "
        "and --output a Parquet folder: one part per partition, the key columns beside an "
        "'embedding' column. Needs pip install 'pearl[dask]'.",
    )
    g.add_argument("--column", help="string column of --input to embed")
    g.add_argument(
        "--keys",
        help="comma-separated columns to keep beside the embedding (default: the embedded column)",
    )
    dask_args(g)
    add_encoding(p)
    p.set_defaults(func=cmd_encode)


def add_similarity(sub) -> None:
    """The ``pearl similarity`` command."""
    p = sub.add_parser(
        "similarity",
        help="rank candidates by cosine similarity to a query",
        description="Print the candidates sorted by cosine similarity to QUERY.",
    )
    p.add_argument("query", help="the query phrase")
    p.add_argument("candidates", nargs="*", help="candidate phrases")
    p.add_argument("-i", "--input", help="file with one candidate per line ('-' for stdin)")
    model_arg(p)
    add_encoding(p)
    p.set_defaults(func=cmd_similarity)


def add_index(sub) -> None:
    """The ``pearl index`` command."""
    p = sub.add_parser(
        "index",
        help="build or query an entity retrieval index",
        description="Entity retrieval over a dictionary of canonical names.",
    )
    isub = p.add_subparsers(
        dest="index_command",
        required=True,
        metavar="ACTION",
        help="build: index a names file; search: query an index",
    )
    q = isub.add_parser(
        "build",
        help="index a file of names (one per line)",
        description="Encode every line of NAMES and save a faiss index, the "
        "names and the model identity into --output.",
    )
    q.add_argument("names", help="text file, one canonical name per line")
    q.add_argument("-o", "--output", required=True, help="index folder to write")
    model_arg(q)
    q.add_argument(
        "--index",
        choices=["flat", "hnsw", "ivf"],
        default="flat",
        help="flat: exact (default); hnsw or ivf: approximate, for large dictionaries",
    )
    q.add_argument("-b", "--batch-size", type=POSITIVE, default=64, help="encoding batch size")
    add_encoding(q)
    q.set_defaults(func=cmd_index_build)
    q = isub.add_parser(
        "search",
        help="query a saved index",
        description="Print (or write as CSV) the top-k nearest names of each "
        "query: query, rank, name, id, score.",
    )
    q.add_argument("index_dir", help="folder written by 'pearl index build'")
    q.add_argument("queries", nargs="*", help="query phrases")
    q.add_argument("-i", "--input", help="file of queries, one per line (batch mode)")
    q.add_argument("-k", "--top-k", type=POSITIVE, default=5, help="matches per query (default 5)")
    q.add_argument(
        "--matcher",
        choices=["combined", "cosine"],
        default="combined",
        help="rank the 50 nearest names by embedding and the 50 nearest by character "
        "n-grams by the combined match probability (default), or rank by embedding cosine",
    )
    q.add_argument(
        "-o",
        "--output",
        help="write the matches to a table file (.csv, .tsv, "
        ".parquet; '-': CSV on standard output); default: printed",
    )
    q.add_argument(
        "-m",
        "--model",
        default=None,
        help="model (default: the one recorded in the index; another model is refused)",
    )
    add_encoding(q)
    q.set_defaults(func=cmd_index_search)


def register(sub) -> None:
    """Add this group's commands to the ``pearl`` sub-parsers."""
    add_encode(sub)
    add_similarity(sub)
    add_index(sub)
