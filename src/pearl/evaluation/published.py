"""Scores published in the PEARL paper (Chen et al., 2024), Tables 1 and 2.

These are the paper's numbers, not measurements of pearl. YAGO and UMLS were
computed on the paper's own dictionaries (572K / 750K names), which are not
public, so they are not comparable with pearl's stand-in YAGO*/UMLS* columns.
"""

from __future__ import annotations

__all__ = ["PUBLISHED_PHRASE", "PUBLISHED_SHORT_TEXT", "PUBLISHED_SIZE"]

_KEYS = ["ppdb", "ppdb_filtered", "turney", "bird", "yago", "umls", "conll2003", "bc5cdr", "autofj"]


def _row(*values):
    return {k: v for k, v in zip(_KEYS, values, strict=True) if v is not None}


#: Table 1 (phrase tasks), in percent.
PUBLISHED_PHRASE: dict[str, dict[str, float]] = {
    "String Distance": _row(None, None, None, None, None, None, None, None, 64.7),
    "GloVe": _row(95.5, 50.6, 31.5, 53.1, 20.9, 18.8, 21.2, 7.8, 50.6),
    "Phrase-BERT": _row(96.8, 68.7, 57.2, 68.8, 23.7, 26.1, 35.4, 59.5, 66.9),
    "E5-small": _row(96.0, 56.8, 55.9, 63.1, 43.3, 42.0, 27.6, 53.7, 74.8),
    "E5-base": _row(95.4, 65.6, 59.4, 66.3, 47.3, 44.0, 32.0, 69.3, 76.1),
    "PEARL-small": _row(97.2, 69.2, 56.1, 69.7, 48.1, 43.4, 48.7, 61.0, 74.6),
    "PEARL-base": _row(97.1, 72.7, 60.9, 72.3, 50.2, 43.6, 40.9, 69.5, 76.3),
}

#: Table 2 (short-text classification), mean and std in percent.
PUBLISHED_SHORT_TEXT: dict[str, dict[str, tuple[float, float]]] = {
    "Phrase-BERT": {
        "twitter_s": (71.9, 0.1),
        "twitter_l": (77.0, 0.2),
        "atis_s": (50.6, 1.4),
        "atis_l": (79.5, 2.7),
    },
    "E5-small": {
        "twitter_s": (70.7, 0.4),
        "twitter_l": (78.1, 1.2),
        "atis_s": (92.7, 0.0),
        "atis_l": (94.1, 0.1),
    },
    "E5-base": {
        "twitter_s": (72.4, 0.2),
        "twitter_l": (79.5, 0.4),
        "atis_s": (93.0, 0.6),
        "atis_l": (96.2, 0.3),
    },
    "PEARL-small": {
        "twitter_s": (72.8, 0.2),
        "twitter_l": (78.5, 0.5),
        "atis_s": (93.7, 0.5),
        "atis_l": (96.7, 0.1),
    },
    "PEARL-base": {
        "twitter_s": (73.7, 0.3),
        "twitter_l": (77.1, 0.1),
        "atis_s": (93.2, 0.7),
        "atis_l": (97.4, 0.1),
    },
}

PUBLISHED_SIZE = {
    "String Distance": "-",
    "GloVe": "-",
    "Phrase-BERT": "110M",
    "E5-small": "34M",
    "E5-base": "110M",
    "PEARL-small": "40M",
    "PEARL-base": "116M",
}
