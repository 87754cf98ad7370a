"""Tiny training files (corpus, augmented views, hard negatives) for training tests."""

from __future__ import annotations

from pathlib import Path

import pytest

PHRASES = [
    ("The New York Times", "NP-ORG", "The New York Timse", "char_swap", "New York Post"),
    ("New York", "NP-GPE", "New Yrok", "char_swap", "New Jersey"),
    ("Albert Einstein", "NP-PERSON", "Albert Einstien", "char_swap", "Albert Camus"),
    ("23 February 2008", "NP-DATE", "23 Feb 2008", "acronym", "23 February 2009"),
    ("adult male", "NP-OTHER", "grown man", "wordnet_paraphrase", "adult female"),
    ("more than 63kg", "NP-QUANTITY", "over 63kg", "wordnet_synonym", "less than 63kg"),
    ("run quickly", "VP-OTHER", "quickly run", "token_swap", "run slowly"),
    ("in the morning", "PP-TIME", "in the mornin", "char_drop", "in the evening"),
    ("very happy", "ADJP-OTHER", "very glad", "glove_synonym", "very sad"),
    ("Paris", "NP-GPE", "Pairs", "keyboard_typo", "Parish"),
    ("black pant men", "NP-OTHER", "black pants for men", "mined_paraphrase", "black men"),
    ("2024 Summer Olympics", "NP-EVENT", "2024 Sumer Olympics", "char_drop",
     "2024 Winter Olympics"),
]


def write_training_files(folder: Path) -> dict[str, str]:
    folder.mkdir(parents=True, exist_ok=True)
    corpus, aug, neg = folder / "corpus.tsv", folder / "augmented.tsv", folder / "neg.tsv"
    corpus.write_text("phrase\tlabel\tfrequency\tsource\n" + "".join(
        f"{p}\t{lab}\t1\ttest\n" for p, lab, *_ in PHRASES), encoding="utf-8")
    aug.write_text("phrase\tpositive\taugmenter\n" + "".join(
        f"{p}\t{pos}\t{a}\n" for p, _, pos, a, _ in PHRASES), encoding="utf-8")
    neg.write_text("phrase\tnegative\tedit_ratio\tcosine\n" + "".join(
        f"{p}\t{n}\t80\t0.3\n" for p, *_, n in PHRASES), encoding="utf-8")
    return {"corpus": str(corpus), "augmented": str(aug), "negatives": str(neg)}


@pytest.fixture
def training_files(tmp_path) -> dict[str, str]:
    return write_training_files(tmp_path / "data")
