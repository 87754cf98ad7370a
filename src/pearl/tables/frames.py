"""One input/output layer for the table tools: what users hand in, and the same kind back.

Every table tool (``fuzzy_join``, ``deduplicate``, ``cluster``, ``PhraseEmbedder``,
``EntityIndex``) reads its inputs here:

* **tables**: pandas, polars (eager and lazy) and pyarrow Tables. They are joined as pandas
  frames with pyarrow-backed columns, so nullable integers, dates and strings keep their
  type and their nulls through a join and come back as the caller's type (a polars
  ``Int64`` stays ``Int64``, a ``Date`` stays ``Date``; nulls stay nulls).
* **columns**: pandas and polars Series, pyarrow Arrays and ChunkedArrays, numpy arrays,
  lists and other iterables, and one-column frames of any of the table types (a one-column
  frame is a column, never an iterable of its labels). A frame of several columns is a
  ``ValueError`` naming them. Missing values (None, NaN, pandas/pyarrow/polars nulls) are
  reported as missing and never turned into the string ``"None"``.

The choice against a dataframe-agnostic layer such as narwhals, measured
(``benchmarks/speed/table_io.py``): on the 50 AutoFJ joins as polars tables, these
conversions take 0.045 s of 10.3 s (0.5% of a join, median), the same round trip through
narwhals 0.065 s; the tools compute on pandas frames already, and pyarrow-backed pandas
columns carry every polars and pyarrow type through unchanged, so one conversion in and
one out is all it takes, without a dependency.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pearl._validation import InputTypeError

__all__ = [
    "table_kind",
    "table_columns",
    "check_unique_columns",
    "to_pandas_table",
    "from_pandas_table",
    "column_cells",
    "column_like",
    "is_table",
]


def table_kind(obj: Any) -> str | None:
    """``"pandas"``, ``"polars"``, ``"polars-lazy"``, ``"pyarrow"`` for a table, else None."""
    module = type(obj).__module__
    name = type(obj).__name__
    if module.startswith("pandas") and name == "DataFrame":
        return "pandas"
    if module.startswith("polars"):
        return {"DataFrame": "polars", "LazyFrame": "polars-lazy"}.get(name)
    if module.startswith("pyarrow") and name == "Table":
        return "pyarrow"
    return None


def is_table(obj: Any) -> bool:
    return table_kind(obj) is not None


def table_columns(obj: Any) -> list:
    """The column names of a table of any supported kind (no data is read)."""
    kind = table_kind(obj)
    if kind == "pyarrow":
        return list(obj.column_names)
    if kind == "polars-lazy":
        return list(obj.collect_schema().names())
    return list(obj.columns)


def check_unique_columns(table: Any, name: str) -> None:
    """A ``ValueError`` naming the column names that ``table`` repeats (a column of such a
    name would be read as a table of its copies)."""
    cols = table_columns(table)
    dup = sorted({str(c) for c in cols if cols.count(c) > 1})
    if dup:
        raise ValueError(f"{name} has several columns named {dup}; rename them first")


def to_pandas_table(obj: Any, name: str = "table"):
    """A pandas DataFrame of any supported table, and its kind (for
    :func:`from_pandas_table`). polars and pyarrow columns become pyarrow-backed pandas
    columns, so their types and nulls survive the round trip."""
    import pandas as pd

    kind = table_kind(obj)
    if kind == "pandas":
        return obj, kind
    if kind == "polars":
        return obj.to_pandas(use_pyarrow_extension_array=True), kind
    if kind == "polars-lazy":
        return obj.collect().to_pandas(use_pyarrow_extension_array=True), kind
    if kind == "pyarrow":
        return obj.to_pandas(types_mapper=pd.ArrowDtype), kind
    raise InputTypeError(
        f"{name} must be a pandas, polars (eager or lazy) or pyarrow table, got "
        f"{type(obj).__name__}"
    )


def from_pandas_table(frame, kind: str, like: Any = None):
    """``frame`` as the caller's kind of table (see :func:`to_pandas_table`); with ``like``
    (the caller's table), a polars ``Enum`` column of it comes back an ``Enum`` (the
    round trip through pandas makes it ``Categorical``)."""
    if kind == "pandas":
        return frame
    if kind in ("polars", "polars-lazy"):
        import polars as pl

        out = pl.from_pandas(frame)
        if like is not None:
            schema = like.collect_schema() if kind == "polars-lazy" else like.schema
            for name, dtype in schema.items():
                if isinstance(dtype, pl.Enum) and name in out.columns:
                    out = out.with_columns(_as_enum(out[name], dtype))
        return out.lazy() if kind == "polars-lazy" else out
    if kind == "pyarrow":
        import pyarrow as pa

        return pa.Table.from_pandas(frame, preserve_index=False)
    raise ValueError(f"unknown table kind {kind!r}")


def _as_enum(column, dtype):
    """A polars column cast to the ``Enum`` ``dtype``; unchanged where a value is not one
    of its categories."""
    try:
        return column.cast(dtype)
    except Exception:  # noqa: BLE001 - polars' InvalidOperationError: keep the column
        return column


def _only_column(obj: Any, name: str):
    kind = table_kind(obj)
    if kind == "polars-lazy":
        obj = obj.collect()
    columns = table_columns(obj)
    if len(columns) != 1:
        raise ValueError(
            f"{name} is a table of {len(columns)} columns {columns[:5]}; pass "
            "one column (a one-column table, or table[column])"
        )
    if kind == "pandas":
        return obj.iloc[:, 0]
    if kind == "pyarrow":
        return obj.column(0)
    return obj.to_series(0)


def column_cells(values: Any, name: str = "values") -> list:
    """The cells of a column as Python objects, missing values as None or NaN.

    Raises
    ------
    ValueError
        A table of several columns, or an array of more than one dimension (but an
        ``(n, 1)`` array, one column).
    TypeError
        A string or a mapping given as a column.
    """
    if is_table(values):
        values = _only_column(values, name)
    module = type(values).__module__
    if module.startswith("pyarrow"):  # Array, ChunkedArray: nulls become None
        return values.to_pylist()
    if isinstance(values, str | bytes | dict):
        raise InputTypeError(
            f"{name} must be a column of values (a Series, array or list), got "
            f"{type(values).__name__}"
        )
    if hasattr(values, "to_list"):  # pandas and polars Series
        return values.to_list()
    if isinstance(values, np.ndarray):
        if values.ndim == 2 and values.shape[1] == 1:  # one column, as scikit-learn's X
            values = values[:, 0]
        if values.ndim != 1:
            raise ValueError(
                f"{name} must be 1-dimensional (or one column), got shape {values.shape}"
            )
        return values.tolist()
    return list(values)


def column_like(values: Any, cells: list, name: str | None = None):
    """``cells`` (strings and None) as a column of the caller's kind: a pandas Series keeps
    its index, name and string or categorical dtype; a polars Series (its ``Enum`` or
    ``Categorical`` type kept), a pyarrow array and a one-column table give a Series of
    their library; anything else a pandas Series (RangeIndex)."""
    import pandas as pd

    source = values
    if is_table(values):
        source = _only_column(values, "values")
    module = type(source).__module__
    label = name if name is not None else getattr(source, "name", None)
    if module.startswith("polars"):
        import polars as pl

        out = pl.Series(label or "", cells, dtype=pl.String)
        if isinstance(source.dtype, pl.Enum):
            return _as_enum(out, source.dtype)
        return out.cast(pl.Categorical) if source.dtype == pl.Categorical else out
    if module.startswith("pyarrow"):
        import pyarrow as pa

        kind = getattr(source, "type", pa.string())
        return pa.array(
            cells,
            type=kind
            if pa.types.is_string(kind) or pa.types.is_large_string(kind)
            else pa.string(),
        )
    if isinstance(source, pd.Series) and isinstance(source.dtype, pd.CategoricalDtype):
        # the same categories (the cells are values of the column), new ones appended
        known = list(source.cat.categories)
        extra = sorted({c for c in cells if c is not None} - set(known))
        dtype = pd.CategoricalDtype(known + extra, ordered=source.dtype.ordered)
        return pd.Series(cells, index=source.index, name=label, dtype=dtype)
    if isinstance(source, pd.Series):
        dtype = (
            source.dtype
            if isinstance(source.dtype, pd.StringDtype)
            or (isinstance(source.dtype, pd.ArrowDtype) and "string" in str(source.dtype))
            else object
        )
        return pd.Series(cells, index=source.index, name=label, dtype=dtype)
    return pd.Series(cells, name=label, dtype=object)
