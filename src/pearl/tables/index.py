"""Entity retrieval over large dictionaries of canonical names (faiss)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pearl._io import not_decodable
from pearl._validation import check_choice, check_int, check_texts
from pearl.encoders import DEFAULT_MODEL, KNOWN_MODELS, TABLE_BATCH_SIZE
from pearl.encoders.base import normalize_rows
from pearl.tables.encoding import expected_fingerprint, get_encoder
from pearl.tables.index_files import (
    FORMAT,
    check_vectors,
    model_mismatch,
    read_index_files,
    read_meta,
    write_index_files,
)
from pearl.tables.matcher import check_matcher, scorer_for

__all__ = ["EntityIndex", "SearchResult"]

_INSTALLED = {m.lower() for m in KNOWN_MODELS}


#: Queries re-ranked together by the combined matcher (bounds the memory of a search).
QUERY_BLOCK = 1024


@dataclass
class SearchResult:
    """The ``top_k`` matches of each query.

    Attributes
    ----------
    names : list of list of str
    ids : ndarray of int64, shape (n_queries, min(top_k, number of names)); -1 where an
        approximate index finds fewer
    scores : ndarray of float32, shape (n_queries, min(top_k, number of names)); cosine
        similarity (match probability with the combined matcher)
    """

    queries: list[str]
    names: list[list[str]]
    ids: np.ndarray
    scores: np.ndarray

    def to_frame(self):
        """A long pandas DataFrame: query, rank, name, id, score."""
        import pandas as pd

        rows = [
            (q, r + 1, self.names[i][r], int(self.ids[i, r]), float(self.scores[i, r]))
            for i, q in enumerate(self.queries)
            for r in range(self.ids.shape[1])
            if self.ids[i, r] >= 0
        ]
        return pd.DataFrame(rows, columns=["query", "rank", "name", "id", "score"])


def _names_rule(names: list[str]) -> Any:
    """The :class:`~pearl.tables.comparisons.ValueRule` of a list of names that are codes,
    numbers or dates (:func:`~pearl.tables.comparisons.field_kind`), else None."""
    import pandas as pd

    from pearl.tables.comparisons import value_rule

    column = pd.Series(names, dtype=object)
    return value_rule(column, column)


class EntityIndex:
    """Nearest-neighbour search of phrases in a dictionary of canonical names.

    Parameters
    ----------
    model : str or encoder, default=DEFAULT_MODEL
        Encoder of names and queries.
    index : {"flat", "hnsw", "ivf"}, default="flat"
        ``"flat"``: exact inner product on normalised vectors (cosine). ``"hnsw"``:
        graph index, approximate, no training. ``"ivf"``: inverted lists (trained on
        the first names added; ``nlist`` = 4 sqrt(n)), approximate.
    hnsw_m : int, default=32
        HNSW graph degree.
    ef_search : int, default=128
        HNSW search breadth (higher: more exact, slower).
    nprobe : int, default=16
        IVF lists visited per query.
    batch_size : int, default=256
        Encoding batch size.

    Examples
    --------
    >>> idx = EntityIndex().build(["The New York Times", "New York Post", "Boston Globe"])
    >>> idx.search(["NYTimes"], top_k=2).names
    [['The New York Times', 'New York Post']]
    """

    def __init__(
        self,
        model: Any = DEFAULT_MODEL,
        *,
        index: str = "flat",
        hnsw_m: int = 32,
        ef_search: int = 128,
        nprobe: int = 16,
        batch_size: int = TABLE_BATCH_SIZE,
    ) -> None:
        self.model = model
        self.index = check_choice(index, "index", ("flat", "hnsw", "ivf"))
        self.hnsw_m = check_int(hnsw_m, "hnsw_m", 2)
        self.ef_search = check_int(ef_search, "ef_search", 1)
        self.nprobe = check_int(nprobe, "nprobe", 1)
        self.batch_size = check_int(batch_size, "batch_size", 1)
        self.names_: list[str] = []
        self._faiss: Any = None
        self._ngrams = None  # the combined matcher's n-gram weights and name rows, when needed
        self._rule: Any = None  # codes, numbers or dates: how the names are compared
        self.encode_seconds_ = 0.0
        self.index_seconds_ = 0.0

    # -- building -------------------------------------------------------------------------
    @property
    def encoder(self):
        return get_encoder(self.model)

    def _encode(self, texts: list[str], progress: bool) -> np.ndarray:
        import time

        t0 = time.perf_counter()
        emb = self.encoder.encode(texts, batch_size=self.batch_size, show_progress_bar=progress)
        self.encode_seconds_ += time.perf_counter() - t0
        return normalize_rows(emb)

    def _new_faiss(self, dim: int, train: np.ndarray) -> Any:
        from pearl.tables.search import new_faiss_index

        return new_faiss_index(
            self.index, dim, train, hnsw_m=self.hnsw_m, ef_search=self.ef_search, nprobe=self.nprobe
        )

    def _add_vectors(self, vecs: np.ndarray) -> None:
        import time

        t0 = time.perf_counter()
        if self._faiss is None:
            self._faiss = self._new_faiss(vecs.shape[1], vecs)
        self._faiss.add(vecs)
        self.index_seconds_ += time.perf_counter() - t0

    def build(self, names: Any, show_progress_bar: bool | None = None) -> EntityIndex:
        """Index a list of canonical names (replacing any previous content).

        Empty and duplicate names are kept (ids stay aligned with the input);
        None/NaN/non-strings raise ``ValueError`` naming the index.
        """
        self.names_, self._faiss, self._ngrams, self._rule = [], None, None, None
        self.encode_seconds_ = self.index_seconds_ = 0.0
        return self.add(names, show_progress_bar=show_progress_bar)

    @classmethod
    def from_file(
        cls, path: str | os.PathLike, *, encoding: str = "utf-8", **kwargs: Any
    ) -> EntityIndex:
        """Build from a text file with one name per line (blank lines skipped), decoded
        with ``encoding``; ``kwargs`` go to the constructor.

        Raises
        ------
        FileNotFoundError
            When ``path`` does not exist.
        IsADirectoryError
            When it is a folder (a pipe, ``/dev/stdin`` or a shell's ``<(...)``, is read).
        ValueError
            When a byte of the file does not decode (the names are never altered: pass
            the file's ``encoding``).
        """
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"names file not found: {path}")
        if path.is_dir():
            raise IsADirectoryError(f"names file {path} is a folder, not a file")
        try:
            with open(path, encoding=encoding) as f:
                names = [s for s in (line.rstrip("\n").strip() for line in f) if s]
        except UnicodeError as exc:  # UTF-16 without its byte order mark too
            raise not_decodable(path, encoding, exc, "pass encoding= (--encoding)") from None
        return cls(**kwargs).build(names)

    def add(self, names: Any, show_progress_bar: bool | None = None) -> EntityIndex:
        """Append names; their ids continue after the existing ones."""
        items = check_texts(names, "names")
        if not items:
            return self
        progress = len(items) > 8192 if show_progress_bar is None else show_progress_bar
        if self._faiss is None:  # the first names say whether these are codes, numbers, dates
            self._rule = _names_rule(items)
        self._add_vectors(self._encode(self.compared(items), progress))
        self.names_.extend(items)
        self._ngrams = None
        return self

    def compared(self, texts: list[str]) -> list[str]:
        """Names or queries as this index compares them (and as :meth:`search_embeddings`
        expects their embeddings to be made of): codes, numbers and dates normalised
        ("(212) 555-0101" is "2125550101") when the index's names are such values, text as
        written; a value that does not read keeps its text."""
        if self._rule is None:
            return texts
        import pandas as pd

        return self._rule.written(texts, pd.Series(texts, dtype=object))

    def add_embeddings(
        self, names: Any, embeddings: np.ndarray, *, compared: bool = False
    ) -> EntityIndex:
        """Append names with precomputed embeddings (rows aligned with ``names``).

        The embeddings must come from this index's encoder; they are L2-normalised here.
        ``compared=True``: they are embeddings of the names as :meth:`compared` writes
        them, and on a new index the names' kind (codes, numbers or dates compared by
        their normalised value, else text) is read from ``names`` as :meth:`build` reads
        it; by default a new index compares its names as written.
        """
        items = check_texts(names, "names")
        if compared and self._faiss is None and items:
            self._rule = _names_rule(items)
        vecs = np.asarray(embeddings, dtype=np.float32)
        if vecs.ndim != 2 or len(vecs) != len(items):
            raise ValueError(f"{len(items)} names but embeddings of shape {vecs.shape}")
        if self._faiss is not None and vecs.shape[1] != self._faiss.d:
            raise ValueError(
                f"embeddings have {vecs.shape[1]} dimensions, the index {self._faiss.d}"
            )
        if not np.isfinite(vecs).all():
            raise ValueError("embeddings contain NaN or infinite values")
        vecs = normalize_rows(vecs)
        if items:
            self._add_vectors(vecs)
            self.names_.extend(items)
            self._ngrams = None
        return self

    def __len__(self) -> int:
        return len(self.names_)

    # -- searching ------------------------------------------------------------------------
    def search(
        self,
        queries: Any,
        top_k: int = 5,
        *,
        show_progress_bar: bool | None = None,
        matcher: Any = "combined",
        candidates: int = 10,
    ) -> SearchResult:
        """The ``top_k`` nearest names of each query.

        Parameters
        ----------
        queries : str or iterable of str
        top_k : int, default=5
            Matches per query, at most the number of indexed names (a larger ``top_k`` is
            capped: no memory is set aside for answers that cannot exist).
        matcher : {"combined", "cosine"} or MatchScorer, default="combined"
            ``"cosine"``: rank by embedding cosine (``scores`` are cosines).
            ``"combined"`` (chosen on three offline name sources,
            ``experiments/index_matchers.py``): take the ``candidates`` nearest names by
            embedding and the ``candidates`` nearest by character n-grams
            (the rule of ``fuzzy_join`` and ``deduplicate``) and
            re-rank them by the match probability given their embedding cosine and their
            n-gram cosine (``scores`` are probabilities; see
            :class:`~pearl.tables.matcher.MatchScorer`). The n-gram weights (IDF)
            are learned from the indexed names on the first combined search. A
            probability reads a match's lead over the best candidate of *another* name
            (case and spaces aside): a name indexed several times gets the same
            probability on each copy as it would once.
        candidates : int, default=10
            Candidates per query from each of the embedding and the n-grams (10, as
            ``fuzzy_join``: the mean top-1 of 50 within 0.1 point on three offline name
            sources, ``experiments/index_candidates.py``). Above 5,000 names the n-gram
            candidates come from a product-quantised sketch of the n-gram rows
            (:class:`~pearl.tables.search.ReferenceIndex`); every candidate is then
            scored exactly.

        Returns
        -------
        SearchResult
        """
        top_k = check_int(top_k, "top_k", 1)  # capped at the index size below
        candidates = check_int(candidates, "candidates", 1)
        matcher = check_matcher(matcher)
        items = check_texts(queries, "queries")
        if self._faiss is None or not len(self):
            raise ValueError("the index is empty; build() or add() names first")
        progress = len(items) > 8192 if show_progress_bar is None else show_progress_bar
        compared = self.compared(items)
        q = self._encode(compared, progress) if items else np.zeros((0, self._faiss.d), np.float32)
        return self.search_embeddings(
            q, top_k, queries=items, matcher=matcher, candidates=candidates
        )

    @property
    def faiss_index(self):
        """The underlying faiss index (None until names are added)."""
        return self._faiss

    def _reference(self):
        """The fitted :class:`~pearl.tables.reference.Reference` over this faiss index and
        the names' n-gram rows (the n-gram vectorizer fitted on the names as compared),
        made once per set of names, on the first combined search."""
        from pearl.tables.ngrams import NgramVectorizer
        from pearl.tables.reference import Reference
        from pearl.tables.search import ReferenceIndex

        if self._ngrams is None:
            keys = self.compared(self.names_)
            vectorizer = NgramVectorizer()
            rows = vectorizer.fit_transform(keys)  # the names' n-grams counted once
            index = ReferenceIndex(ngram_rows=rows, faiss_index=self._faiss)
            scorer = scorer_for("combined", self.encoder)
            self._ngrams = Reference.over_index(
                index, keys, self.encoder, scorer, vectorizer, self._rule
            )
        return self._ngrams

    def _names_of(self, ids: np.ndarray) -> list[list[str]]:
        """The names of result ids ("" where -1)."""
        return [[self.names_[i] if i >= 0 else "" for i in row] for row in ids]

    def search_embeddings(
        self,
        embeddings: np.ndarray,
        top_k: int = 5,
        queries: list[str] | None = None,
        *,
        matcher: Any = "cosine",
        candidates: int = 10,
    ) -> SearchResult:
        """Like :meth:`search`, for query embeddings computed beforehand (by this index's
        model, of the queries as :meth:`compared` writes them). The combined matcher also
        reads the query strings: give ``queries``."""
        from pearl.tables.search import ReferenceIndex

        top_k = check_int(top_k, "top_k", 1)
        candidates = check_int(candidates, "candidates", 1)
        q = self._checked_queries(embeddings)
        scorer = scorer_for(check_matcher(matcher), self.encoder)
        if scorer is not None and len(q):
            if queries is None or len(queries) != len(q):
                raise ValueError("the combined matcher needs the query strings: pass queries=")
            return self._combined(q, list(queries), top_k, scorer, max(top_k, candidates))
        ids, scores = ReferenceIndex(faiss_index=self._faiss).embedding_top_k(q, top_k)
        return SearchResult(
            queries=queries or [""] * len(q), names=self._names_of(ids), ids=ids, scores=scores
        )

    def _combined(
        self, q: np.ndarray, items: list[str], top_k: int, scorer: Any, per_signal: int
    ) -> Any:
        """The combined search of unit query rows ``q`` (strings ``items``), a block of
        queries at a time (a block's candidates stay small), ranked by the fitted
        reference's rules."""
        reference = self._reference()
        reference.scorer_ = scorer  # the scorer asked for (the model's own by default)
        compared = self.compared(items)
        keep = min(top_k, len(self))
        blocks, scores = [], []
        for s in range(0, len(items), QUERY_BLOCK):
            block = slice(s, s + QUERY_BLOCK)
            top_i, top_s = reference.rank_vectors(q[block], compared[block], keep, per_signal)
            blocks.append(top_i)
            scores.append(top_s)
        ids = np.concatenate(blocks)
        return SearchResult(
            queries=items,
            names=self._names_of(ids),
            ids=ids,
            scores=np.concatenate(scores),
        )

    def _checked_queries(self, embeddings: np.ndarray) -> np.ndarray:
        """Unit float32 query rows of this index's dimension (a clear error otherwise)."""
        if self._faiss is None or not len(self):
            raise ValueError("the index is empty; build() or add() names first")
        q = normalize_rows(np.atleast_2d(np.asarray(embeddings, dtype=np.float32)))
        if q.ndim != 2 or q.shape[1] != self._faiss.d:
            raise ValueError(
                f"query embeddings of shape {q.shape}; this index holds "
                f"{self._faiss.d}-d vectors (another model made them?)"
            )
        if not np.isfinite(q).all():
            raise ValueError("query embeddings contain NaN or infinite values")
        return q

    # -- persistence ----------------------------------------------------------------------
    def save(self, folder: str | os.PathLike) -> Path:
        """Write ``index.faiss``, ``names.jsonl`` and ``meta.json`` into ``folder``.

        The folder is written beside and renamed into place when complete; an existing
        pearl index folder is replaced, any other non-empty folder is refused.
        """
        if self._faiss is None:
            raise ValueError("nothing to save: the index is empty")
        folder = Path(folder)
        enc = self.encoder
        meta = {
            "format": FORMAT,
            "model": str(getattr(enc, "model_name", self.model)),
            "fingerprint": enc.fingerprint,
            "index": self.index,
            "size": len(self),
            "dim": int(self._faiss.d),
            "hnsw_m": self.hnsw_m,
            "ef_search": self.ef_search,
            "nprobe": self.nprobe,
            "values": None if self._rule is None else self._rule.kind,
        }
        write_index_files(folder, self._faiss, self.names_, meta)
        return folder

    @classmethod
    def load(cls, folder: str | os.PathLike, model: Any = None) -> EntityIndex:
        """Load a saved index.

        ``meta.json`` is validated and the model's fingerprint compared with the recorded
        one *before* any model is loaded. Without ``model``, only a model installed with
        pearl (:data:`~pearl.encoders.KNOWN_MODELS`) named in ``meta.json`` is loaded: an
        index never loads a folder it names (see ``docs/security.md``).

        Parameters
        ----------
        folder : path-like
        model : str or encoder, optional
            Defaults to the installed model named in the folder. A model whose fingerprint
            differs from the recorded one is refused (its vectors would not match).

        Raises
        ------
        FileNotFoundError
            No ``meta.json``.
        OSError
            A corrupt, partial or inconsistent folder.
        ValueError
            The model does not match the one the index was built with, or no model is given
            and the recorded one is not installed with pearl.
        """
        folder = Path(folder)
        meta_path = folder / "meta.json"
        if not meta_path.is_file():
            raise FileNotFoundError(f"{folder} is not a pearl index (no meta.json)")
        meta = read_meta(meta_path)
        if model is None and meta["model"].lower() not in _INSTALLED:
            raise ValueError(
                f"the index {folder} was built with the model {meta['model']!r}, which is "
                "not a model installed with pearl; an index never loads a model folder it "
                "names. Pass the model explicitly (model= or -m) if you have it and trust "
                "it."
            )
        source = model if model is not None else meta["model"]
        expected = expected_fingerprint(source)
        if expected is not None and expected != meta["fingerprint"]:
            raise ValueError(model_mismatch(folder, meta, expected))
        names, raw = read_index_files(folder, meta)
        obj = cls(
            model=source,
            index=meta["index"],
            hnsw_m=meta["hnsw_m"],
            ef_search=meta["ef_search"],
            nprobe=meta["nprobe"],
        )
        fingerprint = obj.encoder.fingerprint
        if fingerprint != meta["fingerprint"]:
            raise ValueError(model_mismatch(folder, meta, fingerprint))
        if obj.encoder.embedding_dim != meta["dim"]:
            raise ValueError(
                f"index {folder} holds {meta['dim']}-d vectors; the model "
                f"makes {obj.encoder.embedding_dim}-d ones"
            )
        check_vectors(raw, folder)
        obj._faiss, obj.names_ = raw, names
        if meta.get("values") is not None:  # an index of codes, numbers or dates
            from pearl.tables.comparisons import ValueRule

            obj._rule = ValueRule(meta["values"])
        return obj
