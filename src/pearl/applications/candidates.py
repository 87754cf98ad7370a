"""The candidate rule and scoring of the matching tools: for each query, the best
reference rows by embedding cosine (exact, in blocks) or by the combined match
probability, merged across reference chunks."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from pearl.applications.encoding import get_cache
from pearl.encoders.base import normalize_rows

__all__ = ["match_strings", "combined_top_k", "top_k_of", "keep_top", "merge_top_k"]


def merge_top_k(
    best_i: np.ndarray, best_s: np.ndarray, cand_i: np.ndarray, cand_s: np.ndarray, top_k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Merge two top-k lists row by row: higher score first, and on equal scores the
    lower reference id (the earlier reference row), so that the result does not depend
    on how the references were split into chunks or shards."""
    all_s = np.concatenate([best_s, cand_s], axis=1)
    all_i = np.concatenate([best_i, cand_i], axis=1)
    order = np.lexsort((np.where(all_i < 0, np.iinfo(np.int64).max, all_i), -all_s), axis=1)[
        :, :top_k
    ]
    return np.take_along_axis(all_i, order, 1), np.take_along_axis(all_s, order, 1)


def _block_rows(n_ref: int, cap: int, cells: int = 1 << 24) -> int:
    """Query rows per block, so that a block of similarities holds about ``cells`` floats
    (64 MB): small blocks are reused instead of page-faulting gigabytes in and out."""
    return max(1, min(cap, cells // max(n_ref, 1)))


def top_k_of(
    q: np.ndarray, r: np.ndarray, ids: np.ndarray, top_k: int, block: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-k cosine of unit query rows ``q`` against unit reference rows ``r``.

    Parameters
    ----------
    q, r : ndarray of float32, unit rows
    ids : ndarray of int64, shape (len(r),)
        The id reported for each reference row (its position in the whole reference
        table, increasing).
    top_k : int

    Returns
    -------
    ids : ndarray of int64, shape (len(q), min(top_k, len(r)))
    scores : ndarray of float32, the same shape
    """
    kk = min(top_k, len(r))  # no room is set aside for answers that cannot exist
    best_s = np.full((len(q), kk), -np.inf, dtype=np.float32)
    best_i = np.full((len(q), kk), -1, dtype=np.int64)
    if not len(r) or not len(q):
        return best_i, best_s
    block = block or _block_rows(len(r), 4096)
    buf = np.empty((min(block, len(q)), len(r)), dtype=np.float32)
    for s in range(0, len(q), block):
        qb = q[s : s + block]
        sims = buf[: len(qb)]
        np.matmul(qb, r.T, out=sims)
        if kk == 1:  # argmax keeps the first (lowest id) of equal scores, as the merge does
            j = sims.argmax(axis=1)[:, None]
        else:
            j = np.argpartition(-sims, kk - 1, axis=1)[:, :kk]
        best_i[s : s + block], best_s[s : s + block] = merge_top_k(
            best_i[s : s + block], best_s[s : s + block], ids[j], np.take_along_axis(sims, j, 1), kk
        )
    return best_i, best_s


def match_strings(
    queries: list[str],
    chunks: Iterable[list[str]],
    encoder,
    *,
    top_k: int = 1,
    batch_size: int = 64,
    block: int | None = None,
    scorer=None,
    candidates: int = 10,
    idf_texts: list[str] | None = None,
):
    """Running top-k of each query over a stream of reference chunks.

    Only one chunk of reference embeddings is held at a time, so the reference side can
    be larger than memory. With a ``scorer`` (a
    :class:`~pearl.applications.matcher.MatchScorer`), each chunk is searched by
    :func:`combined_top_k` instead of the exact cosine: the n-gram weights (IDF) are
    learned from ``idf_texts`` (the reference keys when known) or else from the queries.

    Returns
    -------
    ids : ndarray of int64, shape (n_queries, top_k); positions in the concatenated
        reference stream, -1 where fewer than top_k references exist
    scores : ndarray of float32, shape (n_queries, top_k); cosines, or match
        probabilities with a scorer; -inf where no match
    """
    cache = get_cache(encoder, batch_size)
    n = len(queries)
    q = (
        normalize_rows(cache(queries, show_progress_bar=n > 8192))
        if queries
        else np.zeros((0, 1), np.float32)
    )
    if scorer is not None:
        from pearl.applications.ngrams import NgramVectorizer

        ngrams = NgramVectorizer().fit(idf_texts if idf_texts else queries)
        q_ng = ngrams.transform(queries) if n else None
    width = scorer.width(top_k) if scorer is not None else top_k  # + a runner-up
    # the lists grow with the references seen, up to ``width``: a huge top_k costs no
    # memory beyond the reference table's size
    best_s = np.zeros((n, 0), dtype=np.float32)
    best_i = np.zeros((n, 0), dtype=np.int64)
    offset = 0
    for chunk in chunks:
        if not chunk:
            continue
        r = _reference_vectors(chunk, encoder, batch_size)
        if n:
            ids = np.arange(offset, offset + len(chunk), dtype=np.int64)
            if scorer is None:
                ci, cs = top_k_of(q, r, ids, top_k, block)
            else:
                ci, cs = combined_top_k(
                    q, q_ng, r, ngrams.transform(chunk), ids, scorer, width, candidates, block
                )
            best_i, best_s = merge_top_k(best_i, best_s, ci, cs, width)
        offset += len(chunk)
    if scorer is not None:
        best_i, best_s = keep_top(scorer, best_i, best_s, top_k)
    return best_i, best_s


def _reference_vectors(chunk: list[str], encoder, batch_size: int) -> np.ndarray:
    """Unit embeddings of a reference chunk, each distinct string encoded once (a right
    table often repeats its keys). Not through the process cache: a streamed reference may
    be larger than memory."""
    position: dict[str, int] = {}
    inverse = np.fromiter(
        (position.setdefault(t, len(position)) for t in chunk), dtype=np.int64, count=len(chunk)
    )
    uniq = list(position)
    vecs = encoder.encode(uniq, batch_size=batch_size, show_progress_bar=len(uniq) > 8192)
    vecs = normalize_rows(vecs)
    return vecs if len(uniq) == len(chunk) else vecs[inverse]


def keep_top(scorer, ids: np.ndarray, raw: np.ndarray, top_k: int) -> tuple[np.ndarray, np.ndarray]:
    """``scorer.keep_top`` of ranked candidate lists of any width (a list narrower than
    the scorer's width, because fewer references exist, is padded to the runner-up column
    its probabilities read)."""
    real = ids.shape[1]
    pad = max(0, min(scorer.width(top_k), 2) - real)
    ids = np.pad(ids, ((0, 0), (0, pad)), constant_values=-1)
    raw = np.pad(raw, ((0, 0), (0, pad)), constant_values=-np.inf)
    ids, probs = scorer.keep_top(ids, raw, top_k)
    width = min(top_k, real)
    return ids[:, :width], probs[:, :width]


def combined_top_k(
    q: np.ndarray,
    q_ng,
    r: np.ndarray,
    r_ng,
    ids: np.ndarray,
    scorer,
    top_k: int,
    candidates: int = 10,
    block: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Top-k references of each query by combined match probability, among the
    ``candidates`` nearest by embedding cosine and the ``candidates`` nearest by n-gram
    cosine (unit embeddings ``q``, ``r``; unit n-gram rows ``q_ng``, ``r_ng``; reference
    ids ``ids``, increasing). The scores are the scorer's raw (uncalibrated) scores, which
    rank without ties; ``scorer.calibrated`` turns them into probabilities."""
    top_k = min(top_k, len(r))
    best_s = np.full((len(q), top_k), -np.inf, dtype=np.float32)
    best_i = np.full((len(q), top_k), -1, dtype=np.int64)
    if not len(r):
        return best_i, best_s
    c = min(candidates, len(r))
    block = block or _block_rows(len(r), 1024, 1 << 23)
    for s in range(0, len(q), block):
        emb = q[s : s + block] @ r.T
        ng = (q_ng[s : s + block] @ r_ng.T).toarray()
        cand = np.concatenate(
            [
                np.argpartition(-emb, c - 1, axis=1)[:, :c],
                np.argpartition(-ng, c - 1, axis=1)[:, :c],
            ],
            axis=1,
        )
        cand.sort(axis=1)
        prob = scorer.score(np.take_along_axis(emb, cand, 1), np.take_along_axis(ng, cand, 1))
        prob[:, 1:][cand[:, 1:] == cand[:, :-1]] = -np.inf  # each candidate once
        best_i[s : s + block], best_s[s : s + block] = merge_top_k(
            best_i[s : s + block], best_s[s : s + block], ids[cand], prob, top_k
        )
    return best_i, best_s
