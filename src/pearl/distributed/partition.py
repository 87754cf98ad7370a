"""The work on one partition, independent of any engine (pandas and numpy only).

A distributed join runs, for each reference (right) partition, :func:`reference_shard`
(embed its keys once), optionally :func:`concat_shards` to ship fewer, larger shards; then
for each left partition :func:`query_embeddings`, :func:`shard_top_k` against every shard,
:func:`merge_candidates` and :func:`join_partition`. Reference rows get the id
``partition << 32 | row``, which orders them as in the concatenated table, so ties are
broken exactly as the single-process :func:`pearl.fuzzy_join` breaks them (the earlier
reference row wins) and the result is the same row for row.

The model is given by name or folder and loaded once per process (worker) through
:func:`pearl.tables.encoding.get_encoder`, not once per partition.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from pearl._io import atomic_path, read_json_object
from pearl.encoders import TABLE_BATCH_SIZE
from pearl.encoders.base import normalize_rows
from pearl.tables.decision import decided
from pearl.tables.encoding import get_encoder, to_string_list
from pearl.tables.join_output import assemble_join
from pearl.tables.ngrams import NgramVectorizer
from pearl.tables.reference import REFERENCE_EXACT_MAX, rank_evidence
from pearl.tables.search import (
    ReferenceIndex,
    hnsw_bytes,
    index_from_bytes,
    merge_top_k,
)

__all__ = [
    "Shard",
    "Query",
    "Candidates",
    "shard_frequencies",
    "fit_ngrams",
    "encode_texts",
    "encode_partition",
    "query_embeddings",
    "compared_keys",
    "compared_column",
    "zero_led",
    "reference_shard",
    "concat_shards",
    "shard_top_k",
    "merge_candidates",
    "join_partition",
    "ranked_evidence",
    "candidate_keys",
    "write_part",
    "row_ids",
    "set_torch_threads",
    "embedding_frame",
    "read_manifest",
]

_ROW_BITS = 32


def row_ids(partition: int, n: int) -> np.ndarray:
    """Global ids of the rows of one partition: ``partition << 32 | row``."""
    return (np.int64(partition) << _ROW_BITS) + np.arange(n, dtype=np.int64)


def set_torch_threads(n: int) -> None:
    """Torch and BLAS (numpy) threads of this process, so that workers sharing a machine
    use its cores without oversubscribing them (Dask starts workers with
    ``OMP_NUM_THREADS=1``, which would leave the exact search on one core)."""
    import torch
    from threadpoolctl import threadpool_limits

    torch.set_num_threads(max(1, int(n)))
    threadpool_limits(limits=max(1, int(n)), user_api="blas")


def encode_texts(model: Any, texts: list[str], batch_size: int, normalize: bool) -> np.ndarray:
    """Embeddings of a list of strings by the process's copy of ``model``."""
    encoder = get_encoder(model)
    if not texts:
        return np.zeros((0, encoder.embedding_dim), np.float32)
    emb = encoder.encode(texts, batch_size=batch_size, show_progress_bar=False)
    return normalize_rows(emb) if normalize else np.asarray(emb, dtype=np.float32)


def encode_partition(
    part: pd.DataFrame,
    column: str,
    model: Any,
    batch_size: int = TABLE_BATCH_SIZE,
    normalize: bool = False,
    handle_missing: str = "empty",
) -> np.ndarray:
    """Embeddings of one partition's string column, shape (len(part), dim), float32.

    Missing values are embedded as ``""`` (``"empty"``, as ``PhraseEmbedder`` does) or raise
    ``ValueError`` (``"error"``); other non-strings raise ``ValueError`` naming the row by
    its index label in the table.
    """
    texts, _ = to_string_list(
        part[column], missing=handle_missing, non_string="error", name=column, labels=part.index
    )
    return encode_texts(model, texts, batch_size, normalize)


@dataclass
class Query:
    """A left partition's non-null keys, their positions and unit embeddings."""

    emb: np.ndarray
    live: np.ndarray
    texts: list[str]


def compared_keys(column: pd.Series, rule: Any = None) -> tuple[list[str], np.ndarray]:
    """A partition's key cells as strings (through ``str()``) and which are null; with the
    key's :class:`~pearl.tables.comparisons.ValueRule`, codes, numbers and dates written
    as the single-process join compares them (a value that does not read keeps its text)."""
    keys, nulls = to_string_list(column, non_string="str", name=str(column.name))
    if rule is not None:
        keys = rule.written(keys, column.reset_index(drop=True))
    return keys, nulls


def compared_column(part: pd.DataFrame, column: str, rule: Any) -> pd.DataFrame:
    """A partition with its ``column`` of codes, numbers or dates written as compared
    (:func:`compared_keys`; missing cells stay missing)."""
    keys, nulls = compared_keys(part[column], rule)
    out = part.copy()
    out[column] = [None if n else k for k, n in zip(keys, nulls, strict=True)]
    return out


def zero_led(column: pd.Series) -> bool:
    """Whether some code of a partition's key column has a leading zero ("02134")."""
    from pearl.tables.comparisons import _code_parts, _zero_led

    return _zero_led(_code_parts(column)[1])


