"""Lexical diversity of a model's nearest-neighbour space (Phrase-BERT, section 5.3).

For sampled query phrases, the top-k nearest neighbours (by cosine, the query itself
excluded) are taken from a vocabulary of phrases, and three measures say how much they
differ from the query in form: a space whose neighbours only re-use the query's words adds
little for corpus exploration.

* ``new_tokens``: per neighbour, the number of its distinct words absent from the query,
  divided by the query's number of words; averaged (higher = more diverse).
* ``lcs_precision``: per neighbour, the length of the longest common substring of query
  and neighbour divided by the neighbour's length, in percent; averaged (lower = more
  diverse).
* ``levenshtein``: the mean edit distance between query and neighbour (higher = more
  diverse).
"""

from __future__ import annotations

import numpy as np

from pearl._extras import require
from pearl.encoders.base import normalize_rows

__all__ = ["lexical_diversity", "longest_common_substring"]


def longest_common_substring(a: str, b: str) -> int:
    """Length of the longest common substring (contiguous characters) of ``a`` and ``b``
    (the standard library's ``difflib``, without its junk heuristic, which would skip
    frequent characters)."""
    from difflib import SequenceMatcher

    return SequenceMatcher(None, a, b, autojunk=False).find_longest_match().size


def lexical_diversity(
    encoder, vocabulary: list[str], queries: list[str], top_k: int = 10, batch_size: int = 256
) -> dict[str, float]:
    """The three measures (module docstring) over the ``top_k`` nearest neighbours of each query
    in ``vocabulary``.

    Returns
    -------
    dict
        ``new_tokens``, ``lcs_precision``, ``levenshtein``, ``queries``, ``top_k``.
    """
    levenshtein = require("rapidfuzz.distance", "lexical diversity").Levenshtein.distance
    vocab = list(dict.fromkeys(vocabulary))
    if len(vocab) <= top_k:
        raise ValueError(f"the vocabulary needs more than top_k={top_k} distinct phrases")
    v = normalize_rows(encoder.encode(vocab, batch_size=batch_size))
    q = normalize_rows(encoder.encode(list(queries), batch_size=batch_size))
    new, lcs, lev = [], [], []
    for s in range(0, len(q), 1024):
        sims = q[s : s + 1024] @ v.T
        part = np.argpartition(-sims, top_k, axis=1)[:, : top_k + 1]
        order = np.argsort(-np.take_along_axis(sims, part, 1), axis=1)
        top = np.take_along_axis(part, order, 1)
        for row, query in zip(top, queries[s : s + 1024], strict=False):
            neighbours = [vocab[j] for j in row if vocab[j] != query][:top_k]
            q_tokens = set(query.lower().split())
            for n in neighbours:
                n_tokens = set(n.lower().split())
                new.append(len(n_tokens - q_tokens) / max(len(q_tokens), 1))
                lcs.append(
                    100 * longest_common_substring(query.lower(), n.lower()) / max(len(n), 1)
                )
                lev.append(levenshtein(query.lower(), n.lower()))
    return {
        "new_tokens": float(np.mean(new)),
        "lcs_precision": float(np.mean(lcs)),
        "levenshtein": float(np.mean(lev)),
        "queries": len(queries),
        "top_k": top_k,
    }
