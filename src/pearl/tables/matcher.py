"""Scoring candidate matches with two signals: embedding cosine and character n-grams.

Embeddings see meaning (synonyms, reformulations); character n-grams see surface form
(typos, abbreviations that share letters). :class:`MatchScorer` combines the two cosines
with a logistic model whose weights were learned on training pairs of the training-data
pipeline (augmented positives and forms of one name against mined hard negatives and
embedding neighbours; never on a benchmark), so that its output is a calibrated
probability that two strings name the same thing. :func:`threshold_for_precision` turns
a precision a user asks for into a threshold on that probability.

The surface signal is :class:`~pearl.tables.ngrams.NgramVectorizer` (importable
from here too).
"""

from __future__ import annotations

import json
import logging
import os
import types
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pearl._validation import check_choice, nfc
from pearl.tables.calibration import threshold_for_precision
from pearl.tables.ngrams import NgramVectorizer

__all__ = [
    "NgramVectorizer",
    "MatchScorer",
    "threshold_for_precision",
    "WEIGHTS_FILE",
    "nonnegative_logistic",
    "check_matcher",
    "scorer_for",
    "scorer_for_model",
    "keep_top",
    "name_ids",
    "names_at",
    "names_of_texts",
    "RIVALS_SEEN",
    "TYPO_FLOOR",
]

logger = logging.getLogger(__name__)

#: Weights learned for the known models (see ``benchmarks/data/matcher_weights.py``).
WEIGHTS_FILE = Path(__file__).with_name("matcher_weights.json")

#: Ranked candidates a match probability looks through for its rival, the best candidate
#: of another name (:meth:`MatchScorer.ranked`): a name listed up to this many times less
#: one is no rival to itself; past that, the pair's probability alone.
RIVALS_SEEN = 8
#: ``(floor, chars_per_edit)``: the least probability of a best candidate that is a typo
#: of its query while no other name is (:func:`keep_top`), as ``dedup.EDITS`` links pairs.
TYPO_FLOOR = (0.95, 6)


def _features(emb_cos: np.ndarray, ngram_cos: np.ndarray) -> np.ndarray:
    e = np.asarray(emb_cos, dtype=np.float64)
    n = np.asarray(ngram_cos, dtype=np.float64)
    return np.stack([e, n, e * n], axis=-1)


