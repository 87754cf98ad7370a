"""What the table input/output layer costs on the AutoFJ join, and what narwhals would.

pearl's table tools compute on pandas frames: a polars or pyarrow table is converted once in
(pyarrow-backed pandas columns, so types and nulls survive) and once out
(``pearl.tables.frames``). narwhals, the dataframe-agnostic layer, was the
alternative the issue named. Here, on the 50 AutoFJ datasets as polars tables (the titles
plus an ``Int64`` id with nulls and a ``Date`` column, as users' tables have), with
pearl-static: the whole ``fuzzy_join`` (encoding, search, assembly, conversions), pearl's
conversions alone (both inputs in, the joined frame out), and the same round trip through
narwhals (``nw.from_native(...).to_pandas()`` in, ``.to_polars()`` out). A layer that
computed natively on polars through narwhals expressions would skip the conversions but
rewrite the join's assembly; its cost cannot exceed the conversions measured here, which
bounds what it could save. Run with nothing else on the machine; needs ``pip install
narwhals``. Writes results/benchmarks/table_io.{md,json}.

    python benchmarks/speed/table_io.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import time
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"


def polars_tables(folder: Path):
    import polars as pl

    from pearl.evaluation.tasks.autofj import load_autofj

    left, right, _ = load_autofj(folder)

    def table(titles: list[str], offset: int):
        n = len(titles)
        ids = [None if i % 7 == 0 else offset + i for i in range(n)]
        days = [dt.date(2000, 1, 1) + dt.timedelta(days=i % 3650) for i in range(n)]
        return pl.DataFrame({"title": titles, "id": pl.Series(ids, dtype=pl.Int64), "day": days})

    return table(left, 0), table(right, 10**6)


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def measure(name: str, left, right, enc) -> dict:
    """One dataset: the join once, each conversion round trip best of 3."""
    import narwhals as nw

    import pearl
    from pearl.tables.frames import from_pandas_table, to_pandas_table

    joined = pearl.fuzzy_join(
        to_pandas_table(left)[0], to_pandas_table(right)[0], on="title", model=enc
    )

    def pearl_io():
        to_pandas_table(left)
        to_pandas_table(right)
        from_pandas_table(joined, "polars")

    def narwhals_io():
        nw.from_native(left).to_pandas()
        nw.from_native(right).to_pandas()
        nw.from_native(joined).to_polars()

    join_s = best_of(lambda: pearl.fuzzy_join(left, right, on="title", model=enc), 1)
    return {
        "dataset": name,
        "rows": len(left) + len(right),
        "join_seconds": round(join_s, 4),
        "pearl_io_seconds": round(best_of(pearl_io), 5),
        "narwhals_io_seconds": round(best_of(narwhals_io), 5),
    }


def main() -> None:
    from pearl_lab import data_root

    import pearl
    from pearl.evaluation.tasks.autofj import dataset_names

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--model", default="pearl-static")
    args = ap.parse_args()
    root = (args.data / "benchmark" if args.data else (data_root() / "benchmark")) / "autofj"
    enc = pearl.PhraseEncoder(args.model)
    rows = []
    for name in dataset_names(root):
        rows.append(measure(name, *polars_tables(root / "benchmark" / name), enc))
        print(rows[-1], flush=True)
    total = {k: sum(r[k] for r in rows) for k in rows[0] if k.endswith("seconds")}
    command = "python benchmarks/speed/table_io.py"
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "table_io.json").write_text(
        json.dumps(
            {"command": command, "model": args.model, "rows": rows, "total": total}, indent=2
        )
        + "\n"
    )
    share = [r["pearl_io_seconds"] / r["join_seconds"] for r in rows]
    lines = [
        "# The table layer's cost on the AutoFJ join",
        "",
        f"`{command}`: the 50 AutoFJ datasets as polars tables (title, a nullable `Int64`, a "
        f"`Date`), `fuzzy_join` with {args.model}; conversions best of 3, the join once.",
        "",
        "| | seconds, 50 datasets |",
        "|---|---:|",
        f"| whole `fuzzy_join` (polars in, polars out) | {total['join_seconds']:.2f} |",
        f"| pearl's conversions (in and out) | {total['pearl_io_seconds']:.3f} |",
        f"| the same round trip through narwhals | {total['narwhals_io_seconds']:.3f} |",
        "",
        f"pearl's conversions are {100 * np.median(share):.1f}% of a join (median over the "
        f"datasets; at most {100 * max(share):.1f}%).",
    ]
    (OUT / "table_io.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