def query_embeddings(
    part: pd.DataFrame,
    column: str,
    model: Any,
    batch_size: int = TABLE_BATCH_SIZE,
    rule: Any = None,
) -> Query:
    """Unit embeddings of the non-null keys of a left partition, and their positions.

    Keys go through ``str()`` and null keys are not searched, as in ``fuzzy_join``; with
    the key's ``rule``, codes, numbers and dates are compared normalised
    (:func:`compared_keys`).
    """
    keys, nulls = compared_keys(part[column], rule)
    live = np.flatnonzero(~nulls)
    texts = [keys[i] for i in live]
    return Query(encode_texts(model, texts, batch_size, True), live, texts)


@dataclass
class Shard:
    """Reference rows with the unit embeddings of their non-null keys.

    ``rows`` is indexed by global row id; ``ids[i]`` is the id of ``emb[i]``. ``index`` is
    an optional serialised faiss index over ``emb`` (approximate search).
    """

    emb: np.ndarray
    ids: np.ndarray
    rows: pd.DataFrame
    index: np.ndarray | None = field(default=None, repr=False)
    counts: Any = field(default=None, repr=False)  # hashed n-gram counts (combined matcher)

    def __len__(self) -> int:
        return len(self.rows)


def reference_shard(
    part: pd.DataFrame,
    column: str,
    partition: int,
    model: Any,
    batch_size: int = TABLE_BATCH_SIZE,
    ngrams: bool = False,
    rule: Any = None,
) -> Shard:
    """Embed one reference partition (null keys are kept as rows but never matched);
    with ``ngrams``, also count its keys' hashed character n-grams; with the key's
    ``rule``, codes, numbers and dates normalised (:func:`compared_keys`)."""
    keys, nulls = compared_keys(part[column], rule)
    rows = part.reset_index(drop=True)
    rows.index = row_ids(partition, len(rows))
    keep = np.flatnonzero(~nulls)
    texts = [keys[i] for i in keep]
    emb = encode_texts(model, texts, batch_size, True)
    counts = NgramVectorizer().counts(texts) if ngrams else None
    return Shard(emb=emb, ids=rows.index.to_numpy()[keep], rows=rows, counts=counts)


def shard_frequencies(shard: Shard) -> tuple[np.ndarray, int]:
    """The n-gram document frequencies of a shard's keys, and how many keys."""
    return NgramVectorizer.document_frequencies(shard.counts), len(shard.ids)


def fit_ngrams(frequencies: list[tuple[np.ndarray, int]]) -> NgramVectorizer:
    """The n-gram weights of the whole reference side, from its shards' frequencies (the
    same as fitting on all reference keys at once)."""
    df = np.sum([f for f, _ in frequencies], axis=0) if frequencies else np.zeros(1 << 20)
    return NgramVectorizer().fit_frequencies(df, sum(n for _, n in frequencies))


def concat_shards(
    shards: list[Shard], index: str = "exact", hnsw_m: int = 32, ef_search: int = 128
) -> Shard:
    """One shard of several (given in partition order), optionally with a faiss HNSW
    index."""
    dims = {s.emb.shape[1] for s in shards}
    emb = np.concatenate([s.emb for s in shards]) if shards else np.zeros((0, 1), np.float32)
    counts = [s.counts for s in shards if s.counts is not None]
    out = Shard(
        emb=emb.astype(np.float32, copy=False),
        ids=np.concatenate([s.ids for s in shards]) if shards else np.zeros(0, np.int64),
        rows=pd.concat([s.rows for s in shards]) if shards else pd.DataFrame(),
        counts=sp.vstack(counts).tocsr() if counts else None,
    )
    if len(dims) > 1:
        raise ValueError(f"reference shards of different widths {sorted(dims)}")
    if index == "hnsw" and len(out.emb):
        out.index = hnsw_bytes(out.emb, hnsw_m, ef_search)
    return out


@dataclass
class Candidates:
    """Top-k reference ids and scores of a partition's live queries, with the rows."""

    ids: np.ndarray
    scores: np.ndarray
    rows: pd.DataFrame


def shard_top_k(
    query: Query,
    shard: Shard,
    top_k: int,
    scorer=None,
    ngrams: NgramVectorizer | None = None,
    per_signal: int = 10,
) -> Candidates:
    """The top-k of a partition's queries within one shard: by cosine (exact, or faiss if
    indexed), or with a ``scorer`` by the combined match probability (``ngrams``: the
    reference side's n-gram weights; the scores are then the scorer's raw scores, which
    :func:`join_partition` turns into probabilities)."""
    q = query.emb
    if scorer is not None:  # the shard's index, both signals, by fuzzy_join's size rule
        assert ngrams is not None, "the combined matcher needs the n-gram weights"
        ref = ReferenceIndex(
            shard.emb,
            ngram_rows=ngrams.weigh(shard.counts),
            ids=shard.ids,
            exact_max=REFERENCE_EXACT_MAX,
            ngram_exact_max=REFERENCE_EXACT_MAX,
        )
        ids, scores = ref.best(q, ngrams.transform(query.texts), scorer, top_k, per_signal)
    else:
        faiss_index = index_from_bytes(shard.index) if shard.index is not None else None
        vectors = None if faiss_index is not None else shard.emb
        ref = ReferenceIndex(vectors, ids=shard.ids, exact_max=math.inf, faiss_index=faiss_index)
        ids, scores = ref.embedding_top_k(q, top_k)
    hit = np.unique(ids[ids >= 0])
    return Candidates(ids=ids, scores=scores, rows=shard.rows.loc[hit])


