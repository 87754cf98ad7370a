"""How well the dependency-derived lexical tags agree with gold chunks and constituents.

* CoNLL-2000 (``conll2000.zip``, WSJ with gold chunk tags): exact-span precision and
  recall per class of our phrases against the gold chunks. CoNLL tags only the
  preposition as PP, so a gold PP here is the PP chunk plus the NP chunk that follows.
* Penn Treebank sample (``treebank.zip``, ``combined/*.mrg``): precision and recall
  against every constituent of the same label (function tags stripped, traces removed).
  Our phrases are base chunks, so recall against full, nested constituents is low by
  construction; precision says how often a phrase we emit is a real constituent.

Tokens are taken from the gold files, so spans align exactly.
"""

from __future__ import annotations

import re
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

from pearl._extras import require
from pearl._io import read_zip_member
from pearl.data.labels import LEXICAL_CLASSES
from pearl.data.phrases import extract_spans

__all__ = ["conll2000_gold", "treebank_gold", "score_spans", "measure_agreement"]


def _parse(nlp, words: list[str]):
    doc = require("spacy.tokens", "chunk agreement").Doc(nlp.vocab, words=words)
    for _, proc in nlp.pipeline:
        doc = proc(doc)
    return doc


def conll2000_gold(zip_path: str | Path, part: str = "test"):
    """Sentences as (words, gold spans) from CoNLL-2000 chunk tags."""
    with zipfile.ZipFile(zip_path) as z:
        text = read_zip_member(z, f"conll2000/{part}.txt").decode("utf-8")
    for block in text.strip().split("\n\n"):
        rows = [line.split() for line in block.splitlines() if line.strip()]
        words = [r[0] for r in rows]
        chunks: list = []
        cur: Any = None
        for i, (_, _, tag) in enumerate(rows):
            if tag.startswith("B-") or tag == "O" or (cur and tag[2:] != cur[2]):
                if cur:
                    chunks.append(tuple(cur))
                cur = [i, i + 1, tag[2:]] if tag != "O" else None
            else:
                cur[1] = i + 1
        if cur:
            chunks.append(tuple(cur))
        gold = set()
        for k, (s, e, lab) in enumerate(chunks):
            if lab == "PP":
                if k + 1 < len(chunks) and chunks[k + 1][0] == e and chunks[k + 1][2] == "NP":
                    gold.add((s, chunks[k + 1][1], "PP"))
            elif lab in LEXICAL_CLASSES:
                gold.add((s, e, lab))
        yield words, gold


def _walk(t, words: list[str], gold: set) -> tuple[int, int] | None:
    """Collect the leaves (traces dropped) and the labelled constituent spans of a tree."""
    if isinstance(t, str) or t.label() == "-NONE-":
        return None
    if len(t) == 1 and isinstance(t[0], str):
        words.append(t[0])
        return len(words) - 1, len(words)
    spans = [s for s in (_walk(c, words, gold) for c in t) if s]
    if not spans:
        return None
    start, end = spans[0][0], spans[-1][1]
    label = re.split(r"[-=]", t.label())[0]
    if label in LEXICAL_CLASSES:
        gold.add((start, end, label))
    return start, end


def treebank_gold(zip_path: str | Path):
    """Sentences as (words, gold constituent spans) from the Treebank sample."""
    nltk = require("nltk", "reading the Treebank")

    with zipfile.ZipFile(zip_path) as z:
        names = sorted(n for n in z.namelist() if n.endswith(".mrg"))
        for name in names:
            text = read_zip_member(z, name).decode("utf-8")
            for chunk in re.split(r"\n(?=\( ?\()", text.strip()):
                chunk = chunk.strip()
                if not chunk:
                    continue
                tree = nltk.Tree.fromstring(chunk)
                words: list[str] = []
                gold: set[tuple[int, int, str]] = set()
                _walk(tree, words, gold)
                if words:
                    yield words, gold


def score_spans(pairs) -> dict[str, dict[str, float]]:
    """Exact-match precision/recall/F1 per class over (predicted, gold) span sets."""
    tp: Counter[str] = Counter()
    n_pred: Counter[str] = Counter()
    n_gold: Counter[str] = Counter()
    for pred, gold in pairs:
        for s in pred:
            n_pred[s[2]] += 1
        for s in gold:
            n_gold[s[2]] += 1
        for s in pred & gold:
            tp[s[2]] += 1
    out = {}
    for lab in LEXICAL_CLASSES:
        p = tp[lab] / n_pred[lab] if n_pred[lab] else 0.0
        r = tp[lab] / n_gold[lab] if n_gold[lab] else 0.0
        out[lab] = {
            "precision": p,
            "recall": r,
            "f1": 2 * p * r / (p + r) if p + r else 0.0,
            "predicted": n_pred[lab],
            "gold": n_gold[lab],
        }
    return out


def measure_agreement(nltk_dir: str | Path, nlp=None) -> dict[str, dict]:
    """Agreement on CoNLL-2000 (test part) and on the Treebank sample."""
    from pearl.data.corpus import load_spacy

    nlp = nlp or load_spacy()
    nltk_dir = Path(nltk_dir)
    result = {}
    for name, gold_iter in (
        ("conll2000", conll2000_gold(nltk_dir / "conll2000.zip")),
        ("treebank", treebank_gold(nltk_dir / "treebank.zip")),
    ):
        pairs = []
        for words, gold in gold_iter:
            doc = _parse(nlp, words)
            pairs.append((set(extract_spans(doc)), gold))
        result[name] = {"sentences": len(pairs), "classes": score_spans(pairs)}
    return result
