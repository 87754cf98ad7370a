"""The graph pieces shared by pearl's Dask tools: model arguments, frame checks and the
join of partitions against reference shards."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from pearl._extras import require
from pearl._validation import InputTypeError, MissingKeyError, check_choice, check_int
from pearl.distributed import decide as D
from pearl.distributed import partition as P
from pearl.encoders import DEFAULT_MODEL
from pearl.encoders.base import is_embedding_model
from pearl.tables.join_options import JoinOptions, join_keys
from pearl.tables.join_output import match_names, output_columns
from pearl.tables.matcher import scorer_for_model

# Dask is the `dask` extra: a clear error names the pip install when it is missing
dask = require("dask", "pearl on Dask")
dd = require("dask.dataframe", "pearl on Dask")

__all__ = ["model_arg", "check_frame", "reference_shards", "join_options", "join_parts"]


def model_arg(model: Any):
    """Names and folders travel as strings (each worker loads the model once); an encoder
    object becomes one graph key, sent once to each worker that needs it."""
    if model is None:
        return DEFAULT_MODEL
    if isinstance(model, str | os.PathLike):
        return os.fspath(model)
    if not is_embedding_model(model):
        raise InputTypeError(
            f"model must be a name, a folder or an encoder, got {type(model).__name__}"
        )
    return dask.delayed(model, pure=True)


def check_frame(ddf, name: str, column: str | None = None):
    if not isinstance(ddf, dd.DataFrame):
        raise InputTypeError(
            f"{name} must be a dask DataFrame (dask.dataframe.from_pandas, "
            f"read_parquet, read_csv...), got {type(ddf).__name__}"
        )
    if column is not None and column not in ddf.columns:
        raise MissingKeyError(f"{name} has no column {column!r}; columns: {list(ddf.columns)}")
    return ddf


def reference_shards(
    right, right_on: str, m, batch_size: int, shards: int, index: str, ngrams: bool, rule=None
):
    parts = [
        dask.delayed(P.reference_shard)(p, right_on, i, m, batch_size, ngrams, rule)
        for i, p in enumerate(right.to_delayed())
    ]
    shards = max(1, min(shards, len(parts)))
    bounds = np.linspace(0, len(parts), shards + 1).astype(int)
    return [
        dask.delayed(P.concat_shards)(parts[a:b], index)
        for a, b in zip(bounds[:-1], bounds[1:], strict=True)
    ]


#: why several key columns are refused on Dask
MULTI_KEY = (
    "the Dask join matches one key column; a join on several columns (record linkage) fits "
    "its model on both whole tables, in one process: pearl.fuzzy_join(left.compute(), "
    "right.compute(), on=[...]), or pearl join without --scheduler/--workers"
)


def join_options(left, right, left_on, right_on, *, on=None, **options) -> JoinOptions:
    """The Dask join's options, checked once (as the single-process join checks them), with
    both frames checked to hold their key column (``on``, or ``left_on`` and ``right_on``,
    as :func:`pearl.fuzzy_join` takes them)."""
    left_on, right_on = join_keys(on, left_on, right_on)
    opts = JoinOptions.check(left_on=left_on, right_on=right_on, **options)
    if opts.multi:
        raise ValueError(MULTI_KEY)
    check_frame(left, "left", left_on)
    check_frame(right, "right", right_on)
    return opts


def join_parts(left, right, model, opts: JoinOptions, *, right_shards, index):
    """The joined partitions as delayed pandas frames, and the output's meta. With
    ``opts.precision``, the threshold is one delayed value computed from every partition's
    best probabilities (as the single-process join computes it from every row's)."""
    right_shards = check_int(right_shards, "right_shards", 1)
    index = check_choice(index, "index", ("exact", "hnsw"))
    top_k = opts.top_k
    rename = output_columns(left.columns, right.columns, opts.suffix, opts.return_score, top_k > 1)
    names = match_names(
        [*left.columns, *(rename.get(c, c) for c in right.columns)], opts.return_score, top_k > 1
    )
    # the learned weights depend on the model: chosen by its files' fingerprint, so that
    # the client does not load the transformer only the workers run
    scorer = scorer_for_model(opts.matcher, model if model is not None else DEFAULT_MODEL)
    # codes, numbers, dates: compared by their normalised values, as in one process
    rule = key_rule(left, right, opts) if scorer is not None else None
    parts, shards, ngrams = _candidate_parts(
        left, right, model_arg(model), opts, scorer, right_shards, index, rule
    )
    threshold, decision, ranked = opts.threshold, None, []
    if scorer is not None:  # every partition's best candidates first: the tables' decision
        key = str(opts.right_on)
        # each partition ranked once: for the decision, then for its joined rows
        ranked = [
            dask.delayed(P.ranked_evidence)(c, scorer, top_k, key, q.texts, rule)
            for _, q, c in parts
        ]
        evidence = [dask.delayed(D.best_evidence)(r) for r in ranked]
        decision = _decision(parts, shards, ngrams, evidence, scorer, key, rule)
        if opts.precision is not None:
            threshold = dask.delayed(D.decided_threshold)(evidence, decision, opts.precision)
    kw: dict[str, Any] = dict(
        threshold=threshold,
        how=opts.how,
        return_score=opts.return_score,
        top_k=top_k,
        key=str(opts.right_on),
        rule=rule,
    )
    outs = [
        dask.delayed(P.join_partition)(
            p,
            query,
            merged,
            rename,
            scorer=scorer,
            names=names,
            decision=decision,
            ranked=ranked[i] if ranked else None,
            **kw,
        )  # fmt: skip
        for i, (p, query, merged) in enumerate(parts)
    ]
    empty = P.Candidates(
        np.zeros((0, top_k), np.int64), np.zeros((0, top_k), np.float32), right._meta
    )
    no_query = P.Query(np.zeros((0, 1), np.float32), np.zeros(0, int), [])
    meta = P.join_partition(left._meta, no_query, empty, rename, names=names, **kw)
    return outs, meta


def key_rule(left, right, opts: JoinOptions):
    """The :class:`~pearl.tables.comparisons.ValueRule` of a pair of key columns of codes,
    numbers or dates, read as the single-process join reads it (the first 2,000 non-null
    values of each column; for codes, whether one side's values lost their leading zeros,
    over every partition), or None for text keys."""
    from pearl.tables.comparisons import ValueRule, value_rule

    lcol, rcol = left[str(opts.left_on)], right[str(opts.right_on)]
    heads = [c.dropna().head(2000, npartitions=-1, compute=False) for c in (lcol, rcol)]
    lhead, rhead = dask.compute(*heads)
    rule = value_rule(lhead, rhead)
    if rule is None or rule.kind != "code":
        return rule
    zeros = [c.map_partitions(P.zero_led, meta=(None, bool)).any() for c in (lcol, rcol)]
    lz, rz = dask.compute(*zeros)
    return ValueRule("code", bool(lz) != bool(rz))


def _candidate_parts(
    left, right, m, opts: JoinOptions, scorer, right_shards: int, index: str, rule=None
):
    """(left partition, its query, its merged candidates over every right shard), delayed."""
    shards = reference_shards(
        right,
        str(opts.right_on),
        m,
        opts.batch_size,
        right_shards,
        index,
        ngrams=scorer is not None,
        rule=rule,
    )
    ngrams = (
        dask.delayed(P.fit_ngrams)([dask.delayed(P.shard_frequencies)(s) for s in shards])
        if scorer is not None
        else None
    )
    width = scorer.width(opts.top_k) if scorer is not None else opts.top_k  # + a runner-up
    parts = []
    for p in left.to_delayed():
        query = dask.delayed(P.query_embeddings)(p, str(opts.left_on), m, opts.batch_size, rule)
        cands = [dask.delayed(P.shard_top_k)(query, s, width, scorer, ngrams) for s in shards]
        parts.append((p, query, dask.delayed(P.merge_candidates)(cands, width)))
    return parts, shards, ngrams


def _decision(parts, shards, ngrams, evidence, scorer, key: str, rule):
    """The tables' decision (:mod:`pearl.distributed.decide`), delayed: the reference's
    sampled keys ranked against every shard, the queries' sampled distinct keys against
    each other, and every partition's best candidates."""
    from pearl.tables.decision import DECOYS
    from pearl.tables.decoys import EXTRA

    delayed = dask.delayed
    sample = delayed(D.merge_samples)(
        [delayed(D.shard_sample)(s, key, rule) for s in shards], DECOYS
    )
    decoys = delayed(D.sample_query)(sample)
    width, per_signal = scorer.width(1) + EXTRA, 10 + EXTRA
    cands = [delayed(P.shard_top_k)(decoys, s, width, scorer, ngrams, per_signal) for s in shards]
    merged = delayed(P.merge_candidates)(cands, width)
    reference = delayed(D.reference_side)(sample, merged, scorer, key, rule)
    keys = delayed(D.query_cap)(shards)
    samples = [delayed(D.query_sample)(q, keys) for _, q, _ in parts]
    size = delayed(D.query_size)(samples, shards)
    mine = delayed(D.merge_samples)(samples, size, True)
    queries = delayed(D.query_side)(mine, scorer, ngrams, rule)
    return delayed(D.table_decision)(evidence, reference, queries)
