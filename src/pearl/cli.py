"""The ``pearl`` command line: a thin layer over the public API."""

from __future__ import annotations

import argparse
import json
import logging
import shlex
import sys
from pathlib import Path

from pearl._extras import MissingExtraError, require
from pearl._io import atomic_path, check_io, check_output
from pearl.encoders.resolve import DEFAULT_MODEL

__all__ = ["main", "build_parser"]


def _int_at_least(low: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
        return value
    return parse


def _float_between(low: float, high: float):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not low <= value <= high:  # NaN fails too
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}, got {text}")
        return value
    return parse


POSITIVE = _int_at_least(1)
COSINE = _float_between(-1.0, 1.0)


_PARQUET = (".parquet", ".pq")
_TSV = (".tsv", ".tab")


def _write_csv(frame, path: str) -> None:
    """Write a table, its format from the file name (``.parquet``, ``.tsv``, else CSV), or
    CSV on standard output for ``-``; files atomically: an interrupt leaves any previous
    file as it was."""
    if path == "-":
        frame.to_csv(sys.stdout, index=False)
        return
    suffix = Path(path).suffix.lower()
    with atomic_path(path) as tmp:
        if suffix in _PARQUET:
            require("pyarrow", "writing a Parquet table")
            frame.to_parquet(tmp, index=False)
        else:
            frame.to_csv(tmp, index=False, sep="\t" if suffix in _TSV else ",")


def _read_lines(path: str) -> list[str]:
    if path == "-":
        return [line.rstrip("\n") for line in sys.stdin]
    p = Path(path)
    if not p.is_file():
        raise SystemExit(f"pearl: input file not found: {path}")
    with open(p, encoding="utf-8", errors="replace") as f:
        return [line.rstrip("\n") for line in f]


def _texts(args) -> list[str]:
    texts = list(args.texts or [])
    if args.input:
        texts += _read_lines(args.input)
    if not texts:
        raise SystemExit("pearl: no input: give phrases as arguments or --input FILE")
    return texts


def _dask_client(args):
    """A client to ``--scheduler``, or to a new local cluster of ``--workers`` processes."""
    try:
        from pearl.distributed import dask as pdk
    except ImportError as exc:
        raise SystemExit(f"pearl: {exc}") from None
    if args.scheduler:
        from distributed import Client

        return Client(args.scheduler)
    return pdk.local_client(args.workers)


