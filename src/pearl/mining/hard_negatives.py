"""Hard-negative mining: candidates of small edit distance (blocked, vectorised with
rapidfuzz), encoded by the backbone, and those of low cosine kept."""

from __future__ import annotations

import csv
import time
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from pearl._io import atomic_tsv

__all__ = ["edit_candidates", "mine_hard_negatives", "read_hard_negatives"]


def _blocks(keys: list[str], block_size: int) -> list[np.ndarray]:
    """Indices sorted by key, cut into windows of ``block_size`` that overlap by half, so
    neighbours in key order always share a window."""
    order = np.argsort(np.array(keys, dtype=object), kind="stable")
    if len(order) <= block_size:
        return [order]
    step = max(1, block_size // 2)
    return [order[s : s + block_size] for s in range(0, len(order) - step, step)]


def edit_candidates(
    phrases: list[str],
    min_ratio: float = 80.0,
    block_size: int = 2000,
    show_progress_bar: bool = True,
) -> dict[tuple[int, int], float]:
    """Pairs of phrases with a high normalised edit similarity (rapidfuzz ``ratio``).

    Phrases are blocked twice: sorted by their lower-cased text and by its reverse (so
    that edits at either end are caught), and compared all-against-all only inside
    windows of ``block_size`` with :func:`rapidfuzz.process.cdist`. No Python loop over
    pairs.

    Returns
    -------
    dict (i, j) -> ratio, with i < j
    """
    from pearl._extras import require

    rapidfuzz = require("rapidfuzz.process", "mining lexical neighbours")
    process, fuzz = rapidfuzz, require("rapidfuzz.fuzz", "mining lexical neighbours")

    low = [p.lower() for p in phrases]
    pairs: dict[tuple[int, int], float] = {}
    windows = _blocks(low, block_size) + _blocks([s[::-1] for s in low], block_size)
    for win in tqdm(windows, desc="edit-distance blocks", disable=not show_progress_bar):
        texts = [low[i] for i in win]
        m = process.cdist(
            texts, texts, scorer=fuzz.ratio, score_cutoff=min_ratio, workers=-1, dtype=np.uint8
        )
        a, b = np.nonzero(np.triu(m, k=1))
        for x, y, r in zip(win[a], win[b], m[a, b], strict=True):
            if low[x] != low[y]:
                key = (int(min(x, y)), int(max(x, y)))
                pairs[key] = float(r)
    return pairs


def mine_hard_negatives(
    phrases: list[str],
    encoder,
    out_path: str | Path | None = None,
    min_ratio: float = 80.0,
    max_cosine: float = 0.6,
    top_k: int = 5,
    block_size: int = 2000,
    batch_size: int = 64,
    show_progress_bar: bool = True,
    cache=None,
) -> dict:
    """Hard negatives for each phrase.

    Parameters
    ----------
    phrases : list of str
    encoder : Encoder
        The backbone (its cosine decides what "far in meaning" is).
    out_path : path-like, optional
        Write ``phrase<TAB>negative<TAB>edit_ratio<TAB>cosine`` rows, sorted.
    min_ratio : float, default=80
        Minimum rapidfuzz ratio (0-100) of a candidate: small edit distance.
    max_cosine : float, default=0.6
        Candidates with a cosine below this are kept as hard negatives.
    top_k : int, default=5
        Negatives kept per phrase (most similar surface first).
    cache : EmbeddingCache, optional
        Reuse embeddings already computed for ``encoder`` (e.g. by paraphrase mining).

    Returns
    -------
    dict with ``negatives`` (phrase -> list of negatives) and timing/count statistics.
    """
    from pearl.encoders.base import normalize_rows
    from pearl.encoders.cache import EmbeddingCache

    phrases = list(dict.fromkeys(phrases))
    t0 = time.perf_counter()
    cands = edit_candidates(phrases, min_ratio, block_size, show_progress_bar)
    t_block = time.perf_counter() - t0
    idx = np.array(sorted(cands), dtype=np.int64).reshape(-1, 2)
    involved = np.unique(idx)
    t1 = time.perf_counter()
    cache = cache or EmbeddingCache(encoder, persist=False, batch_size=batch_size)
    emb = normalize_rows(cache([phrases[i] for i in involved], show_progress_bar=show_progress_bar))
    t_enc = time.perf_counter() - t1
    pos = {int(i): r for r, i in enumerate(involved)}
    if len(idx):
        ea = emb[[pos[i] for i in idx[:, 0]]]
        eb = emb[[pos[i] for i in idx[:, 1]]]
        cos = (ea * eb).sum(axis=1)
    else:
        cos = np.zeros(0, dtype=np.float32)
    negatives: dict[str, list[tuple[str, float, float]]] = {}
    for (i, j), c in zip(idx.tolist(), cos.tolist(), strict=True):
        if c < max_cosine:
            r = cands[(i, j)]
            negatives.setdefault(phrases[i], []).append((phrases[j], r, c))
            negatives.setdefault(phrases[j], []).append((phrases[i], r, c))
    for p in negatives:
        # cosines are compared as written (4 decimals), so float noise from a different
        # batch composition of the encoder does not reorder the output
        negatives[p] = sorted(negatives[p], key=lambda t: (-t[1], round(t[2], 4), t[0]))[:top_k]
    if out_path is not None:
        with atomic_tsv(out_path, ["phrase", "negative", "edit_ratio", "cosine"]) as w:
            for p in sorted(negatives):
                for n, r, c in negatives[p]:
                    w.writerow([p, n, f"{r:.0f}", f"{c:.4f}"])
    return {
        "negatives": {p: [n for n, _, _ in v] for p, v in negatives.items()},
        "phrases": len(phrases),
        "candidate_pairs": len(idx),
        "phrases_with_negatives": len(negatives),
        "blocking_seconds": t_block,
        "encoding_seconds": t_enc,
        "encoded_phrases": int(len(involved)),
        "total_seconds": time.perf_counter() - t0,
    }


def read_hard_negatives(path: str | Path) -> dict[str, list[str]]:
    """Read a hard-negatives TSV back: phrase -> its negatives, in file order."""
    out: dict[str, list[str]] = {}
    with open(path, encoding="utf-8", newline="") as f:
        rows = csv.reader(f, delimiter="\t")
        next(rows, None)
        for r in rows:
            if len(r) >= 2:
                out.setdefault(r[0], []).append(r[1])
    return out
