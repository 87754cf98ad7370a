"""A fitted reference: the keys a table tool matches against, encoded and indexed once, and
the one place where a query's candidates become its ranking.

A :class:`Reference` holds what every search of the right side needs: the encoder, the
n-gram weights (IDF) and rows, the :class:`~pearl.tables.search.ReferenceIndex`, each key's
name and numbers as integers, and the key's kind (text, or codes, numbers and dates compared
by their normalised value). :meth:`Reference.rank` ranks queries against it.

:func:`rank_candidates` is the rule chain that turns each query's candidates (ids and the
matcher's raw scores, best first) into its ranking and probabilities, run by every tool:
the single-process join (a fitted reference, or a stream of reference chunks),
:class:`~pearl.EntityIndex` and each partition of the Dask join:

1. candidates whose values differ from the query's (codes, numbers and dates), or whose
   numbers differ from its numbers (text: "Apollo 11", "Apollo 13",
   :mod:`pearl.tables.numbers`), have at most
   :data:`~pearl.tables.numbers.NUMBERED_APART` and rank after the others;
2. copies of one name (case and spaces aside) are no rivals of each other
   (:func:`~pearl.tables.matcher.name_ids`);
3. a text query whose best candidate is a typo of it, with no other name as close, has at
   least the typo floor (:func:`~pearl.tables.match_graph.unrivalled_typos`);
4. the first ``top_k`` with their probabilities (:func:`~pearl.tables.matcher.keep_top`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from pearl._validation import check_int
from pearl.encoders import DEFAULT_MODEL, TABLE_BATCH_SIZE
from pearl.tables.comparisons import ValueRule, value_rule
from pearl.tables.encoding import get_encoder, query_vectors, reference_vectors, to_string_list
from pearl.tables.match_graph import unrivalled_typos
from pearl.tables.matcher import (
    check_matcher,
    keep_top,
    name_ids,
    names_at,
    names_of_texts,
    scorer_for,
)
from pearl.tables.numbers import candidates_apart, candidates_unequal, capped, number_ids
from pearl.tables.search import ReferenceIndex

__all__ = ["Reference", "rank_candidates", "rank_evidence", "REFERENCE_EXACT_MAX"]

#: Up to this many reference rows (a chunk of a streamed table, a Dask shard), the combined
#: search is exact (embeddings and n-grams); above, the reference index's approximate search
#: (HNSW, n-gram sketch).
REFERENCE_EXACT_MAX = 20_000


def rank_candidates(
    scorer: Any,
    queries: Sequence[str] | None,
    ids: np.ndarray,
    raw: np.ndarray,
    top_k: int,
    references: Sequence[str] | None,
    *,
    values: bool = False,
    name_of: np.ndarray | None = None,
    numbered: tuple[np.ndarray, dict] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Each query's first ``top_k`` candidates and their match probabilities: the rule
    chain of the module's docstring, the only place it runs (through
    :func:`rank_evidence`, whose candidates numbered apart are capped here).

    Parameters
    ----------
    scorer : MatchScorer
    queries : sequence of str, optional
        The query texts (normalised values when ``values``); None: the number, value and
        typo rules are not applied (copies of a name still are no rivals).
    ids : ndarray of int64, shape (n_queries, width)
        Candidates, best first by raw score, -1 padding: positions in ``references``.
    raw : ndarray, the same shape
        The scorer's raw scores (-inf at padding).
    top_k : int
    references : sequence of str, optional
        The reference keys the ids point to (normalised values when ``values``); None:
        the scorer's ranking alone (no key column to read the rules on).
    values : bool, default=False
        The keys are codes, numbers or dates, compared for equality: a candidate whose
        value differs is apart; no typo floor (a typo of a code is another code).
    name_of, numbered : optional
        Each reference's :func:`~pearl.tables.matcher.name_ids` and its
        :func:`~pearl.tables.numbers.number_ids` with their table, made once for a
        reference ranked many times; else read from ``references`` for the candidates.

    Returns
    -------
    ids : ndarray of int64, shape (n_queries, min(top_k, width))
    probabilities : ndarray of float32, the same shape
    """
    top_i, top_s, apart = rank_evidence(
        scorer,
        queries,
        ids,
        raw,
        top_k,
        references,
        values=values,
        name_of=name_of,
        numbered=numbered,
    )
    return top_i, capped(top_s, apart)


