"""Agreement of pearl's dependency-derived lexical tags with gold chunks (CoNLL-2000 test)
and gold constituents (Penn Treebank sample). Writes results/benchmarks/chunk_agreement.*

    python benchmarks/data/chunk_agreement.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pearl_lab import data_root

from pearl.evaluation.chunking import measure_agreement

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=data_root())
    args = ap.parse_args()
    res = measure_agreement(args.data / "corpus" / "nltk")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "chunk_agreement.json").write_text(json.dumps(res, indent=2) + "\n")
    md = [
        "# Lexical tags vs gold chunks and constituents",
        "",
        "`python benchmarks/data/chunk_agreement.py`: exact-span precision / recall / F1 of the "
        "phrases `pearl.data.phrases.extract_spans` derives from spaCy's dependency parse "
        "(gold tokenisation).",
        "",
    ]
    notes = {
        "conll2000": "CoNLL-2000 test part, gold chunks; a gold PP is the PP chunk plus "
        "the NP chunk after it (pearl's PP includes its object).",
        "treebank": "Penn Treebank sample (NLTK), every NP/VP/PP/ADVP/ADJP constituent; "
        "pearl emits base chunks, so long and nested constituents (full VPs "
        "above all) are not matched: recall is low by construction.",
    }
    for name, r in res.items():
        md += [
            f"## {name} ({r['sentences']:,} sentences)",
            "",
            notes[name],
            "",
            "| class | precision | recall | F1 | predicted | gold |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        md += [
            f"| {c} | {m['precision']:.3f} | {m['recall']:.3f} | {m['f1']:.3f} | "
            f"{m['predicted']:,} | {m['gold']:,} |"
            for c, m in r["classes"].items()
        ]
        md.append("")
    (OUT / "chunk_agreement.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