@dataclass
class MatchScorer:
    """Probability that two strings match, from their embedding and n-gram cosines.

    ``s = sigmoid(w_emb * e + w_ngram * n + w_both * e * n + bias)`` ranks the candidates;
    the probability is ``s`` mapped through an increasing calibration curve when one was
    fitted (:meth:`calibrate`), which leaves the ranking unchanged.

    Attributes
    ----------
    weights : tuple of float
        ``(w_emb, w_ngram, w_both)``.
    bias : float
    source : str
        Where the weights come from (model and training data).
    calibration : tuple of two lists, optional
        Breakpoints ``(scores, probabilities)`` of the calibration curve (interpolated
        linearly, constant outside): the probability of a pair seen alone (``deduplicate``).
    margin : tuple of four floats, optional
        ``(a, b, c, cap)``: the probability of a candidate *among others* (a join's or a
        search's ranked candidates, :meth:`ranked`) is ``sigmoid(a z + b min(m, cap) + c)``,
        ``z`` the logit of its raw score and ``m`` its lead in logits over the best other
        candidate (the runner-up, for the first). A match with a close rival is less
        certain than the same score alone: reference tables are dense in near-duplicates
        ("2005 ... season", "2006 ... season"). A candidate with no other candidate
        (a one-row reference) has no lead to read: its probability is the calibrated one.
    """

    weights: tuple[float, float, float]
    bias: float
    source: str = ""
    calibration: tuple[list[float], list[float]] | None = None
    margin: tuple[float, float, float, float] | None = None

    def score(self, emb_cos: np.ndarray, ngram_cos: np.ndarray) -> np.ndarray:
        """The uncalibrated logistic score (what ranks the candidates), float64."""
        z = _features(emb_cos, ngram_cos) @ np.asarray(self.weights) + self.bias
        with np.errstate(over="ignore"):  # exp(large) = inf gives the right 0
            return 1.0 / (1.0 + np.exp(-z))

    def calibrated(self, scores: np.ndarray) -> np.ndarray:
        """Probabilities of raw :meth:`score` values (-inf stays -inf), float32.

        The calibration curve has flat steps, so rank candidates by :meth:`score` and turn
        the kept ones into probabilities with this."""
        s = np.asarray(scores, dtype=np.float64)
        if self.calibration is not None:
            xs, ys = self.calibration
            s = np.where(np.isneginf(s), -np.inf, np.interp(s, xs, ys))
        return s.astype(np.float32)

    def width(self, top_k: int) -> int:
        """How many ranked candidates per row :meth:`ranked` needs to give the first
        ``top_k`` their probabilities: with a margin model, :data:`RIVALS_SEEN` - 1 more
        (a single match's runner-up, or the best other name past copies of its own)."""
        return top_k + RIVALS_SEEN - 1 if self.margin is not None else top_k

    def ranked(self, scores: np.ndarray, names: np.ndarray | None = None) -> np.ndarray:
        """Probabilities of each row's ranked candidates, float32 of the same shape.

        ``scores`` holds raw :meth:`score` values, each row sorted best first and padded
        with -inf (which stays -inf). With a :attr:`margin` model, a candidate's
        probability reads its score and its lead over the best other candidate of the row
        (no other candidate: the probability of the pair alone, :meth:`calibrated`);
        without, it is :meth:`calibrated`. ``names``, optional: an integer per candidate
        (the same shape; :func:`name_ids`), equal for candidates of the same name; the
        rival is then the best candidate of *another* name, so a name listed twice is no
        rival to itself."""
        s = np.asarray(scores, dtype=np.float64)
        if self.margin is None or s.ndim != 2:
            return self.calibrated(s)
        a, b, c, cap = self.margin
        z = _logit(s)
        if names is not None:
            rival = _other_name_rival(z, np.asarray(names))
        elif s.shape[1] > 1:
            rival = np.repeat(z[:, :1], s.shape[1], axis=1)
            rival[:, 0] = z[:, 1]
        else:
            rival = np.full_like(z, -np.inf)
        with np.errstate(invalid="ignore"):
            lead = np.minimum(np.nan_to_num(z - rival, nan=cap, posinf=cap), cap)
        with np.errstate(over="ignore", invalid="ignore"):  # -inf rows: set below
            out = 1.0 / (1.0 + np.exp(-(a * z + b * lead + c)))
        # no other candidate (a one-row reference): no lead to read, so the probability of
        # the pair seen alone; reading "no rival" as the widest lead gave any candidate of
        # a one-row table a probability near 1
        out = np.where(np.isneginf(rival), self.calibrated(s), out)
        return np.where(np.isneginf(s), -np.inf, out).astype(np.float32)

    def calibrate_margin(
        self, best: np.ndarray, runner_up: np.ndarray, labels: np.ndarray
    ) -> MatchScorer:
        """A copy with a :attr:`margin` model fitted on labelled best candidates: their raw
        scores, their runner-up's raw scores (-inf: none) and whether the best one is the
        match. Logistic regression with ``a, b >= 0`` (a higher score or a wider lead never
        lowers the probability); the lead is capped at its 99th percentile."""
        y = _check_labels(labels)
        z1, z2 = _logit(best), _logit(runner_up)
        finite = np.isfinite(z1 - z2)
        cap = float(np.percentile((z1 - z2)[finite], 99)) if finite.any() else 1.0
        x = np.stack([z1, np.minimum(np.where(finite, z1 - z2, cap), cap)], axis=1)
        a, b, c = nonnegative_logistic(
            x, y, np.full_like(y, 1.0 / len(y)), start=np.array([1.0, 0.0, 0.0])
        )
        return MatchScorer(self.weights, self.bias, self.source, self.calibration, (a, b, c, cap))

    def probability(self, emb_cos: np.ndarray, ngram_cos: np.ndarray) -> np.ndarray:
        """Match probabilities, float32, the shape of the inputs."""
        return self.calibrated(self.score(emb_cos, ngram_cos))

    def calibrate(
        self, emb_cos: np.ndarray, ngram_cos: np.ndarray, labels: np.ndarray, max_points: int = 64
    ) -> MatchScorer:
        """A copy whose probabilities are calibrated on these labelled candidates by
        isotonic regression of the labels on :meth:`score` (at most ``max_points``
        breakpoints kept)."""
        from sklearn.isotonic import IsotonicRegression

        s = self.score(emb_cos, ngram_cos)
        iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(
            s, np.asarray(labels, dtype=np.float64)
        )
        xs, ys = iso.X_thresholds_, iso.y_thresholds_
        if len(xs) > max_points:
            keep = np.unique(np.linspace(0, len(xs) - 1, max_points).round().astype(int))
            xs, ys = xs[keep], ys[keep]
        return MatchScorer(
            self.weights,
            self.bias,
            self.source,
            ([float(x) for x in xs], [float(y) for y in ys]),
            self.margin,
        )

    @classmethod
    def fit(
        cls,
        emb_cos: np.ndarray,
        ngram_cos: np.ndarray,
        labels: np.ndarray,
        balanced: bool = False,
        source: str = "",
        l2: float = 1e-3,
    ) -> MatchScorer:
        """Logistic regression on labelled pairs (1: same thing, 0: different), with the
        three weights held non-negative.

        The constraint keeps the score monotone: a candidate never loses rank because its
        embedding or n-gram cosine went *up* (an unconstrained fit on training pairs can
        learn negative weights that help on those pairs and reverse rankings elsewhere).
        ``balanced=True`` weights the two classes equally, so the probabilities assume
        even odds before the cosines are seen. ``l2`` is a small ridge on the weights.
        """
        y = _check_labels(labels)
        sw = np.ones_like(y)
        if balanced:
            sw = np.where(y == 1, 0.5 / y.mean(), 0.5 / (1 - y.mean()))
        w = nonnegative_logistic(
            _features(emb_cos, ngram_cos),
            y,
            sw / sw.sum(),
            start=np.array([1.0, 1.0, 0.0, 0.0]),
            l2=l2,
        )
        return cls((w[0], w[1], w[2]), w[3], source)

    def to_dict(self) -> dict[str, Any]:
        out = {"weights": list(self.weights), "bias": self.bias, "source": self.source}
        if self.calibration is not None:
            out["calibration"] = [list(self.calibration[0]), list(self.calibration[1])]
        if self.margin is not None:
            out["margin"] = list(self.margin)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchScorer:
        w = data.get("weights")
        if not (
            isinstance(w, list) and len(w) == 3 and all(isinstance(x, int | float) for x in w)
        ) or not isinstance(data.get("bias"), int | float):
            raise ValueError("a MatchScorer needs 3 numeric weights and a numeric bias")
        cal = data.get("calibration")
        if cal is not None:
            ok = (
                isinstance(cal, list)
                and len(cal) == 2
                and all(
                    isinstance(c, list) and c and all(isinstance(v, int | float) for v in c)
                    for c in cal
                )
                and len(cal[0]) == len(cal[1])
                and np.all(np.diff(cal[0]) >= 0)
                and all(0 <= v <= 1 for v in cal[1])
            )
            if not ok:
                raise ValueError(
                    "a MatchScorer calibration is two equal-length lists: "
                    "increasing scores and probabilities in [0, 1]"
                )
            cal = ([float(v) for v in cal[0]], [float(v) for v in cal[1]])
        margin = data.get("margin")
        if margin is not None:
            if not (
                isinstance(margin, list)
                and len(margin) == 4
                and all(isinstance(v, int | float) and np.isfinite(v) for v in margin)
                and margin[0] >= 0
                and margin[1] >= 0
                and margin[3] > 0
            ):
                raise ValueError(
                    "a MatchScorer margin model is four finite numbers [a >= 0, b >= 0, c, cap > 0]"
                )
            margin = tuple(float(v) for v in margin)
        return cls(
            (float(w[0]), float(w[1]), float(w[2])),
            float(data["bias"]),
            str(data.get("source", "")),
            cal,
            margin,
        )

    @classmethod
    def from_file(cls, path: str | os.PathLike, model: str | None = None) -> MatchScorer:
        """The weights of ``model`` in a weights file (``pearl matcher-weights``), or the
        file's default entry when ``model`` is None. A missing model is a ``KeyError``
        naming the models the file holds."""
        table = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(table, dict) or not isinstance(table.get("models"), dict):
            raise ValueError(f"{path} is not a matcher weights file (no 'models' table)")
        name = table.get("default") if model is None else str(model)
        if name not in table["models"]:
            raise KeyError(f"no weights for {name!r} in {path}; it holds {sorted(table['models'])}")
        return cls.from_dict(table["models"][name])

    @classmethod
    def for_encoder(cls, encoder) -> MatchScorer:
        """The weights learned for this encoder's model, or, for a model without its own,
        the fallback named in the weights file (all-MiniLM-L6-v2, a plain
        sentence-transformers model; logged: its probabilities are then only roughly
        calibrated)."""
        from pearl.encoders.resolve import written_as_path

        table = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
        name = str(getattr(encoder, "model_name", getattr(encoder, "name", "")))
        entry = next(
            (
                v
                for v in table["models"].values()
                if v.get("fingerprint") == getattr(encoder, "fingerprint", None)
            ),
            None,
        )
        if entry is None and not written_as_path(name):  # a folder never borrows a name's
            entry = table["models"].get(name)
        if entry is None:
            logger.info(
                "no matcher weights learned for %s; using those of %s", name, table["default"]
            )
            entry = table["models"][table["default"]]
        return cls.from_dict(entry)