def _close(client) -> None:
    cluster = getattr(client, "cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


def cmd_encode_table(args) -> int:
    if not args.input or not args.output:
        raise SystemExit("pearl: --column encodes a table: give --input TABLE (Parquet or "
                         "CSV) and --output FOLDER (Parquet)")
    check_output(args.output, [args.input], "--output")
    client = _dask_client(args)
    try:
        from pearl.distributed import dask as pdk

        out = pdk.encode_to_parquet(
            args.input, args.column, args.output, model=args.model,
            keys=args.keys.split(",") if args.keys else None, batch_size=args.batch_size,
            normalize=args.normalize, partitions=args.partitions, progress=not args.quiet)
    finally:
        _close(client)
    print(f"wrote the embeddings of {args.column!r} to {out}/part-*.parquet", file=sys.stderr)
    return 0


def cmd_encode(args) -> int:
    import numpy as np

    from pearl._validation import check_texts
    from pearl.encoders import load_encoder
    from pearl.encoders.base import is_embedding_model

    if args.column:
        return cmd_encode_table(args)
    texts = check_texts(_texts(args))  # invalid UTF-8 arguments arrive as U+FFFD
    enc = load_encoder(args.model)
    if not is_embedding_model(enc):
        raise SystemExit(f"pearl: {args.model} has no embeddings")
    emb = enc.encode(texts, batch_size=args.batch_size, normalize=args.normalize,
                     show_progress_bar=not args.quiet)
    if args.output in (None, "-"):
        for t, v in zip(texts, emb, strict=True):
            print(json.dumps({"text": t, "embedding": [round(float(x), 6) for x in v]},
                             ensure_ascii=False))
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
    from pearl.encoders import load_encoder

    candidates = list(args.candidates or [])
    if args.input:
        candidates += _read_lines(args.input)
    if not candidates:
        raise SystemExit("pearl: give candidates as arguments or --input FILE")
    candidates = check_texts(candidates)
    args.query = check_texts(args.query)[0]
    enc = load_encoder(args.model)
    sims = np.asarray(enc.similarity([args.query], candidates))[0]
    order = np.argsort(-sims, kind="stable")
    width = max(len(c) for c in candidates)
    print(f"query: {args.query}   model: {getattr(enc, 'name', args.model)}")
    for rank, i in enumerate(order, 1):
        print(f"{rank:>3}. {candidates[i]:<{width}}  {sims[i]:.4f}")
    return 0


def cmd_eval(args) -> int:
    from pearl.evaluation import evaluate, load_records, render_markdown, save_record, write_report
    from pearl.paths import results_dir

    out = Path(args.output) if args.output else results_dir() / ("quick" if args.quick else "")
    check_output(out, [args.data, args.short_text], "--output")
    if out.is_dir():  # the table reads every JSON there: refuse a foreign one before the run
        load_records(out)
    failed = False
    for model in args.model or [DEFAULT_MODEL]:
        record = evaluate(model, tasks=args.tasks, data=args.data, short_text=args.short_text,
                          quick=args.quick, seed=args.seed, batch_size=args.batch_size,
                          retrieval_index=args.retrieval_index, cache=not args.no_cache,
                          show_progress=not args.quiet, probe_runs=args.probe_runs)
        path = save_record(record, out)
        print(f"\nwrote {path}", file=sys.stderr)
        failed |= any(v.get("status") == "error" for v in record["tasks"].values())
    report = write_report(out)
    print(render_markdown(load_records(out)))
    print(f"this table (every model evaluated into {out}, beside the paper's published rows) "
          f"is in {report}", file=sys.stderr)
    return 1 if failed else 0


def cmd_index_build(args) -> int:
    from pearl.applications import EntityIndex

    check_output(args.output, [args.names], "--output")
    idx = EntityIndex.from_file(args.names, model=args.model, index=args.index,
                                batch_size=args.batch_size)
    idx.save(args.output)
    print(f"indexed {len(idx):,} names into {args.output} ({args.index}; encoding "
          f"{idx.encode_seconds_:.1f}s, index {idx.index_seconds_:.1f}s)", file=sys.stderr)
    return 0


def cmd_index_search(args) -> int:
    from pearl.applications import EntityIndex

    queries = list(args.queries or [])
    if args.input:
        queries += [q for q in _read_lines(args.input) if q.strip()]
    if not queries:
        raise SystemExit("pearl: give queries as arguments or --input FILE")
    if args.output:
        check_output(args.output, [args.input, args.index_dir], "--output")
    idx = EntityIndex.load(args.index_dir, model=args.model)
    frame = idx.search(queries, k=args.k, matcher=args.matcher).to_frame()
    if args.output:
        _write_csv(frame, args.output)
        print(f"wrote {len(frame)} rows to {args.output}", file=sys.stderr)
    else:
        print(frame.to_string(index=False))
    return 0


def _read_table(path: str, chunksize: int | None = None):
    """A table file, its format from the file name: Parquet (``.parquet``, ``.pq``, read
    with its column types, as the Python API takes the frame), TSV (``.tsv``, ``.tab``) or
    CSV (anything else; every column read as text, undecodable bytes replaced)."""
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise SystemExit(f"pearl: table not found: {path}")
    suffix = p.suffix.lower()
    if suffix in _PARQUET:
        require("pyarrow", "reading a Parquet table")
        return pd.read_parquet(p)
    return pd.read_csv(p, dtype=str, keep_default_na=True, encoding="utf-8",
                       encoding_errors="replace", chunksize=chunksize,
                       sep="\t" if suffix in _TSV else ",")


def cmd_join_distributed(args) -> int:
    if args.precision is not None:
        raise ValueError("--precision is not offered on Dask (it needs every partition's "
                         "scores first): give --threshold")
    client = _dask_client(args)
    try:
        from pearl.distributed import dask as pdk

        out = pdk.join_to_parquet(
            args.left, args.right, args.output, left_on=args.left_on, right_on=args.right_on,
            model=args.model, threshold=args.threshold, top_k=args.top_k, how=args.how,
            batch_size=args.batch_size, right_shards=args.right_shards, index=args.index,
            matcher=args.matcher, partitions=args.partitions, progress=True)
    finally:
        _close(client)
    print(f"wrote the joined table to {out}/part-*.parquet", file=sys.stderr)
    return 0


def cmd_join(args) -> int:
    from pearl.applications import fuzzy_join

    check_output(args.output, [args.left, args.right], "--output")
    if args.scheduler or args.workers:
        return cmd_join_distributed(args)
    left = _read_table(args.left)
    right = _read_table(args.right, chunksize=args.right_chunksize)
    out = fuzzy_join(left, right, left_on=args.left_on, right_on=args.right_on,
                     threshold=args.threshold, top_k=args.top_k, how=args.how,
                     model=args.model, batch_size=args.batch_size, matcher=args.matcher,
                     precision=args.precision)
    _write_csv(out, args.output)
    score = [c for c in out.columns if str(c).startswith("match_score")][-1]
    matched = int(out[score].notna().sum())
    print(f"wrote {len(out):,} rows ({matched:,} matched) to {args.output}", file=sys.stderr)
    return 0


def cmd_dedup(args) -> int:
    import pandas as pd

    from pearl.applications import deduplicate

    check_output(args.output, [args.table], "--output")
    table = _read_table(args.table)
    if args.column not in table.columns:
        raise SystemExit(f"pearl: no column {args.column!r} in {args.table}")
    new_column = f"{args.column}_deduplicated"
    if new_column in table.columns:
        raise ValueError(f"{args.table} already has a column {new_column!r}; rename "
                         "it first (pearl never overwrites an input column)")
    canon = deduplicate(table[args.column], threshold=args.threshold, model=args.model,
                        matcher=args.matcher)
    table[new_column] = canon
    _write_csv(table, args.output)
    changed = int((canon.notna() & (canon != table[args.column])).sum())
    print(f"wrote {args.output}: {changed:,} of {len(table):,} values mapped to another "
          f"representative ({pd.Series(canon).nunique():,} distinct left)", file=sys.stderr)
    return 0


def _data_root(args) -> Path:
    from pearl.paths import data_root

    return Path(args.data) if getattr(args, "data", None) else data_root()


def cmd_build_corpus(args) -> int:
    import json

    from pearl.data.corpus import build_corpus

    root = _data_root(args)
    corpus = Path(args.corpus) if args.corpus else root / "corpus"
    lexicon = None if args.no_lists else (Path(args.lexicon) if args.lexicon else root
                                          / "lexicon")
    check_output(args.output, [corpus, lexicon], "--output")
    stats = build_corpus(corpus, args.output, lexicon_root=lexicon, min_freq=args.min_freq,
                         typed_min_freq=args.typed_min_freq, max_tokens=args.max_tokens,
                         include_lists=not args.no_lists, list_types=args.list_types,
                         n_process=args.processes, limit=args.limit,
                         contexts=args.contexts, show_progress=not args.quiet)
    print((Path(args.output) / "stats.md").read_text())
    print(json.dumps({"phrases": stats.phrases, "seconds": stats.seconds}), file=sys.stderr)
    return 0


def cmd_augment(args) -> int:
    from pearl.augment.sampler import AugmentationSampler, default_augmenters, precompute
    from pearl.data.corpus import read_corpus

    check_output(args.output, [args.corpus], "--output")
    phrases = [r.phrase for r in read_corpus(args.corpus)]
    if args.limit:
        phrases = phrases[: args.limit]
    root = _data_root(args)
    mined = None
    if "phrase" in args.levels and args.mine_paraphrases:
        from pearl.augment.phrase import MinedParaphraser
        from pearl.encoders import load_encoder

        mined = MinedParaphraser(load_encoder(args.model)).fit(phrases)
    augs = default_augmenters(args.levels.split(","), str(root / "lexicon" / "wordnet"),
                              args.glove_threshold, mined,
                              glove_keep_names=args.glove_keep_names)
    weights = dict(kv.split("=") for kv in args.weights.split(",")) if args.weights else {}
    sampler = AugmentationSampler(augs, {k: float(v) for k, v in weights.items()},
                                  seed=args.seed)
    precompute(phrases, sampler, args.output, views=args.views, show_progress=not args.quiet)
    print(f"wrote {len(phrases) * args.views:,} positives to {args.output}", file=sys.stderr)
    return 0


def cmd_triplets(args) -> int:
    from collections import Counter

    from pearl.augment.phrase_bert import make_triplets
    from pearl.augment.sampler import default_augmenters, read_augmented
    from pearl.data.corpus import read_corpus

    check_output(args.output, [args.augmented, args.corpus], "--output")
    counts = Counter(w for r in read_corpus(args.corpus) for w in r.phrase.split()
                     if w.isalpha() and w.islower())
    vocabulary = sorted(w for w, n in counts.items() if n >= 2)
    augs = default_augmenters(("char", "token", "phrase"),
                              str(_data_root(args) / "lexicon" / "wordnet"),
                              glove_keep_names=True)
    rows = read_augmented(args.augmented)
    if args.limit:
        rows = rows[: args.limit]
    make_triplets(rows, augs, vocabulary, args.output, seed=args.seed,
                  show_progress=not args.quiet)
    print(f"wrote triplets to {args.output} ({len(vocabulary):,} replacement words)",
          file=sys.stderr)
    return 0


def _add_triplets(sub) -> None:
    """The ``pearl triplets`` command."""
    p = sub.add_parser("triplets", help="Phrase-BERT triplets from augmented positives",
                       description="For every (phrase, positive) row of an augmentation "
                       "file, a negative made as Phrase-BERT makes it: one non-stopword "
                       "replaced by a random corpus word, then passed through the augmenter "
                       "that made the positive. For pearl train with objective = "
                       "\"phrase-bert\" and triplets = OUTPUT.")
    p.add_argument("augmented", help="TSV written by pearl augment")
    p.add_argument("--corpus", required=True, help="corpus.tsv (its words are the "
                   "replacement vocabulary)")
    p.add_argument("-o", "--output", required=True, help="TSV file to write")
    p.add_argument("--data", help="shared data root, for WordNet")
    p.add_argument("--seed", type=_int_at_least(0), default=0, help="seed (default 0)")
    p.add_argument("--limit", type=POSITIVE, help="first N rows only")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_triplets)


