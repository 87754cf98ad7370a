"""Learn the combined matcher's weights for a model, on training-pipeline pairs only.

Data (never a benchmark file): --n phrases sampled (seeded) from the training corpus
(``pearl build-corpus``). Positives: one augmented view of each phrase, drawn by pearl's
own augmenters (character typos, token swaps and synonyms, WordNet paraphrases, acronyms;
GloVe synonyms leave names alone). Each view is then matched as ``fuzzy_join`` matches a
row: the sampled phrases are the reference table, and the view's candidates are its top 10
by embedding cosine and its top 10 by n-gram cosine; a candidate is a match when it is the
view's source phrase (or equal to the view, case aside). A logistic model of (embedding
cosine, n-gram cosine, their product) with non-negative weights is fitted on the
candidates of 80% of the queries and checked on the other 20% (top-1 accuracy per query,
ROC AUC, Brier score, calibration by bins).

``--aliases`` (``pearl aliases`` groups, built with ``--exclude`` of the AutoFJ titles that
``benchmarks/quality/fuzzy_join_autofj.py --titles FILE`` writes) adds name-variant
queries: one form of a name in the reference table, another as the query. ``--word-weight``
sets the words' share of the n-gram encoding (0: skrub's character n-grams alone), to
compare encodings on the held-out queries.

The fitting is library code (``pearl.training.matcher_weights``); this script runs it and
writes its diagnostics to results/benchmarks/matcher_weights.{json,md}. The shipped weights
(src/pearl/tables/matcher_weights.json, what ``fuzzy_join(matcher="combined")``
reads) are written by the same recipe through ``pearl matcher-weights ... --ship``.

    python benchmarks/data/matcher_weights.py -m all-MiniLM-L6-v2 -m pearl-minilm \
        -m pearl-static --negatives data_out/hard_negatives.tsv --aliases data_out/aliases.csv
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pearl_lab import data_root

from pearl.tables.ngrams import NgramVectorizer
from pearl.training.matcher_weights import UNMATCHED_SHARE, learn_matcher_weights

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"


def render(rows: list[dict], args) -> str:
    lines = [
        "# Combined matcher weights",
        "",
        f"Learned on {args.n:,} phrases sampled from {args.corpus} (seed {args.seed}): "
        "one augmented view per phrase, matched against the sample as a reference "
        "table; candidates are the view's top 10 by embedding and top 10 by n-gram "
        "cosine, the match its source phrase"
        + (
            f"; the reference also holds {args.n_extra:,} near-duplicates (the sampled "
            "phrases' mined hard negatives), never a source"
            if args.n_extra
            else ""
        )
        + (
            f"; {args.n_alias_queries:,} alias queries (`pearl aliases` groups: one form "
            "in the reference, another as the query) join them"
            if args.n_alias_queries
            else ""
        )
        + f". N-gram encoding: character 2-4-grams and words (word weight "
        f"{args.word_weight}). Fitted (non-negative weights) on the "
        "candidates of 80% of the queries, checked on the other 20%: top-1 = share of "
        "held-out queries whose best-scored candidate is the match (views / aliases: "
        "the augmented views and the alias queries apart). The probability with the lead "
        f"is calibrated with {args.unmatched_share:.0%} of the queries (seeded) left without "
        "their match, as rows without a partner; the held-out checks below count those "
        "queries too (their best candidate is then never right).",
        "",
        "| model | w_emb | w_ngram | w_both | bias | top-1 combined | views | aliases | "
        "top-1 embedding | top-1 n-gram | AUC combined | Brier, score alone | "
        "Brier, with the lead |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        w, t = r["weights"], r["top1"]
        part = [
            f"{100 * t[k]:.1f}" if k in t else "–" for k in ("combined_views", "combined_aliases")
        ]
        lines.append(
            f"| {r['model']} | {w[0]:.2f} | {w[1]:.2f} | {w[2]:.2f} | "
            f"{r['bias']:.2f} | {100 * t['combined']:.1f} | {part[0]} | {part[1]} | "
            f"{100 * t['embedding']:.1f} | {100 * t['ngram']:.1f} | "
            f"{r['auc']['combined']:.3f} | {r['brier_alone']:.3f} | "
            f"{r['brier']:.3f} |"
        )
    lines += [
        "",
        "Each held-out query's best candidate, as `precision=0.9` treats it: the "
        "threshold of `threshold_for_precision(p, 0.9)` on its probability, and the "
        "precision and recall (share of all held-out queries) it observes. *Score "
        "alone*: isotonic calibration of the raw score (what `deduplicate` reads for "
        "a pair); *with the lead*: the margin model over the score and its lead on the "
        "runner-up (what `fuzzy_join` and `EntityIndex.search` read).",
        "",
        "| model | score alone: precision | recall | with the lead: precision | recall |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        (pa, ra), (pr, rr) = r["precision_0.9"]["alone"], r["precision_0.9"]["ranked"]
        lines.append(
            f"| {r['model']} | {100 * pa:.1f} | {100 * ra:.1f} | {100 * pr:.1f} | {100 * rr:.1f} |"
        )
    lines += [
        "",
        "Calibration of each held-out query's best candidate, with the lead: "
        "predicted vs observed match rate per probability bin.",
        "",
    ]
    for r in rows:
        lines.append(
            f"- {r['model']}: "
            + "; ".join(
                f"[{lo}, {hi}): n={n}, predicted {pr:.2f}, observed {ob:.2f}"
                for lo, hi, n, pr, ob in r["calibration_bins"]
            )
        )
    lines += [
        "",
        f"Command: `python benchmarks/data/matcher_weights.py --corpus {args.corpus} "
        f"--n {args.n} "
        + (f"--negatives {args.negatives} " if args.negatives else "")
        + (f"--aliases {args.aliases} " if args.aliases else "")
        + f"--word-weight {args.word_weight} --unmatched-share {args.unmatched_share} "
        + f"--name {args.name} "
        + " ".join(f"-m {m}" for m in args.model)
        + "`",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-m", "--model", action="append", required=True)
    ap.add_argument("--corpus", type=Path, default=Path("data_out/corpus/corpus.tsv"))
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--negatives",
        type=Path,
        default=None,
        help="hard negatives of `pearl mine` (data_out/hard_negatives.tsv): the "
        "sampled phrases' near-duplicates join the reference table",
    )
    ap.add_argument(
        "--aliases",
        type=Path,
        default=None,
        help="alias groups of `pearl aliases` (data_out/aliases.csv): pairs of "
        "forms of one name join the queries and the reference table",
    )
    ap.add_argument(
        "--n-aliases", type=int, default=10_000, help="alias groups drawn (default 10000)"
    )
    ap.add_argument(
        "--word-weight",
        type=float,
        default=NgramVectorizer().word_weight,
        help="weight of whole words in the n-gram encoding (0: character n-grams alone, skrub's)",
    )
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--name", default="matcher_weights", help="basename of the results files")
    ap.add_argument(
        "--unmatched-share",
        type=float,
        default=UNMATCHED_SHARE,
        help=f"queries calibrated without their match (default {UNMATCHED_SHARE}, the "
        "shipped weights')",
    )
    args = ap.parse_args()
    rows, seen = learn_matcher_weights(
        args.model,
        args.corpus,
        (args.data or data_root()) / "lexicon" / "wordnet",
        n=args.n,
        seed=args.seed,
        negatives=args.negatives,
        aliases=args.aliases,
        n_aliases=args.n_aliases,
        word_weight=args.word_weight,
        unmatched_share=args.unmatched_share,
    )
    args.n_extra, args.n_alias_queries = seen["n_extra"], seen["n_alias_queries"]
    OUT.mkdir(exist_ok=True)
    (OUT / f"{args.name}.json").write_text(
        json.dumps({"rows": rows, "augmenters": seen["augmenters"]}, indent=2) + "\n"
    )
    (OUT / f"{args.name}.md").write_text(render(rows, args))
    print(render(rows, args))


if __name__ == "__main__":
    main()
