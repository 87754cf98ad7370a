"""pearl.fuzzy_join against skrub.fuzzy_join and character n-gram baselines on AutoFJ.

Protocol (the benchmark's): in each of the 50 AutoFJ datasets, every right-table title that
has a ground-truth match is joined to one left-table title (the reference table); accuracy
is the share of those whose match is the ground-truth title, averaged over the datasets.
pearl and skrub are called as a user would: ``fuzzy_join(right, left, ...)`` with the
right table as the table to complete. Wall time covers the whole call, encoding included
(pearl's in-memory embedding cache is emptied before every call, so no method reuses
another's vectors).

Methods (``--methods``, comma-separated): ``skrub`` (its default: hashed char 2-4-gram
TF-IDF), ``skrub-string-encoder`` (skrub's StringEncoder), ``skrub-text-encoder`` (skrub's
TextEncoder on the packaged all-MiniLM-L6-v2), ``jaccard`` (char 3-gram Jaccard),
``cosine:MODEL`` (``pearl.fuzzy_join(matcher="cosine")``) and ``combined:MODEL``
(``matcher="combined"``: embedding and n-gram candidates, learned combination; its
``precision=0.9`` threshold is applied per dataset as a user would).

Writes results/benchmarks/fuzzy_join_autofj.{md,csv,json} and fuzzy_join_pr.png
(precision/recall over the threshold, pooled over all datasets). The list of every AutoFJ
title that training data exclude is ``pearl benchmark-strings -o FILE`` (was ``--titles``).

    python benchmarks/quality/fuzzy_join_autofj.py [--methods ...] [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
from pearl_lab import data_root

from pearl import StringDistance, fuzzy_join
from pearl.evaluation.tasks.autofj import dataset_names, load_autofj
from pearl.tables.matcher import MatchScorer, threshold_for_precision

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"


def load(folder: Path):
    """Left titles, the right titles that have a ground-truth match, and the truth."""
    left, right, truth = load_autofj(folder)
    queries = pd.DataFrame({"title": [t for t in right if t in truth]})
    return pd.DataFrame({"title": left}), queries, truth


def _fresh_caches() -> None:
    from pearl.tables import clear_caches

    clear_caches(models=False)  # each dataset encodes from scratch; the model stays loaded


def run_pearl(left, queries, model, matcher="cosine"):
    _fresh_caches()
    out = fuzzy_join(
        queries,
        left,
        left_on="title",
        right_on="title",
        model=model,
        suffix="_ref",
        matcher=matcher,
        # every query's best candidate and its score (the benchmark's top-1 and curves);
        # the combined matcher's default would leave unlikely ones unmatched
        threshold=None if matcher == "cosine" else 0.0,
    )
    return out["title_ref"].tolist(), out["match_score"].to_numpy()


def run_skrub(left, queries, string_encoder=None):
    import skrub

    kwargs = {} if string_encoder is None else {"string_encoder": string_encoder}
    out = skrub.fuzzy_join(
        queries,
        left.rename(columns={"title": "ref"}),
        left_on="title",
        right_on="ref",
        add_match_info=True,
        **kwargs,
    )
    return out["ref"].tolist(), -out["skrub_Joiner_distance"].to_numpy()


def run_ngram(left, queries):
    idx, score = StringDistance().top1(queries.title.tolist(), left.title.tolist())
    titles = left.title.tolist()
    return [titles[i] for i in idx], score


def method_table(names: list[str], weights: Path | None = None) -> dict:
    """Method label -> callable(left, queries) -> (predicted titles, scores); ``weights``:
    a weights file whose entry for a ``combined:MODEL`` method's model scores it."""
    import skrub

    from pearl.encoders.resolve import resolve_model_path

    out = {}
    for name in names:
        if name == "skrub":
            out["skrub.fuzzy_join (default)"] = run_skrub
        elif name == "skrub-string-encoder":
            out["skrub.fuzzy_join + StringEncoder"] = lambda lt, q: run_skrub(
                lt, q, skrub.StringEncoder()
            )
        elif name == "skrub-text-encoder":
            path = resolve_model_path("all-MiniLM-L6-v2")
            out["skrub.fuzzy_join + TextEncoder (MiniLM)"] = lambda lt, q, p=path: run_skrub(
                lt, q, skrub.TextEncoder(model_name=p)
            )
        elif name == "jaccard":
            out["char 3-gram Jaccard"] = run_ngram
        elif name.split(":")[0] in ("cosine", "combined") and ":" in name:
            matcher, model = name.split(":", 1)
            label = f"pearl {matcher} ({model})"
            if matcher == "combined" and weights is not None:
                matcher = MatchScorer.from_file(weights, model)  # the model's own weights
                label += f", weights of {weights.name}"
            out[label] = lambda lt, q, m=model, k=matcher: run_pearl(lt, q, m, k)
        else:
            raise SystemExit(f"unknown method {name!r}")
    return out