def cmd_mine(args) -> int:
    from pearl.data.corpus import read_corpus
    from pearl.encoders import load_encoder
    from pearl.mining import mine_hard_negatives

    check_output(args.output, [args.corpus], "--output")
    phrases = [r.phrase for r in read_corpus(args.corpus)]
    if args.limit:
        phrases = phrases[: args.limit]
    res = mine_hard_negatives(phrases, load_encoder(args.model), args.output,
                              min_ratio=args.min_ratio, max_cosine=args.max_cosine, k=args.k,
                              show_progress=not args.quiet)
    res.pop("negatives")
    print(json.dumps(res, indent=2))
    return 0


def cmd_aliases(args) -> int:
    from pearl._io import atomic_path
    from pearl.augment.names import alias_groups, as_pairs, wordnet_alias_groups
    from pearl.augment.sampler import read_augmented
    from pearl.data.acronyms import mine_definitions
    from pearl.data.corpus import read_corpus
    from pearl.paths import data_root

    inputs = [args.corpus, *(args.exclude or []), args.replay, args.negatives]
    check_output(args.output, inputs, "--output")
    exclude: list[str] = []
    for path in args.exclude or []:
        exclude += Path(path).read_text(encoding="utf-8").splitlines()
    text_root = args.text or data_root() / "corpus"
    definitions = [d for d, n in mine_definitions(text_root, not args.quiet).items()
                   if n >= args.min_definitions]
    replay = [(a, b) for a, b, _ in read_augmented(args.replay)] if args.replay else []
    frame = alias_groups(records=read_corpus(args.corpus), definitions=definitions,
                         wordnet=wordnet_alias_groups(args.wordnet), replay=replay,
                         n_replay=args.n_replay, exclude=exclude,
                         max_variants=args.max_variants, seed=args.seed)
    summary = frame.groupby("source")["group"].agg(["nunique", "size"])
    report = {"output": str(args.output), "groups": int(frame["group"].nunique()),
              "strings": len(frame),
              "by_source": {k: {"groups": int(r["nunique"]), "strings": int(r["size"])}
                            for k, r in summary.iterrows()}}
    if args.negatives:
        from pearl.mining.hard_negatives import read_hard_negatives

        frame = as_pairs(frame, read_hard_negatives(args.negatives),
                         per_group=args.negatives_per_group, exclude=exclude, seed=args.seed)
        report["negative_pairs"] = int((frame["label"] == 0).sum())
    with atomic_path(args.output) as tmp:
        frame.to_csv(tmp, index=False)
    print(json.dumps(report, indent=2))
    return 0