def scorer_for_model(matcher: str | MatchScorer, model: Any) -> MatchScorer | None:
    """:func:`scorer_for` of a model given by name or folder, without loading it: the
    weights are chosen by the folder's fingerprint and the name, both read from the files
    (a Dask join's client then never imports torch nor builds the transformer that only its
    workers run). An encoder object, or a name whose fingerprint needs the model built
    (GloVe, string distance), is loaded as :func:`scorer_for` loads it."""
    from pearl.tables.encoding import expected_fingerprint, get_encoder

    if isinstance(matcher, MatchScorer) or matcher == "cosine":
        return scorer_for(matcher, None)
    if isinstance(model, str | os.PathLike):
        fingerprint = expected_fingerprint(model)
        if fingerprint is not None:
            stub = types.SimpleNamespace(model_name=os.fspath(model), fingerprint=fingerprint)
            return MatchScorer.for_encoder(stub)
    return scorer_for(matcher, get_encoder(model))


def _check_labels(labels: np.ndarray) -> np.ndarray:
    y = np.asarray(labels).astype(np.float64)
    if set(np.unique(y)) != {0.0, 1.0}:
        raise ValueError("labels must contain both matches (1) and non-matches (0)")
    return y


def nonnegative_logistic(
    x: np.ndarray, y: np.ndarray, sw: np.ndarray, start: np.ndarray, l2: float = 0.0
) -> list[float]:
    """Weights (all >= 0) and a free bias of the logistic regression of ``y`` on the columns
    of ``x``, minimising the ``sw``-weighted log loss plus ``l2`` x the squared weights."""
    from scipy.optimize import minimize

    k = x.shape[1]

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ theta[:k] + theta[k]
        # log(1 + exp(z)) - y z, computed stably
        nll = np.logaddexp(0.0, z) - y * z
        g = (1.0 / (1.0 + np.exp(-z)) - y) * sw
        grad = np.concatenate([x.T @ g + 2 * l2 * theta[:k], [g.sum()]])
        return float(sw @ nll + l2 * theta[:k] @ theta[:k]), grad

    res = minimize(
        loss, start, jac=True, method="L-BFGS-B", bounds=[(0, None)] * k + [(None, None)]
    )
    return [float(v) for v in res.x]


