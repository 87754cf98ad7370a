"""pearl's WordNet reader (``pearl.data.lexicon``) against NLTK's, on the same database.

Issue 53 asks whether pearl's own parser of WordNet's ``data.<pos>`` files, which feeds the
corpus its list phrases, should give way to NLTK's reader. This reads every lemma of every
synset both ways, with the same typing rule (:func:`pearl.data.lexicon
.wordnet_entity_type` on the synset's lexicographer file and hypernym closure), and
compares the multisets of ``(lemma, lexical class, entity type)`` and the wall time (NLTK's
includes ``pearl.augment.wordnet.load_wordnet``, which copies the database into the
layout NLTK 3.9 accepts, once per content). Writes
results/benchmarks/wordnet_reader.{json,md}.

    python benchmarks/data/wordnet_reader.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from pearl_lab import data_root

from pearl.augment.wordnet import load_wordnet
from pearl.data.lexicon import iter_wordnet_lemmas, wordnet_entity_type

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"
POS = (("n", "NP"), ("v", "VP"), ("a", "ADJP"), ("r", "ADVP"))


def nltk_lemmas(wordnet_dir: Path):
    """The same triples as ``iter_wordnet_lemmas``, read through NLTK's reader."""
    wn = load_wordnet(str(wordnet_dir))
    for pos, lex in POS:
        for syn in wn.all_synsets(pos):
            instance = bool(syn.instance_hypernyms())
            words = [lemma.name() for lemma in syn.lemmas()]
            ent = None
            if pos == "n" and (instance or any(w[:1].isupper() for w in words)):
                up = syn.closure(lambda s: s.hypernyms() + s.instance_hypernyms())
                ent = wordnet_entity_type(syn.lexname(), {s.offset() for s in up}, instance)
            for word in words:
                lemma = word.replace("_", " ")
                if any(c.isalpha() for c in lemma):
                    yield lemma, lex, ent if instance or lemma[:1].isupper() else None


def timed(fn) -> tuple[Counter, float]:
    t = time.perf_counter()
    out = Counter(fn())
    return out, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=data_root())
    args = ap.parse_args()
    folder = args.data / "lexicon" / "wordnet"
    ours, ours_s = timed(lambda: iter_wordnet_lemmas(folder))
    load_wordnet.cache_clear()
    theirs, theirs_s = timed(lambda: nltk_lemmas(folder))
    only_ours, only_theirs = ours - theirs, theirs - ours
    record = {
        "command": "python benchmarks/data/wordnet_reader.py",
        "lemmas": sum(ours.values()),
        "pearl_seconds": round(ours_s, 2),
        "nltk_seconds": round(theirs_s, 2),
        "only_pearl": sum(only_ours.values()),
        "only_nltk": sum(only_theirs.values()),
        "examples_only_pearl": [list(k) for k in list(only_ours)[:10]],
        "examples_only_nltk": [list(k) for k in list(only_theirs)[:10]],
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "wordnet_reader.json").write_text(json.dumps(record, indent=2) + "\n")
    lines = [
        "# WordNet lemmas: pearl's reader against NLTK's",
        "",
        f"`{record['command']}`: every (lemma, lexical class, entity type) of every synset "
        "of the four parts of speech, typed by the same rule.",
        "",
        "| reader | lemmas | seconds | not in the other |",
        "|---|---:|---:|---:|",
        f"| pearl.data.lexicon | {sum(ours.values()):,} | {ours_s:.2f} | "
        f"{record['only_pearl']:,} |",
        f"| NLTK WordNetCorpusReader | {sum(theirs.values()):,} | {theirs_s:.2f} | "
        f"{record['only_nltk']:,} |",
    ]
    if only_ours or only_theirs:
        lines += ["", f"Only pearl: {record['examples_only_pearl']}"]
        lines += [f"Only NLTK: {record['examples_only_nltk']}"]
    (OUT / "wordnet_reader.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