def _add_aliases(sub) -> None:
    """The ``pearl aliases`` command."""
    p = sub.add_parser("aliases", help="build alias groups (several forms of one name)",
                       description="Write a CSV of alias groups (text,group,source) for "
                       "pearl finetune: WordNet synsets of proper names, acronym definitions "
                       "found in the corpus text, rule-made forms of the corpus's typed names "
                       "(NYTimes, nytimes.com, J. Smith) and a replay sample of training "
                       "pairs. Groups holding a string of an --exclude file are dropped.")
    p.add_argument("corpus", help="corpus.tsv written by build-corpus")
    p.add_argument("-o", "--output", required=True, help="CSV file to write")
    p.add_argument("--text", help="running text to mine acronym definitions from (default "
                   "<data root>/corpus)")
    p.add_argument("--wordnet", help="WordNet folder (default <data root>/lexicon/wordnet)")
    p.add_argument("--replay", help="augmented.tsv written by pearl augment, to sample "
                   "replay pairs from")
    p.add_argument("--negatives", help="hard_negatives.tsv written by pearl mine: adds up "
                   "to --negatives-per-group non-matching pairs per group (the CSV is then "
                   "written as left,right,label,source pairs)")
    p.add_argument("--negatives-per-group", type=_int_at_least(0), default=2,
                   help="hard negatives per group (default 2)")
    p.add_argument("--n-replay", type=_int_at_least(0), default=20000,
                   help="replay pairs (default 20000)")
    p.add_argument("--min-definitions", type=POSITIVE, default=1,
                   help="keep acronym definitions seen at least N times (default 1)")
    p.add_argument("--max-variants", type=POSITIVE, default=4,
                   help="rule-made forms per name (default 4)")
    p.add_argument("--exclude", action="append",
                   help="text file of strings never to train on, one per line (repeatable)")
    p.add_argument("--seed", type=_int_at_least(0), default=0, help="seed (default 0)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_aliases)


def cmd_teacher(args) -> int:
    from pearl.training.teacher import encode_teacher

    check_output(args.output, [args.corpus], "--output")
    out = encode_teacher(args.corpus, args.output, model=args.model,
                         chunk_size=args.chunk_size, batch_size=args.batch_size,
                         limit=args.limit, device=args.device, show_progress=not args.quiet)
    print(f"teacher embeddings in {out}", file=sys.stderr)
    return 0


def _add_teacher(sub) -> None:
    """The ``pearl teacher`` command."""
    p = sub.add_parser("teacher", help="encode the corpus phrases with a teacher model",
                       description="Embed every phrase of a corpus.tsv with a (stronger) "
                       "model, in checksummed shards; a re-run after an interruption "
                       "skips the finished ones. pearl train uses the folder with "
                       "--set teacher=DIR (the distillation loss).")
    p.add_argument("corpus", help="corpus.tsv written by build-corpus")
    p.add_argument("-o", "--output", required=True, help="folder to write (or to complete)")
    p.add_argument("-m", "--model", default="all-mpnet-base-v2",
                   help="teacher model (default all-mpnet-base-v2)")
    p.add_argument("--chunk-size", type=POSITIVE, default=4096,
                   help="phrases per shard: the most an interruption loses (default 4096)")
    p.add_argument("-b", "--batch-size", type=POSITIVE, default=128, help="batch size")
    p.add_argument("--limit", type=POSITIVE, help="first N phrases only")
    p.add_argument("--device", help="torch device of the teacher, e.g. cuda (default cpu)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_teacher)


def cmd_finetune(args) -> int:
    from pearl.training.finetune import finetune, read_labelled

    check_output(args.output, [args.pairs], "--output")
    res = finetune(read_labelled(args.pairs), args.output, model=args.model, loss=args.loss,
                   encoder=args.encoder, epochs=args.epochs, batch_size=args.batch_size,
                   lr=args.lr, max_steps=args.max_steps, average_weight=args.average_weight,
                   validation=args.validation, patience=args.patience, seed=args.seed,
                   save_dtype=args.save_dtype, show_progress=not args.quiet,
                   record={"command": "pearl " + shlex.join(args.argv),
                           "data": str(args.pairs)})
    summary = {"output": str(res.output), "epochs": res.epochs, "best_epoch": res.best_epoch,
               "validation_top1": res.validation_top1, "seconds": round(res.seconds, 1)}
    if args.dev and args.test:
        import pandas as pd

        from pearl.encoders import load_encoder
        from pearl.evaluation.pairs import threshold_accuracy

        def pairs(path):
            f = pd.read_csv(path, dtype=str, keep_default_na=False)
            return f["left"].tolist(), f["right"].tolist(), f["label"].astype(int).tolist()

        summary["evaluation"] = threshold_accuracy(load_encoder(str(res.output)),
                                                   pairs(args.dev), pairs(args.test))
    print(json.dumps(summary, indent=2))
    return 0


def _add_finetune(sub) -> None:
    """The ``pearl finetune`` command."""
    p = sub.add_parser("finetune", help="specialise a model on your own labelled matches",
                       description="Fine-tune a model on labelled matches (a CSV of pairs: "
                       "left,right,label with label 1 for a match and 0 for a non-match; or "
                       "of groups: text,group) with SentPWNet's multi-similarity loss. A "
                       "share of the groups is held out for early stopping; the best "
                       "weights are saved as a model folder every pearl tool loads.")
    p.add_argument("pairs", help="CSV of labelled pairs or groups")
    p.add_argument("-o", "--output", required=True, help="model folder to write")
    _model_arg(p)
    p.add_argument("--loss", choices=["ms", "infonce", "triplet"], default="ms",
                   help="multi-similarity with locality weighting (default), InfoNCE or "
                   "triplet")
    p.add_argument("--epochs", type=POSITIVE, default=10, help="at most N epochs (default 10)")
    p.add_argument("-b", "--batch-size", type=_int_at_least(2), default=64,
                   help="strings per batch (default 64)")
    p.add_argument("--encoder", choices=["transformer", "bilstm", "cnn"],
                   default="transformer",
                   help="fine-tune --model (default), or train SentPWNet's BiLSTM or CNN "
                   "over GloVe vectors from scratch (no transformer; --model is unused)")
    p.add_argument("--lr", type=_float_between(1e-8, 1.0),
                   help="learning rate (default 2e-5 for a transformer, 1e-3 otherwise)")
    p.add_argument("--validation", type=_float_between(0.0, 0.9), default=0.1,
                   help="share of groups held out for early stopping (default 0.1)")
    p.add_argument("--patience", type=POSITIVE, default=2,
                   help="epochs without improvement before stopping (default 2)")
    p.add_argument("--max-steps", type=_int_at_least(0), default=0,
                   help="stop after N batches in all (default 0: no cap)")
    p.add_argument("--average-weight", type=_float_between(0.0, 1.0), default=0.0,
                   help="save W * original + (1 - W) * fine-tuned weights (default 0: the "
                   "fine-tuned weights)")
    p.add_argument("--save-dtype", choices=["float32", "float16"], default="float32",
                   help="storage type of the saved weights (default float32)")
    p.add_argument("--seed", type=_int_at_least(0), default=0, help="seed (default 0)")
    p.add_argument("--dev", help="pairs CSV to choose the match threshold on")
    p.add_argument("--test", help="pairs CSV to report accuracy on, at the --dev threshold")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_finetune)


def cmd_topics(args) -> int:
    from pearl.applications.topics import (
        PhraseTopicModel,
        document_vocabulary,
        read_documents,
        write_topics,
    )

    check_output(args.output, [args.documents] + ([args.vocab] if args.vocab else []),
                 "--output")
    docs = read_documents(args.documents, args.split)
    if args.vocab:
        from pearl.data.corpus import read_corpus

        present = set(document_vocabulary(docs, min_df=args.min_df, max_terms=10 ** 9))
        vocab = [r.phrase for r in read_corpus(args.vocab) if r.phrase.lower() in present]
    else:
        vocab = document_vocabulary(docs, min_df=args.min_df)
    model = PhraseTopicModel(args.topics, model=args.model, epochs=args.epochs,
                             seed=args.seed, show_progress=not args.quiet)
    model.fit(docs, vocabulary=vocab)
    write_topics(model, docs, args.output)
    print(f"{len(docs):,} documents, {len(vocab):,} terms, {args.topics} topics in "
          f"{args.output}", file=sys.stderr)
    print((Path(args.output) / "topics.md").read_text(encoding="utf-8"))
    return 0


def _add_topics(sub) -> None:
    """The ``pearl topics`` command."""
    p = sub.add_parser("topics", help="phrase-based topic model of a document collection",
                       description="Learn K topics from documents embedded by a phrase "
                       "model (Phrase-BERT's PNTM) and describe each by its nearest words "
                       "and phrases. Writes topics.csv, document_topics.csv, topics.md and "
                       "topics.png into --output.")
    p.add_argument("documents", help="UTF-8 text file of documents")
    p.add_argument("-k", "--topics", type=POSITIVE, default=20, help="topics (default 20)")
    p.add_argument("-o", "--output", required=True, help="folder to write")
    p.add_argument("--split", choices=["lines", "blank"], default="lines",
                   help="one document per line (default) or blocks between empty lines")
    p.add_argument("--vocab", help="describe topics with the phrases of this corpus.tsv "
                   "(pearl build-corpus) found in the documents; default: the documents' "
                   "frequent word n-grams")
    p.add_argument("--min-df", type=POSITIVE, default=5,
                   help="documents a term must occur in (default 5)")
    p.add_argument("--epochs", type=POSITIVE, default=30, help="training epochs (default 30)")
    p.add_argument("--seed", type=_int_at_least(0), default=0, help="seed (default 0)")
    _model_arg(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_topics)


def _set_overrides(args) -> dict[str, str]:
    """The ``--set KEY=VALUE`` options of a training command, as config overrides."""
    overrides = {}
    for item in args.set or []:
        if "=" not in item:
            raise ValueError(f"--set expects KEY=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        overrides[key.strip().replace("-", "_")] = value.strip()
    return overrides


def cmd_train(args) -> int:
    from pearl.training import Trainer, load_config

    overrides = _set_overrides(args)
    for key in ("output", "backbone", "corpus", "augmented", "negatives"):
        if getattr(args, key, None):
            overrides[key] = getattr(args, key)
    config = load_config(args.config, overrides)
    check_io(config.outputs(), [*config.inputs(), args.config])
    if args.dry_run:
        print(json.dumps(config.to_dict(), indent=2))
        return 0
    result = Trainer(config, show_progress=not args.quiet).train(resume=args.resume)
    if result.interrupted:
        print(f"interrupted at step {result.steps}/{result.total_steps}; the checkpoint is in "
              f"{config.checkpoints}. Continue with the same command and --resume.",
              file=sys.stderr)
        return 130
    print(f"trained {result.steps} steps in {result.seconds:.0f} s; model saved to "
          f"{result.output}", file=sys.stderr)
    return 0


def cmd_distill_static(args) -> int:
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize

    from pearl.training.static import distill_static
    from pearl.training.trainer import save_model

    module = distill_static(args.model, pca_dims=args.pca_dims, n_buckets=args.n_buckets)
    save_model(SentenceTransformer(modules=[module, Normalize()], device="cpu"),
               Path(args.output))
    print(f"distilled {args.model} into {args.output} ({module.num_embeddings:,} tokens x "
          f"{module.embedding_dim})", file=sys.stderr)
    return 0


def cmd_train_static(args) -> int:
    from pearl.training.config import load_config
    from pearl.training.static import StaticConfig, StaticTrainer

    overrides = _set_overrides(args)
    if args.output:
        overrides["output"] = args.output
    config = load_config(args.config, overrides, config_class=StaticConfig)
    check_io(config.outputs(), [*config.inputs(), args.config])
    out = StaticTrainer(config, show_progress=not args.quiet).train(resume=args.resume)
    print(f"saved pearl-static to {out}", file=sys.stderr)
    return 0


def _dask_args(g) -> None:
    g.add_argument("--scheduler", help="address of a Dask scheduler, e.g. "
                   "tcp://host:8786 (default: a local cluster)")
    g.add_argument("--workers", type=POSITIVE,
                   help="worker processes of the local cluster (default: one per core)")
    g.add_argument("--partitions", type=POSITIVE,
                   help="repartition the (left) input into N partitions")


def _model_arg(p, multi: bool = False) -> None:
    help_ = f"model name or folder (default: {DEFAULT_MODEL})"
    if multi:
        p.add_argument("-m", "--model", action="append",
                       help=help_ + "; repeat to evaluate several models")
    else:
        p.add_argument("-m", "--model", default=DEFAULT_MODEL, help=help_)


def _add_encode(sub) -> None:
    """The ``pearl encode`` command."""
    p = sub.add_parser("encode", help="embed phrases",
                       description="Embed phrases given as arguments and/or one per line in "
                       "--input. Output: JSON lines on stdout, or --output FILE (.npy for a "
                       "float32 array, anything else for CSV).")
    p.add_argument("texts", nargs="*", help="phrases to embed")
    p.add_argument("-i", "--input", help="file with one phrase per line ('-' for stdin)")
    p.add_argument("-o", "--output", help="write embeddings to FILE (.npy or .csv); '-' "
                   "or none: JSON lines on standard output")
    _model_arg(p)
    p.add_argument("-b", "--batch-size", type=POSITIVE, default=64, help="batch size (default 64)")
    p.add_argument("--normalize", action="store_true", help="L2-normalise the embeddings")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    g = p.add_argument_group(
        "tables on Dask", "With --column, --input is a Parquet file or folder (or a CSV file) "
        "and --output a Parquet folder: one part per partition, the key columns beside an "
        "'embedding' column. Needs pip install 'pearl[dask]'.")
    g.add_argument("--column", help="string column of --input to embed")
    g.add_argument("--keys", help="comma-separated columns to keep beside the embedding "
                   "(default: the embedded column)")
    _dask_args(g)
    p.set_defaults(func=cmd_encode)


def _add_similarity(sub) -> None:
    """The ``pearl similarity`` command."""
    p = sub.add_parser("similarity", help="rank candidates by cosine similarity to a query",
                       description="Print the candidates sorted by cosine similarity to QUERY.")
    p.add_argument("query", help="the query phrase")
    p.add_argument("candidates", nargs="*", help="candidate phrases")
    p.add_argument("-i", "--input", help="file with one candidate per line ('-' for stdin)")
    _model_arg(p)
    p.set_defaults(func=cmd_similarity)


def _add_eval(sub) -> None:
    """The ``pearl eval`` command."""
    p = sub.add_parser(
        "eval", help="run the PEARL benchmark",
        description="Run the PEARL benchmark (9 phrase datasets + 4 short-text sets) with the "
        "paper's protocols. Writes <output>/<model>.json and <output>/results.md (a table of "
        "every model evaluated into that folder) and prints the table.",
    )
    _model_arg(p, multi=True)
    p.add_argument("-t", "--tasks", default="all",
                   help="comma-separated tasks or groups: all, phrase, short_text, ppdb, "
                   "ppdb_filtered, turney, bird, yago, umls, conll2003, bc5cdr, autofj, "
                   "twitter_s, twitter_l, atis_s, atis_l (default: all)")
    p.add_argument("--data", help="benchmark root (default: $PEARL_DATA/benchmark or "
                   "../shared/data/benchmark)")
    p.add_argument("--short-text", help="short-text root (default: <data>/../short_text)")
    p.add_argument("-o", "--output", help="results folder (default: $PEARL_RESULTS or "
                   "pearl-results/, and its quick/ subfolder with --quick)")
    p.add_argument("--quick", action="store_true",
                   help="subsample every task for a smoke run (labelled QUICK in the output)")
    p.add_argument("--seed", type=_int_at_least(0), default=0,
                   help="seed of splits and probes (default 0)")
    p.add_argument("--probe-runs", type=POSITIVE, default=5,
                   help="PPDB/PPDB-filtered: mean over N probe runs with seeds seed..seed+N-1 "
                   "(default 5; every run and the first run's score are kept in the record; "
                   "1 is the paper's single probe)")
    p.add_argument("-b", "--batch-size", type=POSITIVE, default=64, help="encoding batch size")
    p.add_argument("--retrieval-index", choices=["flat", "ivfpq"], default="flat",
                   help="YAGO/UMLS search: exact (flat, default) or the paper's IVF-PQ")
    p.add_argument("--no-cache", action="store_true",
                   help="do not read or write the on-disk embedding cache")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_eval)


def _add_index(sub) -> None:
    """The ``pearl index`` command."""
    p = sub.add_parser("index", help="build or query an entity retrieval index",
                       description="Entity retrieval over a dictionary of canonical names.")
    isub = p.add_subparsers(dest="index_command", required=True, metavar="ACTION",
                            help="build: index a names file; search: query an index")
    q = isub.add_parser("build", help="index a file of names (one per line)",
                        description="Encode every line of NAMES and save a faiss index, the "
                        "names and the model identity into --output.")
    q.add_argument("names", help="text file, one canonical name per line")
    q.add_argument("-o", "--output", required=True, help="index folder to write")
    _model_arg(q)
    q.add_argument("--index", choices=["flat", "hnsw", "ivf"], default="flat",
                   help="flat: exact (default); hnsw or ivf: approximate, for large "
                   "dictionaries")
    q.add_argument("-b", "--batch-size", type=POSITIVE, default=64, help="encoding batch size")
    q.set_defaults(func=cmd_index_build)
    q = isub.add_parser("search", help="query a saved index",
                        description="Print (or write as CSV) the k nearest names of each "
                        "query: query, rank, name, id, score.")
    q.add_argument("index_dir", help="folder written by 'pearl index build'")
    q.add_argument("queries", nargs="*", help="query phrases")
    q.add_argument("-i", "--input", help="file of queries, one per line (batch mode)")
    q.add_argument("-k", type=POSITIVE, default=5, help="matches per query (default 5)")
    q.add_argument("--matcher", choices=["cosine", "combined"], default="cosine",
                   help="rank by cosine (default), or re-rank the nearest 50 by the combined "
                   "match probability (embedding + character n-grams)")
    q.add_argument("-o", "--output", help="write the matches to a table file (.csv, .tsv, "
                   ".parquet; '-': CSV on standard output); default: printed")
    q.add_argument("-m", "--model", default=None,
                   help="model (default: the one recorded in the index; another model is "
                   "refused)")
    q.set_defaults(func=cmd_index_search)


def _add_join(sub) -> None:
    """The ``pearl join`` command."""
    p = sub.add_parser("join", help="fuzzy-join two tables (CSV, TSV, Parquet)",
                       description="Each row of LEFT takes its most similar row(s) of RIGHT: "
                       "by default the combined matcher (embedding and character n-gram "
                       "candidates, scored by a learned match probability); with --matcher "
                       "cosine, the cosine of phrase embeddings. Rows below --threshold keep "
                       "empty right columns (--how left) or are dropped (--how inner). A "
                       "match_score column is added. Table formats follow the file names "
                       "(.parquet, .tsv, else CSV).")
    p.add_argument("left", help="left table file (CSV, TSV or Parquet)")
    p.add_argument("right", help="right table file (a CSV or TSV is read in chunks, see "
                   "--right-chunksize)")
    p.add_argument("--left-on", required=True, help="string column of LEFT to match")
    p.add_argument("--right-on", required=True, help="string column of RIGHT to match")
    p.add_argument("-o", "--output", required=True, help="joined table to write (.csv, .tsv, "
                   ".parquet; '-': CSV on standard output)")
    p.add_argument("--threshold", type=COSINE, default=0.0,
                   help="minimum match score (default 0): a probability in [0, 1] with the "
                   "combined matcher (the default), a cosine in [-1, 1] with --matcher "
                   "cosine")
    p.add_argument("--top-k", type=POSITIVE, default=1, help="matches per left row (default 1)")
    p.add_argument("--how", choices=["left", "inner"], default="left",
                   help="keep unmatched left rows (left, default) or drop them (inner)")
    p.add_argument("--matcher", choices=["cosine", "combined"], default="combined",
                   help="combined (default): embedding and character n-gram candidates "
                   "scored by a learned match probability; cosine: the embeddings' cosine")
    p.add_argument("--target-precision", "--precision", dest="precision",
                   type=_float_between(0.0, 1.0),
                   help="with --matcher combined: pick the threshold so that the expected "
                   "precision of the matches is at least this (e.g. 0.9); --precision is "
                   "the older name (in sentence-transformers, precision means quantization)")
    p.add_argument("--right-chunksize", type=POSITIVE, default=100_000,
                   help="rows of RIGHT embedded at a time (default 100000)")
    _model_arg(p)
    p.add_argument("-b", "--batch-size", type=POSITIVE, default=64, help="encoding batch size")
    g = p.add_argument_group(
        "tables on Dask", "With --scheduler or --workers, LEFT and RIGHT are Parquet files or "
        "folders (or CSV files) and --output a Parquet folder, one part per left partition; "
        "re-running the same command after an interruption skips the finished parts. Needs "
        "pip install 'pearl[dask]'.")
    _dask_args(g)
    g.add_argument("--right-shards", type=POSITIVE, default=1,
                   help="split the reference side into N shards (default 1: the whole "
                   "reference index goes to each worker)")
    g.add_argument("--index", choices=["exact", "hnsw"], default="exact",
                   help="exact cosine top-k (default; the same result as without Dask) or "
                   "an approximate faiss HNSW index per shard")
    p.set_defaults(func=cmd_join)


def _add_dedup(sub) -> None:
    """The ``pearl dedup`` command."""
    p = sub.add_parser("dedup", help="deduplicate a column of a table (CSV, TSV, Parquet)",
                       description="Add <column>_deduplicated: each value mapped to the most "
                       "frequent value of its cluster of similar values.")
    p.add_argument("table", help="table file (CSV, TSV or Parquet, from the file name)")
    p.add_argument("--column", required=True, help="column to deduplicate")
    p.add_argument("-o", "--output", required=True, help="table to write (.csv, .tsv, "
                   ".parquet; '-': CSV on standard output)")
    p.add_argument("--threshold", type=COSINE, default=0.8,
                   help="minimum average similarity within a cluster (default 0.8)")
    p.add_argument("--matcher", choices=["cosine", "combined"], default="cosine",
                   help="similarity: embedding cosine (default) or the combined match "
                   "probability (embedding + character n-grams)")
    _model_arg(p)
    p.set_defaults(func=cmd_dedup)


def _add_build_corpus(sub) -> None:
    """The ``pearl build-corpus`` command."""
    p = sub.add_parser("build-corpus", help="build the typed phrase corpus from raw text",
                       description="Parse raw text with spaCy, extract NP/VP/PP/ADVP/ADJP "
                       "phrases from the dependency parse, type them (5 lexical classes x 18 "
                       "OntoNotes types + OTHER), keep those seen --min-freq times, add WordNet "
                       "lemmas and the NLTK name lists, and write corpus.tsv and statistics.")
    p.add_argument("-o", "--output", required=True, help="output folder")
    p.add_argument("--data", help="shared data root (default: $PEARL_DATA or ../shared/data)")
    p.add_argument("--corpus", help="raw text folder (default: <data>/corpus)")
    p.add_argument("--lexicon", help="lexicon folder with wordnet/ (default: <data>/lexicon)")
    p.add_argument("--min-freq", type=POSITIVE, default=2, help="minimum frequency (default 2)")
    p.add_argument("--typed-min-freq", type=POSITIVE,
                   help="minimum frequency of phrases typed as entities in context (default: "
                        "--min-freq; 1 keeps the entity names seen once)")
    p.add_argument("--max-tokens", type=POSITIVE, default=10, help="maximum tokens (default 10)")
    p.add_argument("--no-lists", action="store_true", help="leave out WordNet and name lists")
    p.add_argument("--list-types", choices=["tagger", "lists"], default="tagger",
                   help="type list phrases by NER on the isolated phrase (default; the "
                        "shipped model's corpus) or by the type their list gives")
    p.add_argument("--processes", type=POSITIVE, default=1, help="spaCy processes (default 1)")
    p.add_argument("--limit", type=POSITIVE, help="parse only the first N text lines")
    p.add_argument("--contexts", type=_int_at_least(0), default=0, metavar="N",
                   help="also write contexts.tsv: each phrase's first sentence window, N "
                   "words either side, the phrase masked (Phrase-BERT's context objective; "
                   "default 0: none)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_build_corpus)


def _add_augment(sub) -> None:
    """The ``pearl augment`` command."""
    p = sub.add_parser("augment", help="precompute augmented positives for a corpus",
                       description="One positive per phrase (--views for more), drawn by "
                       "weight among the character, token and phrase-level augmenters.")
    p.add_argument("corpus", help="corpus.tsv written by build-corpus")
    p.add_argument("-o", "--output", required=True, help="TSV file to write")
    p.add_argument("--levels", default="char,token,phrase",
                   help="comma-separated levels to use (default char,token,phrase)")
    p.add_argument("--weights", help="name=weight,... e.g. acronym=2,char_swap=0.5")
    p.add_argument("--views", type=POSITIVE, default=1, help="positives per phrase (default 1)")
    p.add_argument("--glove-threshold", type=COSINE, default=0.8,
                   help="minimum cosine of GloVe synonyms (default 0.8)")
    p.add_argument("--glove-keep-names", action="store_true",
                   help="GloVe synonyms leave capitalised words (names) alone; off by "
                   "default, as for the shipped pearl-minilm's data")
    p.add_argument("--mine-paraphrases", action="store_true",
                   help="also mine near-paraphrases from the corpus with --model")
    _model_arg(p)
    p.add_argument("--data", help="shared data root, for WordNet")
    p.add_argument("--seed", type=_int_at_least(0), default=0, help="seed (default 0)")
    p.add_argument("--limit", type=POSITIVE, help="first N phrases only")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_augment)


def _add_mine(sub) -> None:
    """The ``pearl mine`` command."""
    p = sub.add_parser("mine", help="mine hard negatives for a corpus",
                       description="Candidates of small edit distance (blocked rapidfuzz), "
                       "encoded by --model; those of low cosine are kept as hard negatives.")
    p.add_argument("corpus", help="corpus.tsv written by build-corpus")
    p.add_argument("-o", "--output", required=True, help="TSV file to write")
    _model_arg(p)
    p.add_argument("--min-ratio", type=_float_between(0.0, 100.0), default=80,
                   help="minimum rapidfuzz ratio of a candidate, 0-100 (default 80)")
    p.add_argument("--max-cosine", type=_float_between(-1.0, 2.0), default=0.6,
                   help="maximum cosine of a hard negative (default 0.6; above 1 keeps every "
                   "candidate)")
    p.add_argument("-k", type=POSITIVE, default=5, help="negatives per phrase (default 5)")
    p.add_argument("--limit", type=POSITIVE, help="first N phrases only")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_mine)


