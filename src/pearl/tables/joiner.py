"""A scikit-learn transformer that fuzzy-joins a right table onto the tables it transforms,
its right side fitted once (skrub's ``Joiner`` convention)."""

from __future__ import annotations

from typing import Any

from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from pearl.encoders import DEFAULT_MODEL, TABLE_BATCH_SIZE
from pearl.tables.frames import from_pandas_table, to_pandas_table
from pearl.tables.join_options import JoinOptions

__all__ = ["Joiner"]


class Joiner(TransformerMixin, BaseEstimator):
    """Join ``right`` onto each table transformed, by the similarity of one key column.

    :func:`pearl.fuzzy_join` as a scikit-learn transformer: :meth:`fit` encodes and
    indexes the right key column once (a :class:`~pearl.tables.reference.Reference`);
    :meth:`transform` joins any left table against it, so joining many files against one
    register pays for the register once. ``Joiner(right, ...).fit_transform(left)`` gives
    what ``fuzzy_join(left, right, ...)`` gives.

    Parameters
    ----------
    right : table
        The right table (pandas, polars or pyarrow), whole.
    left_on, right_on, on : str
        The key column of each table (one each), or ``on`` for both.
    threshold, top_k, how, return_score, model, suffix, batch_size, matcher, precision
        As in :func:`pearl.fuzzy_join`; ``precision=`` chooses the threshold on each table
        transformed.

    Attributes
    ----------
    reference_ : Reference
        The fitted right key column.

    Notes
    -----
    Whether the keys are codes, numbers or dates (compared by their normalised value) is
    read at :meth:`fit` from the right key column and the left one of the table fitted
    on, and kept for every table transformed. Several key columns (record linkage) fit
    their model on both tables at once: use :func:`pearl.fuzzy_join`.

    Examples
    --------
    >>> import pandas as pd
    >>> right = pd.DataFrame({"name": ["The New York Times", "Boston Globe"], "id": [1, 2]})
    >>> joiner = Joiner(right, on="name", model="pearl-static").fit(
    ...     pd.DataFrame({"name": ["new york times"]})
    ... )
    >>> joiner.transform(pd.DataFrame({"name": ["boston globe"]}))["id"].tolist()
    [2]
    """

    def __init__(
        self,
        right: Any,
        *,
        left_on: str | None = None,
        right_on: str | None = None,
        on: str | None = None,
        threshold: float | None = None,
        top_k: int = 1,
        how: str = "left",
        return_score: bool = True,
        model: Any = DEFAULT_MODEL,
        suffix: str = "_right",
        batch_size: int = TABLE_BATCH_SIZE,
        matcher: Any = "combined",
        precision: float | None = None,
    ) -> None:
        self.right = right
        self.left_on = left_on
        self.right_on = right_on
        self.on = on
        self.threshold = threshold
        self.top_k = top_k
        self.how = how
        self.return_score = return_score
        self.model = model
        self.suffix = suffix
        self.batch_size = batch_size
        self.matcher = matcher
        self.precision = precision

    def _options(self) -> JoinOptions:
        opts = JoinOptions.check(
            on=self.on,
            left_on=self.left_on,
            right_on=self.right_on,
            how=self.how,
            top_k=self.top_k,
            threshold=self.threshold,
            return_score=self.return_score,
            suffix=self.suffix,
            batch_size=self.batch_size,
            matcher=self.matcher,
            precision=self.precision,
            one_to_one=False,
        )
        if opts.multi:
            raise ValueError(
                "Joiner joins on one key column; a join on several columns (record "
                "linkage) fits its model on both tables at once: use pearl.fuzzy_join"
            )
        return opts

    def fit(self, X: Any, y: Any = None) -> Joiner:
        """Encode and index the right key column (the left key column of ``X`` says,
        with it, whether the keys are codes, numbers or dates).

        Parameters
        ----------
        X : table
            A left table holding the left key column.
        y : ignored

        Returns
        -------
        Joiner
            This joiner, fitted.
        """
        from pearl.tables.encoding import get_encoder
        from pearl.tables.join import _right_frame, fit_reference
        from pearl.tables.matcher import scorer_for

        opts = self._options()
        left_on, right_on = str(opts.left_on), str(opts.right_on)
        left_df = _left_frame(X, left_on)
        right_df = _right_frame(self.right, right_on)
        encoder = get_encoder(self.model)
        scorer = scorer_for(opts.matcher, encoder)
        self.reference_ = fit_reference(right_df[right_on], left_df[left_on], encoder, scorer, opts)
        self.right_frame_, self.options_ = right_df, opts
        return self

    def transform(self, X: Any) -> Any:
        """``X`` with the right table joined onto it, as :func:`pearl.fuzzy_join` joins it.

        Parameters
        ----------
        X : table
            A left table holding the left key column.

        Returns
        -------
        table of ``X``'s kind
        """
        from pearl.tables.join import _join_one_key

        check_is_fitted(self, "reference_")
        left_df, kind = to_pandas_table(X, "left")  # its key column checked by the join
        out, _ = _join_one_key(
            left_df, self.right_frame_, self.options_, None, None, reference=self.reference_
        )
        return from_pandas_table(out, kind, X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags


def _left_frame(X: Any, left_on: str):
    """A left table as pandas, checked for its key column."""
    from pearl._validation import MissingKeyError

    frame = to_pandas_table(X, "left")[0]
    if left_on not in frame.columns:
        raise MissingKeyError(f"left has no column {left_on!r}; columns: {list(frame.columns)}")
    return frame