def merge_candidates(cands: list[Candidates], top_k: int) -> Candidates:
    """Merge the per-shard top-k lists of one partition (same tie rule as one shard)."""
    ids, scores = cands[0].ids, cands[0].scores
    for c in cands[1:]:
        ids, scores = merge_top_k(ids, scores, c.ids, c.scores, top_k)
    rows = pd.concat([c.rows for c in cands])
    hit = np.unique(ids[ids >= 0])
    return Candidates(ids=ids, scores=scores, rows=rows[~rows.index.duplicated()].loc[hit])


def candidate_keys(cands: Candidates, key: str, rule: Any = None) -> tuple[list[str], np.ndarray]:
    """The candidate rows' keys as compared (the key's ``rule``), and each candidate id's
    position among them (-1 padding stays -1)."""
    keys, _ = compared_keys(cands.rows[key], rule)
    at = cands.rows.index.get_indexer(cands.ids.ravel()).reshape(cands.ids.shape)
    return keys, at


def ranked_evidence(
    cands: Candidates,
    scorer,
    top_k: int,
    key: str | None = None,
    queries: list | None = None,
    rule: Any = None,
):
    """The first ``top_k`` candidates ranked by the rules of the single-process join
    (:func:`~pearl.tables.reference.rank_evidence`) read on the right key column ``key``
    (without it, the scorer's ranking alone, written as the key's ``rule`` says) and the
    partition's ``queries``: ids, probabilities with the numbers as evidence (uncapped)
    and whether each candidate is numbered apart."""
    if key is None or not len(cands.rows):
        return rank_evidence(scorer, None, cands.ids, cands.scores, top_k, None)
    keys, at = candidate_keys(cands, key, rule)
    top_at, probs, apart = rank_evidence(
        scorer, queries, at, cands.scores, top_k, keys, values=rule is not None
    )
    row_id = cands.rows.index.to_numpy()
    return np.where(top_at >= 0, row_id[np.maximum(top_at, 0)], -1), probs, apart


def join_partition(
    part: pd.DataFrame,
    query: Query,
    cands: Candidates,
    rename: dict[str, str],
    *,
    threshold: float,
    how: str,
    return_score: bool,
    top_k: int,
    scorer=None,
    names: dict[str, str] | None = None,
    key: str | None = None,
    rule: Any = None,
    decision: Any = None,
    ranked: tuple | None = None,
) -> pd.DataFrame:
    """The joined rows of one left partition (as ``fuzzy_join`` assembles them); with a
    ``scorer``, the candidates' raw scores become match probabilities first (each read
    against the best candidate of another name in the right key column ``key``; or
    ``ranked``, :func:`ranked_evidence` made beforehand), and with the join's
    ``decision`` (:mod:`pearl.tables.decision`) each link's chance."""
    live = query.live
    # with a scorer, the candidates hold more than top_k: the rivals their probabilities read
    if scorer is not None:
        if ranked is None:
            ranked = ranked_evidence(cands, scorer, top_k, key, query.texts, rule)
        top_i, top_s, apart = ranked
        top_s = decided(decision, top_s, apart)
    else:
        top_i, top_s = cands.ids, cands.scores
    ids = np.full((len(part), top_i.shape[1]), -1, dtype=np.int64)
    scores = np.full((len(part), top_i.shape[1]), -np.inf, dtype=np.float32)
    ids[live], scores[live] = top_i, top_s
    return assemble_join(
        part.reset_index(drop=True),
        cands.rows.rename(columns=rename),
        ids,
        scores,
        threshold=threshold,
        how=how,
        return_score=return_score,
        add_rank=top_k > 1,
        names=names,
    )


def write_part(frame: pd.DataFrame, folder: str | os.PathLike, partition: int) -> str:
    """Write one output partition as ``part-NNNNN.parquet``, atomically; an existing part
    (a finished partition of an interrupted run) is kept and not written again."""
    path = Path(folder) / f"part-{partition:05d}.parquet"
    if path.is_file():
        return str(path)
    with atomic_path(path) as tmp:
        frame.to_parquet(tmp, index=False)
    return str(path)


def embedding_frame(part: pd.DataFrame, keys: list[str], emb: np.ndarray) -> pd.DataFrame:
    """Key columns beside an ``embedding`` column of float32 vectors (a Parquet list)."""
    out = part[keys].reset_index(drop=True)
    out["embedding"] = list(emb)
    return out


def read_manifest(folder: Path) -> dict | None:
    """The job description stored in an output folder, or None."""
    path = folder / "_pearl_job.json"
    if not path.is_file():
        return None
    return read_json_object(path, "pearl job description")