def _add_train(sub) -> None:
    """The ``pearl train`` command."""
    p = sub.add_parser("train", help="train a PEARL model",
                       description="Contrastive training of a fused phrase + character "
                       "encoder with hard negatives and the phrase-type loss. Options come "
                       "from --config (TOML) and --set KEY=VALUE overrides; --dry-run prints "
                       "the resolved configuration.")
    p.add_argument("-c", "--config", help="TOML configuration file (see configs/)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="override one option, e.g. --set batch_size=64; repeatable")
    p.add_argument("-o", "--output", help="model folder to write (overrides the config)")
    p.add_argument("--backbone", help="backbone model name or folder")
    p.add_argument("--corpus", help="corpus.tsv of typed phrases")
    p.add_argument("--augmented", help="augmented positives TSV")
    p.add_argument("--negatives", help="hard negatives TSV")
    p.add_argument("--resume", action="store_true",
                   help="continue from the last checkpoint of the same configuration "
                        "(a larger epochs or max_steps extends a finished run)")
    p.add_argument("--dry-run", action="store_true", help="print the configuration and stop")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_train)


def _add_distill_static(sub) -> None:
    """The ``pearl distill-static`` command."""
    p = sub.add_parser("distill-static", help="distil a static model from a transformer",
                       description="model2vec's distillation of --model (one vector per "
                       "token, PCA, SIF weights) plus an empty hashed character n-gram "
                       "table, saved as a sentence-transformers folder. Needs pip install "
                       "'pearl[static]'.")
    p.add_argument("-o", "--output", required=True, help="model folder to write")
    p.add_argument("-m", "--model", default="all-MiniLM-L6-v2",
                   help="transformer to distil (default all-MiniLM-L6-v2)")
    p.add_argument("--pca-dims", type=POSITIVE, default=256, help="vector size (default 256)")
    p.add_argument("--n-buckets", type=POSITIVE, default=16384,
                   help="rows of the character n-gram table (default 16384)")
    p.set_defaults(func=cmd_distill_static)