DEFAULT_METHODS = (
    "skrub,skrub-string-encoder,jaccard,cosine:all-MiniLM-L6-v2,"
    "combined:all-MiniLM-L6-v2,combined:pearl-minilm"
)


def pr_curve(scores: np.ndarray, correct: np.ndarray, thresholds: np.ndarray):
    prec, rec = [], []
    for t in thresholds:
        keep = scores >= t
        prec.append(correct[keep].mean() if keep.any() else np.nan)
        rec.append((correct & keep).sum() / len(correct))
    return np.array(prec), np.array(rec)


def pr_name(name: str) -> str:
    """Basename of the precision/recall files of the results named ``name`` (beside them
    when ``name`` is a path: ``--name /tmp/afj_new``)."""
    path = Path(name)
    suffix = path.name.removeprefix("fuzzy_join_autofj").lstrip("_")
    return str(path.with_name("fuzzy_join_pr" + (f"_{suffix}" if suffix else "")))


def plot_pr(curves: dict, path: Path) -> None:
    """Precision against recall, and both against the threshold: one colour per method,
    precision solid and recall dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    fig, ax = plt.subplots(1, 2, figsize=(11, 4.2))
    colours = plt.colormaps["tab10" if len(curves) <= 10 else "tab20"]
    for i, (m, cur) in enumerate(curves.items()):
        ax[0].plot(cur["recall"], cur["precision"], color=colours(i), label=m)
        ax[1].plot(cur["threshold"], cur["precision"], color=colours(i))
        ax[1].plot(cur["threshold"], cur["recall"], "--", color=colours(i))
    ax[0].set(xlabel="recall", ylabel="precision", title="AutoFJ, pooled over datasets")
    ax[1].set(
        xlabel="threshold on the match score", title="choosing a threshold (colours as on the left)"
    )
    ax[0].legend(fontsize=7)
    ax[1].legend(
        [Line2D([], [], color="k"), Line2D([], [], color="k", linestyle="--")],
        ["precision", "recall"],
        fontsize=7,
    )
    for a in ax:
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", default=DEFAULT_METHODS)
    ap.add_argument("--data", type=Path, default=data_root())
    ap.add_argument("--limit", type=int, default=None, help="first N datasets (smoke runs)")
    ap.add_argument(
        "--weights",
        type=Path,
        default=None,
        help="a weights file of `pearl matcher-weights`: combined:MODEL uses MODEL's entry "
        "there (a candidate model scored with its own fitted weights)",
    )
    ap.add_argument(
        "--name",
        default="fuzzy_join_autofj",
        help="basename of the results files (another name keeps earlier runs)",
    )
    ap.add_argument(
        "--replot",
        action="store_true",
        help="draw the precision/recall figure again from its JSON and stop",
    )
    args = ap.parse_args()
    if args.replot:
        pr = pr_name(args.name)
        plot_pr(json.loads((OUT / f"{pr}.json").read_text()), OUT / f"{pr}.png")
        return
    root = args.data / "benchmark" / "autofj"
    names = dataset_names(root)[: args.limit]
    methods = method_table(args.methods.split(","), args.weights)
    rows, pooled = [], {m: ([], []) for m in methods}
    for name in names:
        left, queries, truth = load(root / "benchmark" / name)
        gold = [truth[t] for t in queries.title]
        for m, fn in methods.items():
            t0 = time.perf_counter()
            pred, score = fn(left, queries)
            dt = time.perf_counter() - t0
            ok = np.array([p == g for p, g in zip(pred, gold, strict=True)])
            row = {
                "dataset": name,
                "method": m,
                "accuracy": 100 * ok.mean(),
                "seconds": dt,
                "queries": len(gold),
                "left": len(left),
            }
            if " combined " in m:  # what precision=0.9 accepts in this dataset
                keep = np.asarray(score) >= threshold_for_precision(np.asarray(score), 0.9)
                row.update(accepted=int(keep.sum()), accepted_correct=int((keep & ok).sum()))
            rows.append(row)
            pooled[m][0].append(np.asarray(score, dtype=float))
            pooled[m][1].append(ok)
        print(
            name, {r["method"]: round(r["accuracy"], 1) for r in rows[-len(methods) :]}, flush=True
        )
    df = pd.DataFrame(rows)
    OUT.mkdir(parents=True, exist_ok=True)
    df.to_csv(OUT / f"{args.name}.csv", index=False)
    summary = df.groupby("method", sort=False).agg(
        accuracy=("accuracy", "mean"), seconds=("seconds", "sum")
    )
    cmd = (
        "python benchmarks/quality/fuzzy_join_autofj.py --methods "
        + args.methods
        + (f" --limit {args.limit}" if args.limit else "")
        + (f" --name {args.name}" if args.name != "fuzzy_join_autofj" else "")
        + (f" --weights {args.weights}" if args.weights else "")
    )
    md = [
        f"# Fuzzy join on AutoFJ ({len(names)} datasets)",
        "",
        f"`{cmd}`",
        "",
        "| method | mean accuracy (%) | total wall time (s) |",
        "|---|---:|---:|",
    ]
    md += [f"| {m} | {r.accuracy:.1f} | {r.seconds:.1f} |" for m, r in summary.iterrows()]
    md += [
        "",
        "Accuracy: share of right-table titles with a ground-truth match whose joined "
        "left title is the true one, averaged over datasets (the benchmark's AutoFJ "
        "protocol). Wall time: whole `fuzzy_join` calls including encoding, on this "
        "machine's 2 CPUs, nothing else running. Per-dataset figures: "
        f"`{args.name}.csv`.",
        "",
    ]
    total = int(df.groupby("dataset").queries.first().sum())
    for m in methods:
        if " combined " in m:
            sub = df[df.method == m]
            acc, cor = sub.accepted.sum(), sub.accepted_correct.sum()
            md.append(
                f"- {m}, `precision=0.9` (threshold set per dataset from the "
                f"calibrated probabilities, no labels): precision {cor / acc:.1%}, "
                f"recall {cor / total:.1%} (pooled over the {total:,} queries)"
            )
    md += [
        "- Baselines, for comparison at the same precision: the recall where their pooled "
        "precision first reaches 90%, with the threshold chosen on the benchmark's own "
        "labels (an upper bound a user cannot reach without labels):",
        "",
    ]

    pr_json = {}
    for m in methods:
        s, c = np.concatenate(pooled[m][0]), np.concatenate(pooled[m][1])
        th = np.unique(np.quantile(s, np.linspace(0, 1, 101)))
        p, r = pr_curve(s, c, th)
        pr_json[m] = {"threshold": th.tolist(), "precision": p.tolist(), "recall": r.tolist()}
        for target in (0.9, 0.95):
            ok = np.flatnonzero(p >= target)
            if len(ok):
                i = ok[0]
                md.append(
                    f"- {m}: precision >= {target:.0%} from threshold {th[i]:.3f}, "
                    f"keeping recall {r[i]:.1%}"
                )
    pr = pr_name(args.name)
    plot_pr(pr_json, OUT / f"{pr}.png")
    md += ["", f"![precision/recall over the threshold]({pr}.png)", ""]
    (OUT / f"{args.name}.md").write_text("\n".join(md))
    (OUT / f"{pr}.json").write_text(json.dumps(pr_json))
    print("\n".join(md))


if __name__ == "__main__":
    main()
