"""The sparse match graph of a column: each distinct value linked to its nearest
neighbours by embedding and by character n-grams (the column's values searched in their
own :class:`~pearl.tables.search.ReferenceIndex`), every link weighted by the
matcher's probability (or the embedding cosine). What :func:`~pearl.cluster` cuts, at any
size."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from pearl.tables.matcher import TYPO_FLOOR
from pearl.tables.numbers import numbered_last
from pearl.tables.search import ReferenceIndex
from pearl.tables.words import abbreviates, within_one_edit, worded_apart

__all__ = [
    "MatchGraph",
    "abbreviation_apart",
    "AbbreviationWords",
    "edits_apart",
    "match_graph",
    "unrivalled_typos",
    "one_edit_apart",
    "one_edit_lowered",
    "pair_cosines",
]


@dataclass
class MatchGraph:
    """Undirected weighted edges between distinct values ``rows[e] < cols[e]``.

    Attributes
    ----------
    n : int
        Number of values (nodes).
    rows, cols : ndarray of int64
    weights : ndarray of float32
        Match probability (or cosine) of each edge.
    """

    n: int
    rows: np.ndarray
    cols: np.ndarray
    weights: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)


def _pairs(*neighbour_lists: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Unique undirected pairs ``i < j`` of the neighbour lists (None: no list)."""
    rows, cols = [], []
    for ids in neighbour_lists:
        if ids is None:
            continue
        i = np.repeat(np.arange(len(ids), dtype=np.int64), ids.shape[1])
        j = ids.ravel()
        ok = (j >= 0) & (j != i)
        rows.append(np.minimum(i, j)[ok])
        cols.append(np.maximum(i, j)[ok])
    if not rows:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    key = np.unique(np.concatenate(rows) * (1 << 32) + np.concatenate(cols))
    return key >> 32, key & ((1 << 32) - 1)


