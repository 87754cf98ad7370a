"""A phrase-based neural topic model (PNTM; Phrase-BERT, section 6).

Documents are embedded by a phrase encoder (the mean of the embeddings of their chunks of
``chunk_words`` words, normalised). A topic is a row of a K x d matrix R; a document's
topic distribution is ``t = softmax(R x)`` and its reconstruction ``x~ = R^T t``. R is
trained with the contrastive hinge loss of eq. (2), ``sum_i max(0, 1 - x~ . x + x~ . z_i)``
over N randomly drawn other documents z_i (the form of Iyyer et al., 2016, which eq. (2)
follows; as printed it has ``x . z_i``, which does not depend on R), plus the orthogonality
penalty ``||R_n R_n^T - I||`` on R with unit rows (as Iyyer et al.). A topic is described
by its nearest words and phrases of a vocabulary, so descriptions mix both.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from pearl._io import not_decodable
from pearl._validation import check_float, check_int
from pearl._warnings import warn_user
from pearl.encoders import DEFAULT_MODEL
from pearl.encoders.base import normalize_rows
from pearl.tables.encoding import HeldModel

__all__ = ["PhraseTopicModel", "document_vocabulary", "read_documents", "write_topics"]

_WORD = re.compile(r"\w[\w'-]*")


def _chunks(doc: str, words: int) -> list[str]:
    toks = doc.split()
    return [" ".join(toks[i : i + words]) for i in range(0, max(len(toks), 1), words)] or [""]


def document_vocabulary(
    documents: list[str],
    min_df: int = 5,
    max_terms: int = 20_000,
    ngram_range: tuple[int, int] = (1, 3),
) -> list[str]:
    """Words and phrases to describe topics with: the word n-grams found in at least
    ``min_df`` documents, without English stopwords at their edges, most frequent first.

    Raises
    ------
    ValueError
        ``min_df`` above the number of documents, or no term left (pearl's message, not
        scikit-learn's).
    """
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer

    min_df = check_int(min_df, "min_df", 1)
    if min_df > len(documents):
        raise ValueError(
            f"min_df={min_df}: a term must occur in {min_df} documents, but there are "
            f"{len(documents)}; lower min_df (--min-df)"
        )
    vec = CountVectorizer(
        ngram_range=ngram_range, min_df=min_df, token_pattern=_WORD.pattern, lowercase=True
    )
    try:
        counts = vec.fit_transform(documents)
    except ValueError:  # scikit-learn's "empty vocabulary; perhaps ... stop words"
        counts = None
    if counts is None or not counts.shape[1]:
        raise ValueError(_NO_TERMS.format(min_df=min_df))
    terms = vec.get_feature_names_out()
    df = np.asarray((counts > 0).sum(0)).ravel()
    keep = [
        i
        for i in np.argsort(-df, kind="stable")
        if not (
            terms[i].split()[0] in ENGLISH_STOP_WORDS or terms[i].split()[-1] in ENGLISH_STOP_WORDS
        )
        and not terms[i].replace(" ", "").isdigit()
    ]
    if not keep:
        raise ValueError(_NO_TERMS.format(min_df=min_df))
    return [str(terms[i]) for i in keep[:max_terms]]


_NO_TERMS = (
    "no word or phrase (other than stopwords and numbers) occurs in at least min_df={min_df} "
    "documents: there is nothing to describe the topics with; lower min_df (--min-df) or "
    "give more documents"
)


class PhraseTopicModel(HeldModel, TransformerMixin, BaseEstimator):
    """Topics as mixtures of words and phrases (scikit-learn conventions).

    Parameters
    ----------
    n_topics : int, default=20
    model : str or encoder, default=DEFAULT_MODEL
    negatives : int, default=5
        Negative documents per document in the hinge loss (N of eq. 2).
    ortho_weight : float, default=1.0
        Weight of the orthogonality penalty.
    epochs : int, default=30
    batch_size : int, default=128
    lr : float, default=0.01
    chunk_words : int, default=32
        Documents are embedded as the mean of their chunks of this many words.
    n_terms : int, default=10
        Terms per topic description.
    seed : int, default=0
    show_progress_bar : bool, default=False

    Attributes
    ----------
    topic_matrix_ : ndarray (n_topics, dim)
        The topic embeddings R.
    components_ : ndarray (n_topics, dim)
        R with unit rows (what topic descriptions are computed from).
    topics_ : list of list of str
        Each topic's nearest terms (after :meth:`fit` with a vocabulary, or
        :meth:`describe`).
    loss_ : list of float
        Mean loss per epoch.
    """

    def __init__(
        self,
        n_topics: int = 20,
        *,
        model: Any = DEFAULT_MODEL,
        negatives: int = 5,
        ortho_weight: float = 1.0,
        epochs: int = 30,
        batch_size: int = 128,
        lr: float = 0.01,
        chunk_words: int = 32,
        n_terms: int = 10,
        seed: int = 0,
        show_progress_bar: bool = False,
    ):
        self.n_topics = n_topics
        self.model = model
        self.negatives = negatives
        self.ortho_weight = ortho_weight
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr
        self.chunk_words = chunk_words
        self.n_terms = n_terms
        self.seed = seed
        self.show_progress_bar = show_progress_bar

    def embed_documents(self, documents) -> np.ndarray:
        """Unit document vectors: the mean of the embeddings of each document's chunks."""
        docs = [str(d) for d in documents]
        pieces = [_chunks(d, self.chunk_words) for d in docs]
        flat = [c for p in pieces for c in p]
        emb = normalize_rows(self._embeddings()(flat, show_progress_bar=self.show_progress_bar))
        owner = np.repeat(np.arange(len(docs)), [len(p) for p in pieces])
        out = np.zeros((len(docs), emb.shape[1]), dtype=np.float32)
        np.add.at(out, owner, emb)
        return normalize_rows(out)

    def fit(self, documents, y=None, vocabulary: list[str] | None = None):
        """Learn the topic matrix from ``documents`` (an iterable of strings); with a
        ``vocabulary``, describe the topics by it.

        Raises
        ------
        ValueError
            Fewer than two documents, or more topics than documents (more topics than
            *distinct* documents is a ``UserWarning``).
        """
        k = check_int(self.n_topics, "n_topics", 1)
        n_neg = check_int(self.negatives, "negatives", 1)
        epochs = check_int(self.epochs, "epochs", 1)
        batch = check_int(self.batch_size, "batch_size", 1)
        check_float(self.lr, "lr", 0.0)
        check_float(self.ortho_weight, "ortho_weight", 0.0)
        docs = [str(d) for d in documents]
        if len(docs) < 2:
            raise ValueError("a topic model needs at least two documents")
        _check_topic_count(k, docs)
        import torch  # only to train: a bad option or file is reported without it
        from tqdm.auto import tqdm

        x_all = self.embed_documents(docs)
        gen = torch.Generator().manual_seed(self.seed)
        x = torch.from_numpy(x_all)
        # start from documents drawn at random (rows of the data, as in k-means++ seeding)
        start = x[torch.randperm(len(x), generator=gen)[: min(k, len(x))]]
        if len(start) < k:
            start = torch.cat([start, torch.randn(k - len(start), x.shape[1], generator=gen)])
        r = torch.nn.Parameter(start.clone() + 0.01 * torch.randn(start.shape, generator=gen))
        opt = torch.optim.Adam([r], lr=self.lr)
        eye = torch.eye(k)
        self.loss_ = []
        for _ in tqdm(
            range(epochs), desc="topics", unit="epoch", disable=not self.show_progress_bar
        ):
            order = torch.randperm(len(x), generator=gen)
            total = 0.0
            for s in range(0, len(x), batch):
                xb = x[order[s : s + batch]]
                z = x[torch.randint(0, len(x), (len(xb), n_neg), generator=gen)]
                rn = torch.nn.functional.normalize(r, dim=1)
                t = torch.softmax(xb @ r.T, dim=1)
                recon = t @ r
                hinge = (
                    torch.relu(
                        1 - (recon * xb).sum(1, keepdim=True) + torch.einsum("bd,bnd->bn", recon, z)
                    )
                    .sum(1)
                    .mean()
                )
                ortho = torch.linalg.norm(rn @ rn.T - eye)
                loss = hinge + self.ortho_weight * ortho
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += loss.item() * len(xb)
            self.loss_.append(total / len(x))
        self.topic_matrix_ = r.detach().numpy().copy()
        self.components_ = torch.nn.functional.normalize(r.detach(), dim=1).numpy()
        self.n_features_in_ = 1
        if vocabulary is not None:
            self.describe(vocabulary)
        return self

    def transform(self, documents) -> np.ndarray:
        """Each document's topic distribution, shape (n_documents, n_topics)."""
        check_is_fitted(self, "components_")
        logits = self.embed_documents(documents) @ self.topic_matrix_.T
        logits -= logits.max(1, keepdims=True)
        p = np.exp(logits)
        return (p / p.sum(1, keepdims=True)).astype(np.float32)

    def describe(self, vocabulary: list[str]) -> list[list[str]]:
        """Each topic's ``n_terms`` nearest terms of ``vocabulary`` (``topics_``)."""
        check_is_fitted(self, "components_")
        vocab = list(dict.fromkeys(str(v) for v in vocabulary))
        if not vocab:
            raise ValueError("the vocabulary is empty")
        emb = normalize_rows(self._embeddings()(vocab))
        scores = self.components_ @ emb.T
        n = min(self.n_terms, len(vocab))
        top = np.argsort(-scores, axis=1)[:, :n]
        self.topics_ = [[vocab[j] for j in row] for row in top]
        self.topic_scores_ = np.take_along_axis(scores, top, 1)
        return self.topics_

    def topics_frame(self) -> pd.DataFrame:
        """One row per (topic, rank): topic, rank, term, score."""
        check_is_fitted(self, "topics_")
        return pd.DataFrame(
            [
                {"topic": k, "rank": i + 1, "term": term, "score": float(self.topic_scores_[k, i])}
                for k, terms in enumerate(self.topics_)
                for i, term in enumerate(terms)
            ]
        )


