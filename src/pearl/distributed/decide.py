"""The Dask join's decision estimated on the tables, as one process estimates it
(:mod:`pearl.tables.decision`, :mod:`pearl.tables.decoys`), from partitions: each left
partition's best candidates, the reference's keys with the smallest content hashes
ranked against every shard, and the distinct queries with the smallest hashes indexed
and ranked against each other. Engine-free (pandas and numpy only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pearl.distributed.partition import Candidates, Query, Shard, candidate_keys, compared_keys
from pearl.tables.decision import DECOYS, decided, precision_cut
from pearl.tables.decoys import (
    QUERY_INDEX_MAX,
    decision_of,
    decoy_evidence,
    first_rows,
    query_sample_size,
    sample_decoys,
    text_hashes,
)
from pearl.tables.reference import REFERENCE_EXACT_MAX

__all__ = [
    "Sample",
    "best_evidence",
    "shard_sample",
    "query_sample",
    "merge_samples",
    "sample_query",
    "reference_side",
    "query_side",
    "table_decision",
    "decided_threshold",
    "query_size",
    "query_cap",
]


@dataclass
class Sample:
    """Texts (as compared) with their content hashes and unit embeddings."""

    hashes: np.ndarray
    texts: list[str]
    emb: np.ndarray


def best_evidence(ranked: tuple):
    """Each live query's best candidate in one partition (its
    :func:`~pearl.distributed.partition.ranked_evidence`): its uncapped probability and
    whether its numbers differ."""
    _, probs, apart = ranked
    if not probs.shape[1]:
        return np.zeros(0), np.zeros(0, bool)
    return probs[:, 0].astype(np.float64), apart[:, 0]


def _smallest(hashes: np.ndarray, texts: list[str], emb: np.ndarray, k: int) -> Sample:
    order = np.lexsort((np.arange(len(texts)), hashes))[: max(0, k)]
    return Sample(hashes[order], [texts[i] for i in order], emb[order])


def shard_sample(shard: Shard, key: str, rule: Any, k: int = DECOYS) -> Sample:
    """A shard's ``k`` live keys (as compared) with the smallest content hashes."""
    keys, nulls = compared_keys(shard.rows[key], rule)
    texts = [keys[i] for i in np.flatnonzero(~nulls)]  # the order of shard.emb
    return _smallest(text_hashes(texts), texts, shard.emb, k)


def query_sample(query: Query, k: int) -> Sample:
    """A partition's ``k`` distinct queries with the smallest content hashes."""
    first = first_rows(query.texts)
    texts = list(first)
    return _smallest(text_hashes(texts), texts, query.emb[list(first.values())], k)


def merge_samples(samples: list[Sample], k: int, distinct: bool = False) -> Sample:
    """The ``k`` smallest of several samples (in partition order for ties); ``distinct``:
    each text once."""
    texts = [t for s in samples for t in s.texts]
    hashes = np.concatenate([np.zeros(0, np.uint64), *(s.hashes for s in samples)])
    emb = np.concatenate([s.emb for s in samples if len(s.emb)] or [np.zeros((0, 1))])
    if distinct:
        keep = list(first_rows(texts).values())
        hashes, texts, emb = hashes[keep], [texts[i] for i in keep], emb[keep]
    return _smallest(hashes, texts, emb, k)


def sample_query(sample: Sample) -> Query:
    """A sample as the query of a search."""
    return Query(
        sample.emb.astype(np.float32, copy=False), np.arange(len(sample.texts)), sample.texts
    )


def reference_side(sample: Sample, cands: Candidates, scorer, key: str, rule: Any):
    """The reference's decoys: its sampled keys' candidates over every shard (merged),
    copies of their own name left out (:func:`~pearl.tables.decoys.decoy_evidence`)."""
    if len(sample.texts) < 2 or not len(cands.rows):
        return np.zeros(0), np.zeros(0, bool)
    keys, at = candidate_keys(cands, key, rule)
    return decoy_evidence(scorer, sample.texts, at, cands.scores, keys, rule is not None)


def query_side(sample: Sample, scorer, ngrams, rule: Any, candidates: int = 10):
    """The queries' decoys: the sampled distinct queries indexed as the reference is and
    ranked against each other (:func:`~pearl.tables.decoys.index_decoys`)."""
    if len(sample.texts) < 2:
        return np.zeros(0), np.zeros(0, bool)
    return sample_decoys(
        scorer, sample.texts, sample.emb, ngrams.transform(sample.texts),
        values=rule is not None, candidates=candidates, exact_max=REFERENCE_EXACT_MAX,
    )  # fmt: skip


def query_cap(shards: list[Shard]) -> int:
    """How many distinct queries each partition offers for the queries' decoys: as many as
    the reference has keys, at most :data:`~pearl.tables.decoys.QUERY_INDEX_MAX`."""
    return min(sum(len(s.ids) for s in shards), QUERY_INDEX_MAX)


def query_size(samples: list[Sample], shards: list[Shard]) -> int:
    """How many distinct queries the queries' decoys index, from the partitions' samples
    (each of up to that many) and the reference's size."""
    distinct = len({t for s in samples for t in s.texts})
    return query_sample_size(distinct, sum(len(s.ids) for s in shards))


def _pooled(evidence: list) -> tuple[np.ndarray, np.ndarray]:
    """Every partition's best candidates' probabilities and numbers apart, in one."""
    best = np.concatenate([np.zeros(0), *(e[0] for e in evidence)])
    apart = np.concatenate([np.zeros(0, bool), *(e[1] for e in evidence)])
    return best, apart


def table_decision(evidence: list, reference: tuple, queries: tuple):
    """The decision over every partition's best candidates and both sides' decoys."""
    return decision_of(*_pooled(evidence), reference, queries)


def decided_threshold(evidence: list, decision, precision: float) -> float:
    """The ``precision=`` threshold over every partition's decided best candidates, as
    the single-process join reads them (:func:`~pearl.tables.decision.precision_cut`)."""
    best, apart = _pooled(evidence)
    chances = decided(decision, best[:, None], apart[:, None])[:, 0]
    return precision_cut(chances, precision, decision)
