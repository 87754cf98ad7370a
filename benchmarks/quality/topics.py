"""Phrase-based topics (PNTM) against scikit-learn's LDA on the same documents.

Documents: the ABC news stories of the shared corpus (``corpus/nltk/abc.zip``, rural and
science; blocks between empty lines of at least --min-words words). PNTM: pearl's
``PhraseTopicModel`` for each --model, described by the documents' frequent words and
phrases (``document_vocabulary``); LDA: ``LatentDirichletAllocation`` on the unigram
counts of the same documents (English stopwords removed, the same min_df), described by
its top-weighted words. Both with --topics topics and seed 0. Measures, over the same
documents: NPMI coherence of each topic's top 10 terms (document co-occurrence; a pair
that never co-occurs counts -1; a phrase occurs where its words occur in sequence) and the
share of multi-word terms among the top terms. Writes results/benchmarks/topics.{md,json}.

    python benchmarks/quality/topics.py -m all-MiniLM-L6-v2 -m pearl-minilm
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import time
import zipfile
from pathlib import Path

import numpy as np
from pearl_lab import data_root
from sklearn.decomposition import LatentDirichletAllocation
from sklearn.feature_extraction.text import CountVectorizer

from pearl.tables.topics import PhraseTopicModel, document_vocabulary

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"
WORD = r"\w[\w'-]*"


def abc_documents(data: Path, min_words: int) -> list[str]:
    docs = []
    with zipfile.ZipFile(data / "corpus" / "nltk" / "abc.zip") as z:
        for name in ("abc/rural.txt", "abc/science.txt"):
            text = z.read(name).decode("latin-1")
            docs += [" ".join(b.split()) for b in re.split(r"\n\s*\n", text)]
    return [d for d in docs if len(d.split()) >= min_words]


def npmi(topics: list[list[str]], docs: list[str]) -> list[float]:
    """Mean NPMI over the term pairs of each topic, from document co-occurrence."""
    terms = sorted({t for topic in topics for t in topic})
    vec = CountVectorizer(
        vocabulary=terms, ngram_range=(1, 3), token_pattern=WORD, lowercase=True, binary=True
    )
    present = (vec.fit_transform(docs) > 0).tocsc()
    col = {t: i for i, t in enumerate(vec.get_feature_names_out())}
    n = len(docs)
    out = []
    for topic in topics:
        vals = []
        for a, b in itertools.combinations(topic, 2):
            ia, ib = present[:, col[a]], present[:, col[b]]
            pa, pb = ia.sum() / n, ib.sum() / n
            pab = ia.multiply(ib).sum() / n
            if pab == 0 or pa == 0 or pb == 0:
                vals.append(-1.0)
            elif pab == 1:
                vals.append(1.0)
            else:
                vals.append(float(np.log(pab / (pa * pb)) / -np.log(pab)))
        out.append(float(np.mean(vals)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-m", "--model", action="append", required=True)
    ap.add_argument("--topics", type=int, default=20)
    ap.add_argument("--min-df", type=int, default=5)
    ap.add_argument("--min-words", type=int, default=20)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--data", type=Path, default=data_root())
    args = ap.parse_args()
    docs = abc_documents(args.data, args.min_words)
    rows, examples = [], {}
    t0 = time.perf_counter()
    counts = CountVectorizer(stop_words="english", min_df=args.min_df, token_pattern=WORD)
    x = counts.fit_transform(docs)
    lda = LatentDirichletAllocation(args.topics, random_state=0).fit(x)
    words = counts.get_feature_names_out()
    lda_topics = [[str(words[i]) for i in np.argsort(-c)[:10]] for c in lda.components_]
    rows.append(
        {
            "method": f"LDA (scikit-learn, {len(words):,} words)",
            "seconds": time.perf_counter() - t0,
            "topics": lda_topics,
        }
    )
    vocab = document_vocabulary(docs, min_df=args.min_df)
    for name in args.model:
        t0 = time.perf_counter()
        tm = PhraseTopicModel(
            args.topics, model=name, epochs=args.epochs, show_progress_bar=True
        ).fit(docs, vocabulary=vocab)
        rows.append(
            {
                "method": f"PNTM ({name}, {len(vocab):,} words and phrases)",
                "seconds": time.perf_counter() - t0,
                "topics": tm.topics_,
            }
        )
    for r in rows:
        scores = npmi(r["topics"], docs)
        r["npmi"] = float(np.mean(scores))
        r["multiword"] = float(np.mean([" " in t for topic in r["topics"] for t in topic]))
        examples[r["method"]] = [", ".join(t) for t in r["topics"][:5]]
        print(r["method"], round(r["npmi"], 3), round(r["multiword"], 3), flush=True)
    cmd = (
        "python benchmarks/quality/topics.py "
        + " ".join(f"-m {m}" for m in args.model)
        + f" --topics {args.topics}"
    )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "topics.json").write_text(
        json.dumps({"command": cmd, "documents": len(docs), "rows": rows}, indent=2) + "\n"
    )
    md = [
        "# Topics: PNTM against LDA",
        "",
        f"`{cmd}`: {len(docs):,} ABC news documents, "
        f"{args.topics} topics, top 10 terms per topic; NPMI over the same documents "
        "(higher = more coherent; -1 for pairs that never co-occur).",
        "",
        "| method | NPMI | multi-word terms | seconds |",
        "|---|---:|---:|---:|",
    ]
    md += [
        f"| {r['method']} | {r['npmi']:.3f} | {r['multiword']:.0%} | {r['seconds']:.0f} |"
        for r in rows
    ]
    md += ["", "First five topics of each:", ""]
    for m, ts in examples.items():
        md += [f"**{m}**", ""] + [f"- {t}" for t in ts] + [""]
    (OUT / "topics.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