def _check_topic_count(k: int, docs: list[str]) -> None:
    """More topics than documents is an error (as scikit-learn's ``KMeans``); more than
    distinct documents, a warning: the extra topics start at random and describe nothing
    of the data."""
    if k > len(docs):
        raise ValueError(
            f"n_topics={k} is more than the {len(docs)} documents; ask for at most "
            f"{len(docs)} topics (-k)"
        )
    distinct = len(set(docs))
    if k > distinct:
        warn_user(
            f"n_topics={k} but only {distinct} distinct documents: {k - distinct} topic(s) "
            "cannot describe a document of their own",
        )


def read_documents(path, split: str = "lines", encoding: str = "utf-8") -> list[str]:
    """Documents of a text file (decoded strictly with ``encoding``: a byte that does not
    decode is a ``ValueError``, never a replacement character): one per line
    (``split="lines"``) or blocks separated by empty lines (``"blank"``); empty documents
    are dropped."""
    from pathlib import Path

    try:
        text = Path(path).read_text(encoding=encoding)
    except UnicodeError as exc:  # UTF-16 without its byte order mark too
        raise not_decodable(path, encoding, exc, "pass encoding= (--encoding)") from None
    parts = text.splitlines() if split == "lines" else re.split(r"\n\s*\n", text)
    return [" ".join(p.split()) for p in parts if p.strip()]