def _logit(p: np.ndarray) -> np.ndarray:
    """log(p / (1 - p)) of raw scores (-inf stays -inf; 1 maps to a large finite value)."""
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.log(p) - np.log1p(-np.minimum(p, 1.0 - 1e-12))
    return np.where(np.isneginf(p), -np.inf, z)


def name_ids(texts: Sequence[str]) -> np.ndarray:
    """An integer per text, equal for texts that write the same name, case and spaces
    aside ("New York", "new  york "): what a match probability does not count as a rival
    (:meth:`MatchScorer.ranked`), as record linkage counts such values equal."""
    first: dict[str, int] = {}
    keys = (first.setdefault(" ".join(nfc(t).split()).casefold(), len(first)) for t in texts)
    return np.fromiter(keys, dtype=np.int64, count=len(texts))


def names_of_texts(ids: np.ndarray, texts: Sequence[str]) -> np.ndarray:
    """The names (:func:`name_ids`) of candidate ``ids``, rows of ``texts`` (-1 padding
    stays -1), read for the rows that are candidates only."""
    live = ids >= 0
    hit, at = np.unique(ids[live], return_inverse=True)
    out = np.full(ids.shape, -1, dtype=np.int64)
    out[live] = name_ids([texts[i] for i in hit])[at]
    return out