def _add_train_static(sub) -> None:
    """The ``pearl train-static`` command."""
    p = sub.add_parser("train-static", help="train pearl-static (distil, then PEARL's objective)",
                       description="Distil the backbone with model2vec, add hashed character "
                       "n-gram vectors, and train both with InfoNCE, hard negatives and the "
                       "type loss on the training-data files (see configs/pearl-static.toml).")
    p.add_argument("-c", "--config", help="TOML configuration file")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="override one option; repeatable")
    p.add_argument("-o", "--output", help="model folder to write (overrides the config)")
    p.add_argument("--resume", action="store_true", help="continue from the last checkpoint")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_train_static)


def cmd_model_card(args) -> int:
    from pearl.evaluation.model_card import (
        is_static_folder,
        write_model_card,
        write_static_model_card,
    )

    if is_static_folder(args.folder):
        path = write_static_model_card(args.folder, args.results, speed=args.speed)
    else:
        path = write_model_card(args.folder, args.results, args.backbone, args.train_seconds,
                                args.command)
    print(path)
    return 0


def _add_model_card(sub) -> None:
    """The ``pearl model-card`` command."""
    p = sub.add_parser("model-card", help="write the README.md of a trained model folder",
                       description="Render FOLDER/README.md from what the folder records "
                       "(training config, loss curve) and the pearl eval records in "
                       "--results.")
    p.add_argument("folder", help="model folder written by pearl train or train-static")
    p.add_argument("--results", help="folder of pearl eval records (JSON)")
    p.add_argument("--backbone", help="name of the backbone's record (default: the config's)")
    p.add_argument("--train-seconds", type=_float_between(0.0, float("inf")),
                   help="training wall time, when the folder does not record it")
    p.add_argument("--command", help="the command that trained the model")
    p.add_argument("--speed", help="pearl-static: a model_speed.json record")
    p.set_defaults(func=cmd_model_card)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``pearl`` command."""
    parser = argparse.ArgumentParser(
        prog="pearl",
        description="Phrase embeddings that understand names, typos and types. "
        "Models: a sentence-transformers folder, 'all-MiniLM-L6-v2' (default), "
        "'pearl-minilm' and 'pearl-static' (shipped), 'all-mpnet-base-v2' (offline), "
        "'glove', 'string-distance', or a Hugging Face name where the hub is reachable.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    parser.add_argument("--version", action="version",
                        version=f"pearl {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                help="what to do")
    _add_encode(sub)
    _add_similarity(sub)
    _add_eval(sub)
    _add_index(sub)
    _add_join(sub)
    _add_dedup(sub)
    _add_topics(sub)
    _add_build_corpus(sub)
    _add_augment(sub)
    _add_mine(sub)
    _add_triplets(sub)
    _add_teacher(sub)
    _add_train(sub)
    _add_finetune(sub)
    _add_aliases(sub)
    _add_distill_static(sub)
    _add_train_static(sub)
    _add_model_card(sub)
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
    "join": (("left", "right", "model"), ("output",)),
    "dedup": (("table", "model"), ("output",)),
    "topics": (("documents", "vocab", "model"), ("output",)),
    "build-corpus": (("data", "corpus", "lexicon"), ("output",)),
    "augment": (("corpus", "model", "data"), ("output",)),
    "mine": (("corpus", "model"), ("output",)),
    "triplets": (("augmented", "corpus", "data"), ("output",)),
    "teacher": (("corpus", "model"), ("output",)),
    "train": (("config", "backbone", "corpus", "augmented", "negatives"), ("output",)),
    "finetune": (("pairs", "model", "dev", "test"), ("output",)),
    "aliases": (("corpus", "text", "wordnet", "replay", "negatives", "exclude"), ("output",)),
    "distill-static": (("model",), ("output",)),
    "train-static": (("config",), ("output",)),
    "model-card": (("results", "speed"), ()),
}
#: arguments that name no file or folder
NOT_PATHS = frozenset({
    "texts", "batch_size", "normalize", "quiet", "column", "keys", "scheduler", "workers",
    "partitions", "query", "candidates", "tasks", "quick", "seed", "probe_runs",
    "retrieval_index", "no_cache", "index", "queries", "k", "matcher", "left_on", "right_on",
    "threshold", "top_k", "how", "precision", "right_chunksize", "right_shards", "topics",
    "split", "min_df", "epochs", "min_freq", "typed_min_freq", "max_tokens", "no_lists",
    "list_types", "processes", "limit", "contexts", "levels", "weights", "views",
    "glove_threshold", "glove_keep_names", "mine_paraphrases", "min_ratio", "max_cosine",
    "chunk_size", "device", "set", "resume", "dry_run", "loss", "encoder", "lr",
    "validation", "patience", "max_steps", "average_weight", "save_dtype",
    "negatives_per_group", "n_replay", "min_definitions", "max_variants", "pca_dims",
    "n_buckets", "folder", "backbone", "train_seconds", "command", "help", "func",
    "index_command", "io_command"})


def guard(command: str, args) -> None:
    """Refuse, before any work, a command whose outputs overlap its inputs (see :data:`IO`)."""
    from pearl._io import check_io
    from pearl.encoders.resolve import model_folder

    reads, writes = IO[command]
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
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    from pearl._validation import InputError

    try:
        guard(args.io_command, args)
        return args.func(args)
    except (OSError, ValueError, InputError, MissingExtraError) as exc:
        # what pearl raises about its input; any other exception is a bug and surfaces
        # with its traceback
        print(f"pearl: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
