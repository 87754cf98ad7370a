"""EntityIndex at scale: 1,000,000 names, 10,000 queries, on this machine.

Names: every distinct name of the YAGO and UMLS stand-in dictionaries, the AutoFJ titles,
WordNet lemmas and the NLTK name and gazetteer lists (used here only as realistic strings
for timing), topped up to --n with qualified variants ("<name> (film)", "<name> FC", ...),
seeded. Queries: --queries names drawn from the index, each with one random character
edit, seeded; a query is "found" when its source name is the top-1 result.

Reports, separately: the encoder's share (encoding the names and the queries) and the
index's share (faiss build, memory, search latency), for the exact flat index and HNSW.
Writes results/benchmarks/index_scale.{json,md}.

    python benchmarks/speed/index_scale.py [--n 1000000] [--queries 10000]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import time
import zipfile
from pathlib import Path

import numpy as np
from pearl_lab import data_root

from pearl import EntityIndex

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"
QUALIFIERS = [
    "(film)",
    "(album)",
    "(band)",
    "(company)",
    "(river)",
    "(novel)",
    "FC",
    "University",
    "Street",
    "(village)",
    "(song)",
    "(ship)",
    "Airport",
    "Station",
    "(TV series)",
    "High School",
    "(politician)",
    "Museum",
    "(mountain)",
    "Park",
]


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return float("nan")


def real_names(data: Path) -> list[str]:
    names: list[str] = []
    b = data / "benchmark"
    for p in (b / "yago" / "yago_kb_standin.txt", b / "umls" / "umls_kb_standin.txt"):
        names += p.read_text(encoding="utf-8").splitlines()
    for ds in sorted((b / "autofj" / "benchmark").iterdir()):
        for f in ("left.csv", "right.csv"):
            lines = (ds / f).read_text(encoding="utf-8").splitlines()[1:]
            names += [line.split(",", 1)[1].strip('"') for line in lines if "," in line]
    for pos in ("noun", "verb", "adj", "adv"):
        for line in (
            (data / "lexicon" / "wordnet" / f"index.{pos}")
            .read_text(encoding="utf-8", errors="replace")
            .splitlines()
        ):
            if line and not line.startswith(" "):
                names.append(line.split(" ", 1)[0].replace("_", " "))
    for zname in ("names.zip", "gazetteers.zip"):
        with zipfile.ZipFile(data / "corpus" / "nltk" / zname) as z:
            for member in z.namelist():
                if member.endswith(".txt") and "README" not in member:
                    text = io.TextIOWrapper(z.open(member), encoding="latin-1").read()
                    names += text.splitlines()
    return [n.strip() for n in names if n.strip()]


def build_names(data: Path, n: int, seed: int) -> tuple[list[str], int]:
    base = list(dict.fromkeys(real_names(data)))
    n_real = min(len(base), n)
    out = base[:n]
    seen = set(out)
    rng = np.random.default_rng(seed)
    while len(out) < n:
        for i, q in zip(
            rng.integers(len(base), size=n), rng.integers(len(QUALIFIERS), size=n), strict=True
        ):
            cand = f"{base[i]} {QUALIFIERS[q]}"
            if cand not in seen:
                seen.add(cand)
                out.append(cand)
                if len(out) == n:
                    break
    return out, n_real


def typo(s: str, rng) -> str:
    if len(s) < 2:
        return s + "x"
    i = int(rng.integers(len(s) - 1))
    kind = int(rng.integers(3))
    if kind == 0:
        return s[:i] + s[i + 1] + s[i] + s[i + 2 :]
    if kind == 1:
        return s[:i] + s[i + 1 :]
    return s[:i] + "abcdefghijklmnopqrstuvwxyz"[int(rng.integers(26))] + s[i:]


def pct(x, q):
    return float(np.percentile(np.asarray(x) * 1000, q))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument(
        "--flat-latency-queries",
        type=int,
        default=500,
        help="single-query latency of the exact index is measured on this many",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", type=Path, default=data_root())
    ap.add_argument(
        "--matcher",
        choices=["cosine", "combined"],
        default="cosine",
        help="combined: also search the flat index with the combined matcher, 50 "
        "candidates per signal (embedding + character n-grams)",
    )
    ap.add_argument(
        "--out-name", default="index_scale", help="results file name (default index_scale)"
    )
    args = ap.parse_args()
    res: dict = {
        "command": f"python benchmarks/speed/index_scale.py --model {args.model} --n "
        f"{args.n} --queries {args.queries} --matcher {args.matcher} "
        f"--out-name {args.out_name}",
        "model": args.model,
        "cpus": os.cpu_count(),
    }

    names, n_real = build_names(args.data, args.n, args.seed)
    rng = np.random.default_rng(args.seed + 1)
    src = rng.choice(len(names), size=args.queries, replace=False)
    queries = [typo(names[i], rng) for i in src]
    res.update(
        n_names=len(names), n_real_names=n_real, n_queries=len(queries), rss_start_mb=rss_mb()
    )

    flat = EntityIndex(model=args.model, index="flat")
    enc = flat.encoder
    t0 = time.perf_counter()
    emb = enc.encode(names, normalize=True, show_progress_bar=True)
    res["encode_names_s"] = time.perf_counter() - t0
    res["encode_names_per_s"] = len(names) / res["encode_names_s"]
    res["rss_after_encoding_mb"] = rss_mb()

    t0 = time.perf_counter()
    qemb = enc.encode(queries, normalize=True)
    res["encode_queries_batch_s"] = time.perf_counter() - t0

    import faiss

    report = {}
    for kind in ("flat", "hnsw"):
        idx = flat if kind == "flat" else EntityIndex(model=args.model, index="hnsw")
        before = rss_mb()
        t0 = time.perf_counter()
        idx.add_embeddings(names, emb)
        build = time.perf_counter() - t0
        r = {
            "build_s": build,
            "rss_growth_mb": rss_mb() - before,
            "index_bytes_mb": faiss.serialize_index(idx.faiss_index).nbytes / 2**20,
        }
        t0 = time.perf_counter()
        batch = idx.search_embeddings(qemb, top_k=10)
        r["batch_search_10k_s"] = time.perf_counter() - t0
        r["top1_found"] = float(np.mean(batch.ids[:, 0] == src))
        r["top10_found"] = float(np.mean((batch.ids == src[:, None]).any(axis=1)))
        m = len(queries) if kind == "hnsw" else min(args.flat_latency_queries, len(queries))
        t_enc, t_search = [], []
        for q in queries[:m]:
            t0 = time.perf_counter()
            v = enc.encode([q], normalize=True, show_progress_bar=False)
            t1 = time.perf_counter()
            idx.search_embeddings(v, top_k=10)
            t_search.append(time.perf_counter() - t1)
            t_enc.append(t1 - t0)
        r.update(
            latency_queries=m,
            encode_ms_p50=pct(t_enc, 50),
            encode_ms_p99=pct(t_enc, 99),
            search_ms_p50=pct(t_search, 50),
            search_ms_p99=pct(t_search, 99),
            total_ms_p50=pct(np.add(t_enc, t_search), 50),
            total_ms_p99=pct(np.add(t_enc, t_search), 99),
        )
        report[kind] = r
        print(kind, json.dumps(r), flush=True)
        if kind == "flat" and args.matcher == "combined":
            from pearl.tables.matcher import MatchScorer

            t0 = time.perf_counter()
            scorer = MatchScorer.for_encoder(enc)
            ranked = idx.search_embeddings(
                qemb, top_k=10, queries=queries, matcher=scorer, candidates=50
            )
            report["flat + combined search, 50 candidates per signal"] = {
                "rerank_s": time.perf_counter() - t0,
                "top1_found": float(np.mean(ranked.ids[:, 0] == src)),
                "top10_found": float(np.mean((ranked.ids == src[:, None]).any(axis=1))),
            }
            print(report["flat + combined search, 50 candidates per signal"], flush=True)
    res["indexes"] = report
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{args.out_name}.json").write_text(json.dumps(res, indent=2) + "\n")
    md = [
        f"# EntityIndex at scale: {len(names):,} names, {len(queries):,} queries",
        "",
        f"`{res['command']}` ({args.model}, {os.cpu_count()} CPUs). {n_real:,} real names, "
        "the rest qualified variants; queries are indexed names with one character edit.",
        "",
        "**Encoder share**",
        "",
        f"- encoding {len(names):,} names: {res['encode_names_s']:.0f} s "
        f"({res['encode_names_per_s']:.0f} names/s); memory after: "
        f"{res['rss_after_encoding_mb']:.0f} MB RSS",
        f"- encoding {len(queries):,} queries in one batch: {res['encode_queries_batch_s']:.1f} s",
        "",
        "**Index share** (faiss, vectors already computed)",
        "",
        "| index | build s | RSS growth MB | index MB | batch search of all queries s | "
        "top-1 found | top-10 found | queries timed | search p50 ms | search p99 ms | "
        "encode+search p50 ms | encode+search p99 ms |",
        "|---|" + "---:|" * 11,
    ]
    for kind, r in report.items():
        if "build_s" not in r:
            continue
        md.append(
            f"| {kind} | {r['build_s']:.1f} | {r['rss_growth_mb']:.0f} | "
            f"{r['index_bytes_mb']:.0f} | {r['batch_search_10k_s']:.1f} | "
            f"{r['top1_found']:.3f} | {r['top10_found']:.3f} | {r['latency_queries']} | "
            f"{r['search_ms_p50']:.2f} | {r['search_ms_p99']:.2f} | "
            f"{r['total_ms_p50']:.2f} | {r['total_ms_p99']:.2f} |"
        )
    md += [
        "",
        "Latency is per single query (one query encoded, then searched, k=10). The "
        "exact index's single-query latency is timed on the first "
        f"{report['flat']['latency_queries']} queries; HNSW's on all of them. 'found': the "
        "query's source name is in the top 1 / top 10.",
        "",
    ]
    for kind, r in report.items():
        if "rerank_s" in r:
            md += [
                f'**{kind}** (`EntityIndex.search(..., matcher="combined")`): top-1 found '
                f"{r['top1_found']:.3f}, top-10 found {r['top10_found']:.3f}; the combined "
                f"search of all {len(queries):,} queries took {r['rerank_s']:.1f} s.",
                "",
            ]
    (OUT / f"{args.out_name}.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