def write_topics(model: PhraseTopicModel, documents: list[str], output) -> None:
    """``topics.csv`` (topic, rank, term, score), ``document_topics.csv`` (each document's
    distribution), ``topics.md`` (a table a person reads) and ``topics.png`` into the
    folder ``output`` (written whole, atomically; a non-empty folder pearl did not write is
    refused)."""
    from pearl._extras import pyplot

    plt = pyplot("plotting the topics")

    from pearl._io import atomic_dir

    dist = model.transform(documents)
    prevalence = dist.mean(0)
    with atomic_dir(output, replaceable="topics.csv") as tmp:
        model.topics_frame().to_csv(tmp / "topics.csv", index=False)
        frame = pd.DataFrame(dist, columns=[f"topic_{k}" for k in range(dist.shape[1])])
        frame.insert(0, "top_topic", dist.argmax(1))
        frame.insert(0, "document", np.arange(len(documents)))
        frame.to_csv(tmp / "document_topics.csv", index=False)
        lines = ["# Topics", "", "| topic | share of documents | terms |", "|---:|---:|---|"]
        lines += [
            f"| {k} | {prevalence[k]:.1%} | {', '.join(terms)} |"
            for k, terms in enumerate(model.topics_)
        ]
        (tmp / "topics.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        order = np.argsort(-prevalence)
        fig, ax = plt.subplots(figsize=(8, 0.35 * len(order) + 1))
        ax.barh(range(len(order)), prevalence[order][::-1])
        ax.set_yticks(range(len(order)))
        ax.set_yticklabels(
            [f"{k}: {', '.join(model.topics_[k][:3])}" for k in order][::-1], fontsize=7
        )
        ax.set_xlabel("mean topic share over the documents")
        fig.tight_layout()
        fig.savefig(tmp / "topics.png", dpi=110)
        plt.close(fig)