def names_at(ids: np.ndarray, name_of: np.ndarray) -> np.ndarray:
    """The names (:func:`name_ids`) of candidate ``ids`` (-1 padding stays -1)."""
    if not len(name_of):
        return np.full(ids.shape, -1, dtype=np.int64)
    return np.where(ids >= 0, name_of[np.maximum(ids, 0)], -1)


def _other_name_rival(z: np.ndarray, names: np.ndarray) -> np.ndarray:
    """Each candidate's rival: the best (first, in rows sorted best first) candidate of its
    row whose name differs from its own (-1 names are padding, never a rival); -inf where
    there is none."""
    rival = np.full_like(z, -np.inf)
    rows = np.arange(len(z))
    for j in range(z.shape[1]):
        other = (names != names[:, j : j + 1]) & (names >= 0)
        first = other.argmax(axis=1)
        rival[:, j] = np.where(other[rows, first], z[rows, first], -np.inf)
    return rival


def check_matcher(matcher: Any) -> str | MatchScorer:
    """``"cosine"``, ``"combined"`` or a :class:`MatchScorer` (checked before any work)."""
    if isinstance(matcher, MatchScorer):
        return matcher
    return check_choice(matcher, "matcher", ("cosine", "combined"))


def scorer_for(matcher: str | MatchScorer, encoder) -> MatchScorer | None:
    """None for plain cosine; the weights learned for ``encoder`` for ``"combined"``."""
    if isinstance(matcher, MatchScorer):
        return matcher
    return None if matcher == "cosine" else MatchScorer.for_encoder(encoder)


def keep_top(
    scorer,
    ids: np.ndarray,
    raw: np.ndarray,
    top_k: int,
    names: np.ndarray | None = None,
    apart: np.ndarray | None = None,
    typo: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The first ``top_k`` of each row's ranked candidates (``ids`` and raw scores, best
    first) with their probabilities (``scorer.ranked``), for lists of any width (a list
    narrower than the scorer's width, because fewer references exist, is padded to the
    runner-up column its probabilities read). ``names``, optional: each candidate's name
    as an integer (:func:`name_ids`, the shape of ``ids``): copies of a name are no rivals.
    ``apart``, optional: the candidates numbered apart from their query
    (:func:`~pearl.tables.numbers.candidates_apart`): ranked after the others (still
    rivals), their probabilities as they are (:func:`~pearl.tables.numbers.capped` caps
    them where no decision is estimated on the tables).
    ``typo``, optional: rows whose best candidate gets at least ``TYPO_FLOOR[0]``
    (:func:`~pearl.tables.match_graph.unrivalled_typos`)."""
    real = ids.shape[1]
    pad = ((0, 0), (0, max(0, min(scorer.width(top_k), 2) - real)))
    ids = np.pad(ids, pad, constant_values=-1)
    raw = np.pad(raw, pad, constant_values=-np.inf)
    if names is not None:
        names = np.where(ids >= 0, np.pad(names, pad, constant_values=-1), -1)
    probs = scorer.ranked(raw, names)
    if apart is not None:
        from pearl.tables.numbers import numbered_last

        apart = np.pad(apart, pad)
        order = numbered_last(ids, apart)
        ids, probs = np.take_along_axis(ids, order, 1), np.take_along_axis(probs, order, 1)
    if typo is not None and probs.shape[1]:
        floor = np.where(typo & (ids[:, 0] >= 0), TYPO_FLOOR[0], -np.inf)
        probs[:, 0] = np.maximum(probs[:, 0], floor)
    width = min(top_k, real)
    return ids[:, :width], probs[:, :width]
