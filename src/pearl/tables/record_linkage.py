"""Record linkage on several columns: each field compared with its own similarity, the
evidence combined into one match probability by a Fellegi-Sunter model fitted without
labels (EM), as splink and recordlinkage do.

The steps, for a left and a right table and pairs of key columns:

1. **Candidates** (blocking, :mod:`pearl.tables.blocking`): the rows sharing a rare code,
   date or number value, and each left row's nearest right rows by character n-grams on
   every text field and by a record embedding (the sum of its text fields' embeddings),
   each searched in a :class:`~pearl.tables.search.ReferenceIndex` (approximate above its
   size limits). On a large table the search is first run on a sample of left rows, and
   skipped when it adds no expected match beside the shared values (:func:`_blocked_pairs`).
2. **Comparison levels**: per field and candidate pair, a small integer, by the field's kind
   (:func:`field_kind`, read from the values: a CSV's columns are all text). Text (names,
   free text): 4 when equal (case and surrounding spaces aside), else the combined
   matcher's probability (the fields' embedding and n-gram cosines,
   :class:`~pearl.tables.matcher.MatchScorer`) binned at 0.9 / 0.7 / 0.4 into 3..0,
   at least 3 one typo apart. Codes (phones, postcodes, ids): 2 equal after removing
   spaces and punctuation, 1 one edit apart, 0 otherwise. Numbers: 2 equal, 1 within 1%
   of the column's spread (at least 1 for whole numbers), 0 otherwise. Dates: 3 equal, 2
   one digit apart or two digits swapped (also as written, where one is not a date), 1
   within 31 days, 0 otherwise. A null or empty value on either side is *missing
   evidence* (level -1), never a mismatch. Only text fields are embedded.
3. **Fellegi-Sunter**: the probability of each level among non-matches (``u``) is counted on
   random pairs of rows (almost all non-matches). Its probability among matches (``m``) is
   counted, field by field, on the candidate pairs that agree on every other field where
   such agreement is too rare by chance to be anything but a match (splink trains ``m``
   on blocking rules the same way); a field without enough such pairs gets ``m`` by EM.
   The share of matches among the candidates is fitted by EM, bounded by what the tables
   allow (at most ``min(n_left, n_right)`` true pairs). A pair's match probability is the
   posterior under conditional independence of the fields.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from pearl._warnings import warn_user
from pearl.encoders import TABLE_BATCH_SIZE
from pearl.tables.blocking import RecordSearch, equal_value_pairs, sample_rows, unique_pairs
from pearl.tables.comparisons import (
    LEVELS,
    STRONG_TOP,
    _CodeField,
    _Field,
    _levels,
    _TextField,
    embed_fields,
    field_kind,
)
from pearl.tables.fellegi_sunter import FellegiSunter
from pearl.tables.value_frequency import equal_chances, tf_offset

__all__ = [
    "FellegiSunter",
    "field_kind",
    "link_tables",
    "cluster_records",
    "one_to_one_links",
    "LEVELS",
]


def link_tables(
    left: pd.DataFrame,
    right: pd.DataFrame,
    left_on: list[str],
    right_on: list[str],
    *,
    encoder=None,
    scorer=None,
    top_k: int = 1,
    candidates: int = 10,
    random_pairs: int = 50_000,
    seed: int = 0,
    known_matches=None,
    one_to_one: bool = False,
    batch_size: int = TABLE_BATCH_SIZE,
) -> tuple[np.ndarray, np.ndarray, FellegiSunter]:
    """Each left row's ``top_k`` right rows by Fellegi-Sunter match probability.

    ``known_matches``, optional: ``(left position, right position)`` pairs known to match;
    ``m`` is then learned from them instead of by EM (``u`` still comes from random
    pairs, the prior by EM on the candidates). ``one_to_one=True`` (with ``top_k=1``):
    each right row is given to at most one left row, see :func:`one_to_one_links`.
    ``batch_size``: phrases per forward pass when the text fields' values are embedded.

    Returns ``(ids, probabilities, model)``: arrays of shape ``(len(left), top_k)`` (id -1
    and probability ``-inf`` where a row has fewer candidates) and the fitted model, with
    each field's kind (``model.kinds_``) and name (``model.names_``), and how the
    candidates were found (``model.blocking_``: ``search`` is ``"whole table"`` or
    ``"skipped"``, with the rows of the sample that decided it and the expected matches
    the search added there, ``search_gain``; see :func:`_blocked_pairs`; and
    ``distinct_left_rows`` where left rows repeat).

    Left rows equal on every key are one record (:func:`_distinct_records`): linked once,
    the answer given to each of them (but with ``one_to_one``, where each row counts).
    """
    if one_to_one and top_k != 1:  # before any work
        raise ValueError("one_to_one=True links each row at most once: top_k must be 1")
    left, right = left.reset_index(drop=True), right.reset_index(drop=True)
    first, record = (None, None) if one_to_one else _distinct_records(left, left_on)
    if first is not None and record is not None:
        # rows equal on every key are one record: linked once, their answer given to each
        known = None if known_matches is None else _positions(known_matches, len(left), len(right))
        ids, proba, model = link_tables(
            left.iloc[first],
            right,
            left_on,
            right_on,
            encoder=encoder,
            scorer=scorer,
            top_k=top_k,
            candidates=candidates,
            random_pairs=random_pairs,
            seed=seed,
            known_matches=None
            if known is None
            else np.unique(np.column_stack([record[known[:, 0]], known[:, 1]]), axis=0),
            batch_size=batch_size,
        )
        getattr(model, "blocking_")["distinct_left_rows"] = len(first)  # noqa: B009
        return ids[record], proba[record], model
    kinds, fields = _compared_fields(left, right, left_on, right_on, encoder, scorer, batch_size)
    rng = np.random.default_rng(seed)
    n_random = random_pairs if len(left) and len(right) else 0
    rand_l = rng.integers(0, max(len(left), 1), n_random)
    rand_r = rng.integers(0, max(len(right), 1), n_random)
    random_gamma = _levels(fields, rand_l, rand_r)
    known = None if known_matches is None else _positions(known_matches, len(left), len(right))
    names = [str(a) if a == b else f"{a}/{b}" for a, b in zip(left_on, right_on, strict=True)]
    fit = functools.partial(
        _probabilities,
        fields,
        kinds,
        random_gamma=random_gamma,
        equal=equal_chances(fields, kinds, one_table=False),
        known=known,
        names=names,
    )
    pairs, blocking = _blocked_pairs(
        fields, (len(left), len(right)), encoder, candidates, fit, seed=seed, check=top_k == 1
    )
    pairs = _with_evidence(pairs, fields)
    proba, model = fit(pairs, n_left=len(left), n_right=len(right))
    model.blocking_ = blocking
    model.kinds_, model.names_ = kinds, names
    if one_to_one:
        return (*one_to_one_links(pairs, proba, len(left)), model)
    return (*_best(pairs, proba, len(left), top_k), model)


def _distinct_records(left: pd.DataFrame, columns: list[str]):
    """``(first, record)``: the first row of each distinct combination of the key
    ``columns`` (missing values equal to each other) and each row's combination, or
    ``(None, None)`` when every row is distinct or the cells cannot be compared.

    A left table of repeated rows (a log, a file of transactions joined to a register)
    holds each record many times. Fitted on every copy, the model counted a record's
    pairs once per copy, and its bound of one partner per right row (``min(n_left,
    n_right)`` true pairs) fell below the truth as the table grew: 50,000 rows drawn from
    20,000 records linked none of the 2,474 pairs that 20,000 rows of them linked."""
    if len(left) < 2 or not columns:
        return None, None
    try:
        record = left.groupby(columns, sort=False, dropna=False).ngroup().to_numpy(np.int64)
    except (TypeError, ValueError):  # unhashable cells: every row its own record
        return None, None
    if record.min() < 0 or record.max() + 1 == len(left):
        return None, None
    _, first = np.unique(record, return_index=True)
    return first, record


def _blocked_pairs(
    fields, sizes, encoder, width: int, fit, *, seed: int, check: bool, one_table: bool = False
):
    """The candidate pairs, and a record of how they were found (``model.blocking_``).

    The pairs that share a rare code, date or number value, and the fuzzy search's
    (:mod:`pearl.tables.blocking`). Before the search runs on a large table (at least four
    times :data:`~pearl.tables.blocking.SAMPLE_ROWS` left rows, drawn with ``seed``, and
    ``check``), it runs exactly on a random sample of that many left rows
    and a model is fitted (``fit``) on the sample's candidates: when the search adds less
    than one expected match there (:func:`_search_gain`), the equal values are the
    candidates and the search is skipped (splink's exact blocking, checked on the data).
    The sample is searched an eighth first, and the rest only when that eighth shows no
    expected match from the search. ``sizes``: the left and right tables' lengths.
    ``one_table``: both sides are one table (:func:`cluster_records`): a row's pair with
    itself is no candidate, and the search's gain is counted over pairs."""
    search = RecordSearch(fields, encoder, width)
    equal = equal_value_pairs(fields, width)
    shared = any(len(p) for p in equal)
    sample = sample_rows(sizes[0], np.random.default_rng([seed, 1])) if shared else None
    record = {"search": "whole table", "sample_rows": 0, "search_gain": None}
    if sample is not None and check:
        seen, in_sample, searched = np.zeros(0, np.int64), [], []
        # an eighth first: where the search plainly adds matches, the rest is not searched
        for part in np.split(sample, [len(sample) // 8]):
            part = np.sort(part)
            seen = np.concatenate([seen, part])
            in_sample += [p[np.isin(p[:, 0], part)] for p in equal]
            searched += search.pairs(part)
            pairs, in_equal = unique_pairs(in_sample + searched), unique_pairs(in_sample)
            if one_table:
                pairs, in_equal = _other_rows(pairs), _other_rows(in_equal)
            # a sample's model warns nobody
            proba, _ = fit(pairs, n_left=len(seen), n_right=sizes[1], warn=False)
            gain = _search_gain(pairs, proba, in_equal, per_pair=one_table)
            record.update(sample_rows=len(seen), search_gain=gain)
            if gain >= 1:
                break
        else:
            return unique_pairs(equal), {**record, "search": "skipped"}
    return unique_pairs(equal + search.pairs()), record


def _other_rows(pairs: np.ndarray) -> np.ndarray:
    """The pairs of two different rows (a table searched against itself finds each row)."""
    return pairs[pairs[:, 0] != pairs[:, 1]]


def _empty_rows(fields, side: str) -> np.ndarray:
    """Which rows of one side (``"left"`` or ``"right"``) miss every field's value."""
    return np.logical_and.reduce([f.lnull if side == "left" else f.rnull for f in fields])


def _with_evidence(pairs: np.ndarray, fields) -> np.ndarray:
    """The candidate pairs whose rows each hold a value in some field: a row whose every
    key is missing carries no evidence, and linking it (``threshold=0``) named an
    arbitrary record (cluster_records leaves such rows alone likewise)."""
    if not len(pairs) or not fields:
        return pairs
    empty_l, empty_r = _empty_rows(fields, "left"), _empty_rows(fields, "right")
    return pairs[~empty_l[pairs[:, 0]] & ~empty_r[pairs[:, 1]]]


def _search_gain(
    pairs: np.ndarray, proba: np.ndarray, equal: np.ndarray, per_pair: bool = False
) -> float:
    """The expected matches that only the search found: over the left rows of ``pairs``,
    the sum of each row's best probability less its best among the ``equal`` pairs (0
    without any). ``per_pair`` (one table, where a row can have several duplicates and a
    missing link weakens its cluster): the sum of the probabilities of the pairs that are
    not ``equal`` pairs."""
    if not len(pairs):
        return 0.0
    width = int(pairs[:, 1].max()) + 1
    is_equal = np.isin(pairs[:, 0] * width + pairs[:, 1], equal[:, 0] * width + equal[:, 1])
    if per_pair:
        return float(proba[~is_equal].sum())
    rows, at = np.unique(pairs[:, 0], return_inverse=True)
    best, best_equal = np.zeros(len(rows)), np.zeros(len(rows))
    np.maximum.at(best, at, proba)
    np.maximum.at(best_equal, at[is_equal], proba[is_equal])
    return float((best - best_equal).sum())


def one_to_one_links(pairs: np.ndarray, proba: np.ndarray, n_left: int):
    """Each left row's match when no row of either table may be linked twice: candidate
    pairs taken greedily by decreasing probability (ties to the lower left, then right
    row), a pair kept when neither of its rows is taken yet (recordlinkage's one-to-one
    linking). A left row whose best candidate went to a likelier pair gets its next free
    candidate. Returns ``ids, scores`` of shape ``(n_left, 1)`` (-1 and ``-inf``: none)."""
    ids = np.full((n_left, 1), -1, dtype=np.int64)
    scores = np.full((n_left, 1), -np.inf, dtype=np.float32)
    order = np.lexsort((pairs[:, 1], pairs[:, 0], -proba)) if len(pairs) else np.zeros(0, int)
    right_taken: set[int] = set()
    for e in order:
        i, j = int(pairs[e, 0]), int(pairs[e, 1])
        if ids[i, 0] < 0 and j not in right_taken:
            ids[i, 0], scores[i, 0] = j, proba[e]
            right_taken.add(j)
    return ids, scores


def _positions(pairs, n_left: int, n_right: int) -> np.ndarray:
    """Known matching pairs as an int array of shape (n, 2), checked against the tables."""
    arr = np.asarray(pairs)
    if arr.ndim != 2 or arr.shape[1] != 2 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError("known_matches must be pairs of row positions (left, right)")
    if len(arr) == 0:
        raise ValueError("known_matches is empty; leave it None to fit m without labels")
    if arr.min() < 0 or arr[:, 0].max() >= n_left or arr[:, 1].max() >= n_right:
        raise ValueError("known_matches names a row outside the tables")
    return arr.astype(np.int64)


def _compared_fields(
    left, right, left_on, right_on, encoder, scorer, batch_size: int = TABLE_BATCH_SIZE
):
    """Each pair of key columns' kind and comparison field, for the candidate search and
    :func:`_levels`."""
    columns = []
    for a, b in zip(left_on, right_on, strict=True):
        column = left[a]
        # one table compared with itself: one column object, whose values a field reads once
        columns.append((column, column if right is left and a == b else right[b]))
    kinds = [field_kind(x, y) for x, y in columns]
    fields = [
        _TextField(x, y, scorer)
        if k == "text"
        else _CodeField(x, y)
        if k == "code"
        else _Field(k, x, y)
        for (x, y), k in zip(columns, kinds, strict=True)
    ]
    text = [f for f in fields if isinstance(f, _TextField)]
    embed_fields(text, encoder, batch_size)
    return kinds, fields


def _probabilities(
    fields,
    kinds,
    pairs: np.ndarray,
    *,
    random_gamma: np.ndarray,
    equal: list[float | None],
    n_left: int,
    n_right: int | None = None,
    known=None,
    names: list[str] | None = None,
    term_frequency: bool = True,
    warn: bool = True,
):
    """The Fellegi-Sunter model (``u`` from the levels of random pairs, ``random_gamma``,
    with each field's chance of equal values counted from the columns, ``equal``
    (:func:`~pearl.tables.value_frequency.equal_chances`, once a linkage); ``m`` and the
    prior by EM on the candidate ``pairs`` of ``n_left`` left rows; ``m``
    from the ``known`` matching pairs when given) and the match probability of each
    pair. ``warn=False``: a field switched off by the sanity check is not warned of."""
    one_table = n_right is None  # cluster_records: unordered pairs of distinct rows
    n_right = n_left if n_right is None else n_right
    all_pairs = max(n_left * (n_left - 1) // 2 if one_table else n_left * n_right, 1)
    model = FellegiSunter(
        [LEVELS[k] for k in kinds], strong=[LEVELS[k] - STRONG_TOP[k] for k in kinds]
    )
    model.fit_u(random_gamma)
    for f, chance in enumerate(equal):
        if chance is not None:
            model.set_equal_chance(f, chance)
    gamma = _levels(fields, pairs[:, 0], pairs[:, 1])
    if known is not None:
        known_gamma = _levels(fields, known[:, 0], known[:, 1])
        if warn:
            _check_known(known_gamma, random_gamma, model.n_levels)
        model.fit_m(known_gamma)
    else:
        model.fit_m_from_agreement(gamma, n_right, n_left, n_pairs=all_pairs)
    if not len(pairs):
        return np.zeros(0), model
    # at most min(n_left, n_right) true pairs among the candidates
    max_prior = min(n_left, n_right) / len(pairs)
    # the matches among the random pairs taken out of u as the EM goes (small tables)
    share = len(pairs) / all_pairs
    model.fit(gamma, prior=min(0.5, max_prior), max_prior=max_prior, candidate_share=share)
    if model.check_sane(names, warn):  # the prior without them
        model.fit(gamma, prior=model.prior_, max_prior=max_prior, candidate_share=share)
    if warn and known is None and model.prior_ <= NO_MATCH_PRIOR:
        _warn_no_match(len(pairs), n_left * n_right if not one_table else all_pairs)
    offset = tf_offset(fields, kinds, model, pairs, gamma) if term_frequency else None
    proba = model.predict_proba(gamma, offset)
    if warn:
        _warn_equal_unlinked(model, gamma, proba, all_pairs)
    return proba, model


#: the EM's share of matches at which it found none at all (its floor is 1e-6)
NO_MATCH_PRIOR = 1e-5


def _warn_no_match(n_candidates: int, n_pairs: int) -> None:
    """Say that the model found no match among the candidates, so that a join that links
    nothing is never silent: on tables of few pairs (a one-row right table: 4 pairs) the
    fields' weights cannot be learned from the table, and unrelated tables have none."""
    few = " (too few pairs to learn how the fields weigh)" if n_pairs < 1000 else ""
    warn_user(
        f"record linkage: the model found no match among {n_candidates:,} candidate pairs "
        f"of {n_pairs:,}{few}, so no row is linked; give known_matches= (pearl review "
        "labels them), or join on one key column, whose matcher needs no fitting"
    )


def _warn_equal_unlinked(model, gamma: np.ndarray, proba: np.ndarray, all_pairs: int) -> None:
    """Warn when candidate pairs equal on every field, more of them than chance explains
    (the sure-pattern test of :meth:`~pearl.tables.fellegi_sunter.FellegiSunter.
    fit_m_from_agreement`), score below 0.5: the model has then taken another class of
    pairs for the matches, and links go missing."""
    top = np.array([n - 1 for n in model.n_levels])
    equal = np.all(gamma == top, axis=1) if len(top) > 1 else np.zeros(len(gamma), bool)
    lost = int((equal & (proba < 0.5)).sum())
    if not lost:
        return
    every_field = np.ones(len(top), dtype=bool)
    if model._patterns_above_chance(gamma[equal], every_field, all_pairs).all():
        warn_user(
            f"record linkage: {lost:,} of {int(equal.sum()):,} candidate pairs equal on every "
            "field score below 0.5 (far more such pairs than chance explains): the fitted "
            "model may have missed the matches; check the report's match weights or give "
            "known_matches="
        )


def _check_known(known_gamma: np.ndarray, random_gamma: np.ndarray, n_levels) -> None:
    """Warn when the ``known_matches`` agree on their fields (the top two levels) hardly
    more often than random pairs do: labels given as (right, left), or positions for index
    labels, taught ``m`` that matches look like strangers (a third of partners linked)."""

    def close_share(gamma: np.ndarray) -> float:
        live = gamma >= 0
        return float(((gamma >= np.asarray(n_levels) - 2) & live).sum() / max(live.sum(), 1))

    known, chance = close_share(known_gamma), close_share(random_gamma)
    if known < chance + 0.25 * (1 - chance):
        warn_user(
            f"known_matches: the labelled pairs agree on {known:.0%} of their fields, "
            f"random pairs of rows on {chance:.0%}: are they (left, right) pairs of index "
            "labels (positions for polars and pyarrow tables)?",
        )


def _best(pairs: np.ndarray, proba: np.ndarray, n_left: int, top_k: int):
    """Each left row's ``top_k`` candidates by probability (ties to the lower right id)."""
    ids = np.full((n_left, top_k), -1, dtype=np.int64)
    scores = np.full((n_left, top_k), -np.inf, dtype=np.float32)
    order = np.lexsort((pairs[:, 1], -proba, pairs[:, 0])) if len(pairs) else np.zeros(0, int)
    rows = pairs[order, 0]
    starts = np.searchsorted(rows, np.arange(n_left))
    rank = np.arange(len(rows)) - starts[rows] if len(rows) else np.zeros(0, int)
    keep = rank < top_k
    ids[rows[keep], rank[keep]] = pairs[order, 1][keep]
    scores[rows[keep], rank[keep]] = proba[order][keep]
    return ids, scores


def cluster_records(
    table: pd.DataFrame,
    *,
    encoder,
    scorer,
    threshold: float,
    top_k: int = 5,
    random_pairs: int = 50_000,
    seed: int = 0,
) -> np.ndarray:
    """Cluster labels of the rows of ``table`` (all its columns compared, as in
    :func:`link_tables`): each row is linked to its candidate rows, the links weighted by
    the Fellegi-Sunter match probability, then average linkage over that graph at
    ``threshold``. Rows whose every field is missing get -1."""
    from pearl.tables.linkage import graph_average_linkage

    table = table.reset_index(drop=True)
    n, cols = len(table), list(table.columns)
    kinds, fields = _compared_fields(table, table, cols, cols, encoder, scorer)
    rng = np.random.default_rng(seed)
    rand = rng.integers(0, max(n, 1), size=(random_pairs if n > 1 else 0, 2))
    rand = rand[rand[:, 0] != rand[:, 1]]
    # no term-frequency adjustment within one table: a value's share there counts the row
    # itself; with the row left out ((count - 1) / (n - 1)) it was tried on synthetic
    # tables and mixed (stacked people, first name + surname + city, 2,000 rows: F1 0.83
    # -> 0.86; companies, name + city, 20,000 rows: 0.62 -> 0, every repeated name weak)
    fit = functools.partial(
        _probabilities,
        fields,
        kinds,
        random_gamma=_levels(fields, rand[:, 0], rand[:, 1]),
        equal=equal_chances(fields, kinds, one_table=True),
        names=[str(c) for c in cols],
        term_frequency=False,
    )
    pairs, _ = _blocked_pairs(
        fields, (n, n), encoder, top_k + 1, fit, seed=seed, check=True, one_table=True
    )
    pairs = np.unique(np.sort(_other_rows(pairs), axis=1), axis=0)
    proba, _ = fit(pairs, n_left=n)
    labels = graph_average_linkage(n, pairs[:, 0], pairs[:, 1], proba, threshold)
    if fields:
        labels[_empty_rows(fields, "left")] = -1
    return labels