def rank_evidence(
    scorer: Any,
    queries: Sequence[str] | None,
    ids: np.ndarray,
    raw: np.ndarray,
    top_k: int,
    references: Sequence[str] | None,
    *,
    values: bool = False,
    name_of: np.ndarray | None = None,
    numbered: tuple[np.ndarray, dict] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`rank_candidates` with the numbers as evidence, not a cap: the candidates
    and their probabilities (those numbered apart uncapped, still ranked after the
    others) and whether each kept candidate is numbered apart (the parameters of
    :func:`rank_candidates`).

    Returns
    -------
    ids : ndarray of int64, shape (n_queries, min(top_k, width))
    probabilities : ndarray of float32, the same shape
    apart : ndarray of bool, the same shape
    """
    if references is None:
        top_i, top_s = keep_top(scorer, ids, raw, top_k)
        return top_i, top_s.astype(np.float32, copy=False), np.zeros(top_i.shape, bool)
    names = names_of_texts(ids, references) if name_of is None else names_at(ids, name_of)
    apart = typo = None
    if queries is not None:
        if values:
            apart = candidates_unequal(queries, ids, references)
        else:
            apart = candidates_apart(queries, ids, references, numbered)
            typo = unrivalled_typos(queries, ids, references, names, apart)
    top_i, top_s = keep_top(scorer, ids, raw, top_k, names, apart, typo)
    kept_apart = np.zeros(top_i.shape, bool)
    if apart is not None and apart.any() and top_i.shape[1]:
        hit = (top_i[:, :, None] == ids[:, None, :]) & (top_i[:, :, None] >= 0)
        kept_apart = (hit & apart[:, None, :]).any(axis=2)
    return top_i, top_s.astype(np.float32, copy=False), kept_apart


class Reference:
    """Keys to match against, encoded and indexed once, ranked against any queries.

    The right side of :func:`pearl.fuzzy_join` (fitted on the right key column and applied
    to the left one), what :class:`~pearl.EntityIndex` searches, one shard of the Dask join.
    A fitted reference is reused: ranking a second set of queries encodes and indexes
    nothing of the reference again.

    Parameters
    ----------
    model : str or encoder, default=DEFAULT_MODEL
    matcher : {"combined", "cosine"} or MatchScorer, default="combined"
        As in :func:`pearl.fuzzy_join`: ``"combined"`` ranks the nearest keys by embedding
        and by character n-grams by their match probability; ``"cosine"`` by embedding
        cosine (exact).
    candidates : int, default=10
        Candidates per query from each of the embedding and the n-grams.
    batch_size : int, default=256
    exact_max : int or float, default=REFERENCE_EXACT_MAX
        Up to this many keys the combined search is exact; above, approximate.

    Attributes
    ----------
    keys_ : list of str
        The keys as compared (codes, numbers and dates normalised), ``""`` where null.
    value_rule_ : ValueRule or None
        How codes, numbers or dates are normalised; None for text keys (or the cosine
        matcher, which compares every key as text).
    decoys_ : tuple of ndarray or None
        The reference's own keys ranked as queries without a partner
        (:func:`pearl.tables.decoys.reference_decoys`), made on a join's first use.

    Examples
    --------
    >>> ref = Reference("pearl-static").fit(["The New York Times", "Boston Globe"])
    >>> ids, scores = ref.rank(["new york times"])
    >>> ids.tolist()
    [[0]]
    """

    def __init__(
        self,
        model: Any = DEFAULT_MODEL,
        *,
        matcher: Any = "combined",
        candidates: int = 10,
        batch_size: int = TABLE_BATCH_SIZE,
        exact_max: float = REFERENCE_EXACT_MAX,
    ) -> None:
        self.model = model
        self.matcher = matcher
        self.candidates = candidates
        self.batch_size = batch_size
        self.exact_max = exact_max

    # scikit-learn's conventions: parameters as given, fitted attributes end in "_"
    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters (scikit-learn's convention)."""
        names = ("model", "matcher", "candidates", "batch_size", "exact_max")
        return {n: getattr(self, n) for n in names}

    def set_params(self, **params: Any) -> Reference:
        """Set constructor parameters (scikit-learn's convention); refit afterwards."""
        for name, value in params.items():
            if name not in self.get_params():
                raise ValueError(f"Reference has no parameter {name!r}")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        fitted = f", {len(self.keys_)} keys" if hasattr(self, "keys_") else ""
        return f"Reference(model={self.model!r}, matcher={self.matcher!r}{fitted})"

    def fit(self, X: Any, y: Any = None, *, queries: Any = None) -> Reference:
        """Encode and index the reference keys ``X``.

        Parameters
        ----------
        X : column of str
            A list, array, pandas or polars Series or one-column table. Null keys are kept
            (ids stay aligned with ``X``) and never matched; other non-strings are read
            through ``str()``.
        y : ignored
        queries : column, optional
            The queries when known (the left key column of a join): the key's kind (text,
            or codes, numbers and dates) is then read from both columns, as record linkage
            reads it; else from ``X`` alone.

        Returns
        -------
        Reference
            This reference, fitted.
        """
        self.candidates = check_int(self.candidates, "candidates", 1)
        self.batch_size = check_int(self.batch_size, "batch_size", 1)
        self.encoder_ = get_encoder(self.model)
        self.scorer_ = scorer_for(check_matcher(self.matcher), self.encoder_)
        keys, nulls = to_string_list(X, non_string="str", name="keys")
        live = np.flatnonzero(~nulls)
        self.value_rule_: ValueRule | None = None
        if self.scorer_ is not None:
            column = _as_series(X)  # its dtype kept: datetimes and numbers are read as such
            other = column if queries is None else _as_series(queries)
            self.value_rule_ = value_rule(other, column)
            keys = self._normalised(keys, column)
        self.keys_ = keys
        texts = [keys[i] for i in live]
        vectors = reference_vectors(texts, self.encoder_, self.batch_size)
        self.ngrams_ = rows = None
        if self.scorer_ is not None:
            from pearl.tables.ngrams import NgramVectorizer

            self.ngrams_ = NgramVectorizer()
            rows = self.ngrams_.fit_transform(texts) if texts else None
        self.index_ = ReferenceIndex(
            vectors,
            ngram_rows=rows,
            ids=live.astype(np.int64),
            exact_max=self.exact_max if self.scorer_ is not None else math.inf,
            ngram_exact_max=self.exact_max,
        )
        # the candidates' names and numbers are read as they are ranked: a lookup of a few
        # rows in a large table reads a few, not every key's (100,000 streets: 0.7 s)
        self.name_of_: np.ndarray | None = None
        self.numbered_: tuple[np.ndarray, dict] | None = None
        # its own keys as queries without a partner (pearl.tables.decoys), made on first use
        self.decoys_: tuple[np.ndarray, np.ndarray] | None = None
        return self

    @classmethod
    def over_index(
        cls,
        index: ReferenceIndex,
        keys: list[str],
        encoder: Any,
        scorer: Any,
        ngrams: Any,
        rule: ValueRule | None = None,
    ) -> Reference:
        """A fitted reference over an index built beforehand (:class:`~pearl.EntityIndex`'s
        faiss index and n-gram rows) of ``keys`` as compared, with their n-gram
        vectoriser and value rule."""
        ref = cls(encoder, matcher=scorer if scorer is not None else "cosine")
        ref.encoder_, ref.scorer_, ref.ngrams_, ref.value_rule_ = encoder, scorer, ngrams, rule
        ref.keys_, ref.index_ = keys, index
        # an index searched many times: every name's and numbers' ids once
        ref.name_of_ = name_ids(keys)
        table: dict = {}
        ref.numbered_ = (number_ids(keys, table), table)
        ref.decoys_ = None
        return ref

    def _normalised(self, texts: list[str], column: pd.Series) -> list[str]:
        """``texts`` (the cells of ``column``) as compared: normalised by the key's
        :attr:`value_rule_`; a value that normalises to nothing keeps its text."""
        return texts if self.value_rule_ is None else self.value_rule_.written(texts, column)

    def normalise_queries(self, queries: Any) -> list[str]:
        """Query cells as this reference compares them (null cells ``""``)."""
        texts, _ = to_string_list(queries, non_string="str", name="queries")
        if getattr(self, "value_rule_", None) is None:
            return texts
        return self._normalised(texts, _as_series(queries))

    def rank(
        self, queries: Any, top_k: int = 1, *, normalised: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each query's ``top_k`` best keys.

        Parameters
        ----------
        queries : column of str
        top_k : int, default=1
        normalised : bool, default=False
            The queries are already written as the reference compares them
            (:meth:`normalise_queries`).

        Returns
        -------
        ids : ndarray of int64, shape (n_queries, min(top_k, number of keys))
            Positions in the fitted keys, -1 where none was found.
        scores : ndarray of float32, the same shape
            Match probabilities (the combined matcher) or cosines, -inf where none.
        """
        items = list(queries) if normalised else self.normalise_queries(queries)
        top_i, top_s, apart = self.rank_evidence(items, top_k)
        return top_i, capped(top_s, apart) if self.scorer_ is not None else top_s

    def rank_evidence(
        self, queries: list[str], top_k: int = 1, ng: Any = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`rank` of normalised queries with the numbers as evidence
        (:meth:`rank_vectors_evidence`); ``ng``: their n-gram rows made beforehand."""
        if not hasattr(self, "index_"):
            raise ValueError("this Reference is not fitted yet: call fit() first")
        top_k = check_int(top_k, "top_k", 1)
        q = query_vectors(queries, self.encoder_, self.batch_size) if queries else None
        return self.rank_vectors_evidence(
            np.zeros((0, 1), np.float32) if q is None else q, queries, top_k, ng=ng
        )

    def rank_vectors(
        self, q: np.ndarray, queries: list[str], top_k: int, candidates: int | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`rank` of unit query embeddings ``q`` (of the normalised ``queries``);
        ``candidates`` per signal instead of :attr:`candidates`."""
        top_i, top_s, apart = self.rank_vectors_evidence(q, queries, top_k, candidates)
        return top_i, capped(top_s, apart) if self.scorer_ is not None else top_s

    def rank_vectors_evidence(
        self,
        q: np.ndarray,
        queries: list[str],
        top_k: int,
        candidates: int | None = None,
        ng: Any = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`rank_vectors` with the numbers as evidence (:func:`rank_evidence`): the
        candidates, their uncapped probabilities and whether each is numbered apart.
        ``ng``: the queries' n-gram rows when made beforehand."""
        n, keep = len(queries), min(top_k, len(self.index_))
        if self.scorer_ is None:
            if not n or not keep:
                i, s = np.full((n, keep), -1, np.int64), np.full((n, keep), -np.inf, np.float32)
            else:
                i, s = self.index_.embedding_top_k(q, keep)
            return i, s, np.zeros(i.shape, bool)
        if not n or not len(self.index_):
            empty = np.full((n, 0), -1, np.int64)
            return empty, np.full((n, 0), -np.inf, np.float32), np.zeros((n, 0), bool)
        assert self.ngrams_ is not None  # fitted with the combined matcher's n-grams
        q_ng = self.ngrams_.transform(queries) if ng is None else ng
        width = self.scorer_.width(top_k)
        per_signal = self.candidates if candidates is None else candidates
        ids, raw = self.index_.best(q, q_ng, self.scorer_, width, per_signal)
        return rank_evidence(
            self.scorer_,
            queries,
            ids,
            raw,
            top_k,
            self.keys_,
            values=self.value_rule_ is not None,
            name_of=self.name_of_,
            numbered=self.numbered_,
        )


def _as_series(column: Any) -> pd.Series:
    """A column as an object Series (what :func:`~pearl.tables.comparisons.value_rule`
    reads), from a list, array, Series or one-column table."""
    from pearl.tables.frames import column_cells

    if isinstance(column, pd.Series):
        return column.reset_index(drop=True)
    return pd.Series(column_cells(column, "queries"), dtype=object)