def pair_cosines(a, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Cosines of unit rows ``a[rows[e]]`` and ``a[cols[e]]`` (dense or sparse ``a``),
    float32. Pairs are taken in chunks that keep the gathered rows in the CPU cache
    (8,192 dense rows, 32,768 sparse ones): on 220,000 pairs, 2x faster for 256-d
    embeddings and 1.6x for n-gram rows than one gather of every pair."""
    dense = isinstance(a, np.ndarray)
    chunk = 1 << 13 if dense else 1 << 15
    out = np.empty(len(rows), dtype=np.float32)
    for s in range(0, len(rows), chunk):
        r, c = rows[s : s + chunk], cols[s : s + chunk]
        if dense:
            out[s : s + chunk] = np.einsum("ij,ij->i", a[r], a[c])
        else:
            out[s : s + chunk] = np.asarray(a[r].multiply(a[c]).sum(axis=1)).ravel()
    return out


def match_graph(
    texts: list[str],
    embeddings: np.ndarray,
    scorer=None,
    *,
    top_k: int = 10,
    exact_max: int | None = None,
    edits: tuple[float, int] | None = None,
    short_edit: tuple[float, int] | None = None,
    abbreviation: float | None = None,
    numbers: float | None = None,
    words: float | None = None,
) -> MatchGraph:
    """Link each value to its ``top_k`` nearest by embedding and, with a ``scorer``, its
    ``top_k`` nearest by n-gram cosine; weigh each link by ``scorer.probability`` of the
    pair's two cosines (without a scorer: the embedding cosine).

    Parameters
    ----------
    texts : list of str
        Distinct values.
    embeddings : ndarray, shape (len(texts), dim)
        Their unit embeddings.
    scorer : MatchScorer, optional
    top_k : int, default=10
        Neighbours per value and per signal.
    exact_max : int, optional
        Up to this many values the neighbours are exact; above, approximate (default
        :data:`~pearl.tables.search.EXACT_MAX`).
    edits : (float, int), optional
        ``(boost, chars_per_edit)``: with a ``scorer``, a link between two values at most
        one edit apart per ``chars_per_edit`` characters of the shorter
        (:func:`edits_apart`) gets the probability ``max(p, boost)``.
    short_edit : (float, int), optional
        ``(cap, min_length)``: with a ``scorer``, a link between two values one edit apart
        whose shorter has fewer than ``min_length`` characters ("aaa" and "aaab", "NBC"
        and "NBA") gets the probability ``min(p, cap)``: a short string one edit from
        another is often another thing.
    abbreviation : float, optional
        With a ``scorer``, a link between two values that abbreviate each other
        (:func:`abbreviation_apart`) gets at least this probability.
    numbers : float, optional
        With a ``scorer``, a link between two values numbered apart ("Apollo 11", "Apollo
        13": :mod:`pearl.tables.numbers`) gets at most this probability, whatever the
        other rules gave it.
    words : float, optional
        Likewise for two values a word apart ("North Korea", "South Korea":
        :mod:`pearl.tables.words`).

    Returns
    -------
    MatchGraph
    """
    n = len(texts)
    if scorer is None:
        emb_nn, _ = ReferenceIndex(embeddings, exact_max=exact_max).neighbours(top_k)
        rows, cols = _pairs(emb_nn)
        return MatchGraph(n, rows, cols, pair_cosines(embeddings, rows, cols))
    from pearl.tables.ngrams import NgramVectorizer

    ng = NgramVectorizer().fit_transform(texts)
    index = ReferenceIndex(embeddings, ngram_rows=ng, exact_max=exact_max)
    rows, cols = _pairs(*index.neighbours(top_k))
    weights = np.asarray(
        scorer.probability(pair_cosines(embeddings, rows, cols), pair_cosines(ng, rows, cols)),
        dtype=np.float32,
    )
    if abbreviation is not None:
        near = abbreviation_apart(texts, rows, cols)
        weights = np.where(near, np.maximum(weights, abbreviation), weights).astype(np.float32)
    if edits is not None or short_edit is not None:
        lower = [t.lower() for t in texts]
    if edits is not None:
        boost, chars_per_edit = edits
        near = edits_apart(lower, rows, cols, chars_per_edit)
        weights = np.where(near, np.maximum(weights, boost), weights).astype(np.float32)
    if short_edit is not None:
        cap, min_length = short_edit
        near = one_edit_lowered(lower, rows, cols) & ~_shorter_at_least(
            lower, rows, cols, min_length
        )
        weights = np.where(near, np.minimum(weights, cap), weights).astype(np.float32)
    if numbers is not None:
        from pearl.tables.numbers import number_ids, numbered_apart

        apart = numbered_apart(number_ids(texts), rows, cols)
        weights = np.where(apart, np.minimum(weights, numbers), weights).astype(np.float32)
    if words is not None:
        apart = worded_apart(texts, rows, cols)
        weights = np.where(apart, np.minimum(weights, words), weights).astype(np.float32)
    return MatchGraph(n, rows, cols, weights)


def one_edit_apart(
    texts: list[str], rows: np.ndarray, cols: np.ndarray, min_length: int = 1
) -> np.ndarray:
    """For each pair ``(texts[rows[e]], texts[cols[e]])``: whether the two differ, case
    aside, by exactly one edit (a substitution, an insertion, a deletion or a swap of two
    adjacent characters) and the shorter has at least ``min_length`` characters. The
    typos of a keyboard (a slip, a dropped or doubled letter, two letters swapped) are
    one edit.

    Returns
    -------
    ndarray of bool, shape (len(rows),)
    """
    return one_edit_lowered([t.lower() for t in texts], rows, cols, min_length)


def one_edit_lowered(
    lower: list[str], rows: np.ndarray, cols: np.ndarray, min_length: int = 1
) -> np.ndarray:
    """:func:`one_edit_apart` of texts already lower-cased (the lengths tested first, the
    edit only where they allow it)."""
    length = _lengths(lower)
    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    out = np.zeros(len(rows), dtype=bool)
    near = np.flatnonzero(
        (np.abs(length[rows] - length[cols]) <= 1)
        & (np.minimum(length[rows], length[cols]) >= min_length)
    )
    out[near] = one_edit_pairs([lower[i] for i in rows[near]], [lower[j] for j in cols[near]])
    return out


def _lengths(lower: list[str]) -> np.ndarray:
    return np.fromiter((len(t) for t in lower), dtype=np.int64, count=len(lower))


def _shorter_at_least(lower: list[str], rows, cols, min_length: int) -> np.ndarray:
    length = _lengths(lower)
    return np.minimum(length[rows], length[cols]) >= min_length


def edits_apart(
    lower: list[str], rows: np.ndarray, cols: np.ndarray, chars_per_edit: int
) -> np.ndarray:
    """For each pair ``(lower[rows[e]], lower[cols[e]])`` of lower-cased texts: whether they
    differ by at least one edit and at most ``len(shorter) // chars_per_edit`` (optimal
    string alignment distance: substitutions, insertions, deletions, swaps of adjacent
    characters). With ``chars_per_edit=6``: values of 6-11 characters one typo apart,
    12-17 characters up to two, and so on; under 6 characters, none.

    Returns
    -------
    ndarray of bool, shape (len(rows),)
    """
    length = _lengths(lower)
    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    allowed = np.minimum(length[rows], length[cols]) // chars_per_edit
    out = np.zeros(len(rows), dtype=bool)
    near = np.flatnonzero((allowed >= 1) & (np.abs(length[rows] - length[cols]) <= allowed))
    if len(near):
        dist = edit_distances(
            [lower[i] for i in rows[near]],
            [lower[j] for j in cols[near]],
            int(allowed[near].max()),
        )
        out[near] = (dist >= 1) & (dist <= allowed[near])
    return out


def unrivalled_typos(
    queries,
    ids: np.ndarray,
    references,
    names: np.ndarray | None = None,
    apart: np.ndarray | None = None,
    chars_per_edit: int = TYPO_FLOOR[1],
) -> np.ndarray:
    """For each query's ranked candidates (``ids``: rows of ``references``, best first, -1
    padding): whether its best candidate is a typo of it (:func:`edits_apart`, case aside)
    and the best candidate of another name is not. ``names`` (integers, equal for copies
    of a name; default the ids) and ``apart`` (candidates numbered apart, ranked last)
    order the candidates as :func:`~pearl.tables.matcher.keep_top` does.

    Returns
    -------
    ndarray of bool, shape (len(ids),)
    """
    n = len(ids)
    out = np.zeros(n, dtype=bool)
    if not n or not ids.shape[1]:
        return out
    apart = np.zeros(ids.shape, dtype=bool) if apart is None else np.asarray(apart, dtype=bool)
    names = ids if names is None else np.asarray(names)
    if apart.any():  # keep_top's order: those numbered apart after the others
        order = numbered_last(ids, apart)
        ids, apart, names = (np.take_along_axis(x, order, 1) for x in (ids, apart, names))
    other = (names != names[:, :1]) & (ids >= 0)
    rival = np.where(other.any(axis=1), ids[np.arange(n), other.argmax(axis=1)], -1)
    live = np.flatnonzero((ids[:, 0] >= 0) & ~apart[:, 0])
    if not len(live):
        return out
    m = len(live)
    lower = [str(queries[i]).lower() for i in live]
    lower += [str(references[j]).lower() for j in ids[live, 0]]
    lower += [str(references[j]).lower() if j >= 0 else "" for j in rival[live]]
    at = np.arange(m)  # the best and the rival of each in one call
    near = edits_apart(lower, np.r_[at, at], np.r_[at + m, at + 2 * m], chars_per_edit)
    out[live] = near[:m] & ~(near[m:] & (rival[live] >= 0))
    return out


def _osa(a: str, b: str) -> int:
    """The optimal string alignment distance (the Python fallback of rapidfuzz's), on
    what remains once the common prefix and suffix are cut off, as rapidfuzz does (a
    typo is one place: the table to fill is a few letters, not the whole strings)."""
    start = len(os.path.commonprefix([a, b]))
    a, b = a[start:], b[start:]
    end = len(os.path.commonprefix([a[::-1], b[::-1]]))
    a, b = a[: len(a) - end], b[: len(b) - end]
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def edit_distances(xs: list[str], ys: list[str], cutoff: int) -> np.ndarray:
    """The optimal string alignment distance of each pair ``(xs[e], ys[e])``, any value
    above ``cutoff`` reported as ``cutoff + 1``; with rapidfuzz installed, in its compiled
    loop (same answers)."""
    try:
        from rapidfuzz.distance import OSA
        from rapidfuzz.process import cpdist
    except ImportError:
        return np.fromiter(
            (min(_osa(x, y), cutoff + 1) for x, y in zip(xs, ys, strict=True)),
            dtype=np.int64,
            count=len(xs),
        )
    if not xs:
        return np.zeros(0, dtype=np.int64)
    return cpdist(xs, ys, scorer=OSA.distance, score_cutoff=cutoff, workers=1).astype(np.int64)


def one_edit_pairs(xs: list[str], ys: list[str]) -> np.ndarray:
    """Whether ``xs[e]`` and ``ys[e]`` differ by exactly one edit (optimal string alignment
    distance 1: a substitution, an insertion, a deletion or a swap of adjacent characters);
    with rapidfuzz installed, in its compiled loop (same answers)."""
    try:
        from rapidfuzz.distance import OSA
        from rapidfuzz.process import cpdist
    except ImportError:
        return np.fromiter(
            (x != y and within_one_edit(x, y) for x, y in zip(xs, ys, strict=True)),
            dtype=bool,
            count=len(xs),
        )
    if not xs:
        return np.zeros(0, dtype=bool)
    return cpdist(xs, ys, scorer=OSA.distance, score_cutoff=1, workers=1) == 1


def _abbreviation_pair(wa: list[str], wb: list[str], longest: int | None = None) -> bool:
    if wa == wb:
        return False
    short = (lambda w: True) if longest is None else (lambda w: len(w) <= longest)
    return all(
        x == y or (short(x) and abbreviates(x, y)) or (short(y) and abbreviates(y, x))
        for x, y in zip(wa, wb, strict=True)
    )


class AbbreviationWords:
    """What :func:`abbreviation_apart` reads of ``texts``, made for each text when first
    asked and kept (record linkage asks a column's pairs four times a call): its words
    (lower-cased, a final dot aside) and an integer key, equal for texts of as many words
    with the same initials (an abbreviation keeps the first letter: pairs of other keys
    are never compared letter by letter)."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.words: dict[int, list[str]] = {}
        self.key = np.full(len(texts), -1, dtype=np.int64)
        self._initials: dict[str, int] = {}

    def of(self, positions: np.ndarray) -> tuple[dict[int, list[str]], np.ndarray]:
        """The words and keys, made for ``positions`` where missing."""
        new = np.unique(positions[self.key[positions] < 0])
        for i in new.tolist():
            ws = self.words[i] = [w.rstrip(".") for w in self.texts[i].lower().split()]
            group = "".join(w[:1] for w in ws) + f"|{len(ws)}"
            self.key[i] = self._initials.setdefault(group, len(self._initials))
        return self.words, self.key


def abbreviation_apart(
    texts: list[str],
    rows: np.ndarray,
    cols: np.ndarray,
    *,
    min_words: int = 1,
    longest: int | None = None,
    prepared: AbbreviationWords | None = None,
) -> np.ndarray:
    """For each pair ``(texts[rows[e]], texts[cols[e]])``: whether the two have as many
    words and each word of one equals the other's or abbreviates it (case and a final dot
    aside; an abbreviation has 2+ letters, the same first letter and its letters in order:
    "Corp." of "Corporation", "Intl" of "International", "Lit." of "Little"), at least
    one word being abbreviated. ``min_words``: texts of fewer words are never abbreviation
    pairs; ``longest``: the most letters an abbreviation may have (default any);
    ``prepared``: an :class:`AbbreviationWords` of ``texts`` kept between calls.

    Returns
    -------
    ndarray of bool, shape (len(rows),)
    """
    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    prepared = AbbreviationWords(texts) if prepared is None else prepared
    words, key = prepared.of(np.concatenate([rows, cols]))
    out = np.zeros(len(rows), dtype=bool)
    same = np.flatnonzero(key[rows] == key[cols])
    pairs = zip(rows[same].tolist(), cols[same].tolist(), strict=True)
    out[same] = [
        len(words[i]) >= min_words and _abbreviation_pair(words[i], words[j], longest)
        for i, j in pairs
    ]
    return out
