"""Phrase-level augmentation: paraphrases that are lexically different from the phrase.

No paraphrase generator exists offline, so :class:`Paraphraser` is an interface with
offline implementations, and :class:`Seq2SeqParaphraser` plugs in a Hugging Face seq2seq
model where a hub (or a local copy) is available.
"""

from __future__ import annotations

import random
import re
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = [
    "Paraphraser",
    "WordNetParaphraser",
    "AcronymParaphraser",
    "MinedParaphraser",
    "Seq2SeqParaphraser",
]


@runtime_checkable
class Paraphraser(Protocol):
    """Anything that maps a phrase to a paraphrase, or None when it has none."""

    def __call__(self, phrase: str, rng: random.Random) -> str | None: ...


class WordNetParaphraser:
    """Synonyms of the whole (multi-word) expression from WordNet.

    "United States" -> "USA", "heart attack" -> "coronary", "New York" -> "Big Apple"
    (only where WordNet lists the expression itself).
    """

    def __init__(self, wordnet_dir: str | None = None) -> None:
        from pearl.augment.wordnet import load_wordnet

        self.wn = load_wordnet(wordnet_dir)

    def options(self, phrase: str) -> list[str]:
        key = "_".join(phrase.split())
        names = {
            lem.name().replace("_", " ") for s in self.wn.synsets(key)[:2] for lem in s.lemmas()
        }
        return sorted(n for n in names if n.lower() != phrase.lower())

    def __call__(self, phrase: str, rng: random.Random) -> str | None:
        opts = self.options(phrase)
        return rng.choice(opts) if opts else None


_SMALL = {"the", "of", "and", "for", "a", "an", "in", "on", "at", "to", "de", "la", "&"}
ABBREVIATIONS = {
    "company": "Co.",
    "corporation": "Corp.",
    "incorporated": "Inc.",
    "limited": "Ltd.",
    "international": "Intl",
    "university": "Univ.",
    "department": "Dept.",
    "association": "Assn.",
    "street": "St.",
    "avenue": "Ave.",
    "road": "Rd.",
    "saint": "St.",
    "mount": "Mt.",
    "national": "Natl",
    "government": "Govt",
    "institute": "Inst.",
    "technology": "Tech",
    "brothers": "Bros.",
    "and": "&",
    "united states": "US",
    "united kingdom": "UK",
    "new york": "NY",
    "los angeles": "LA",
    "doctor": "Dr.",
    "professor": "Prof.",
    "junior": "Jr.",
    "senior": "Sr.",
    "september": "Sept.",
    "january": "Jan.",
    "february": "Feb.",
    "august": "Aug.",
    "october": "Oct.",
    "november": "Nov.",
    "december": "Dec.",
    "number": "No.",
}


class AcronymParaphraser:
    """Acronym and abbreviation forms: "The New York Times" -> "NYT", "NYTimes",
    "NY Times"; "General Electric Company" -> "GE", "General Electric Co."."""

    def options(self, phrase: str) -> list[str]:
        toks = phrase.split()
        content = [t for t in toks if t.lower() not in _SMALL]
        out = set()
        if len(content) >= 2 and all(t[:1].isupper() for t in content):  # names only
            initials = "".join(t[0].upper() for t in content)
            out.add(initials)
            out.add("".join(t[0].upper() for t in content[:-1]) + content[-1])
        low = " ".join(toks).lower()
        for long, short in ABBREVIATIONS.items():
            m = re.search(rf"\b{re.escape(long)}\b", low)
            if m:
                # keep the original casing around the replaced part
                joined = " ".join(toks)
                out.add(joined[: m.start()] + short + joined[m.end() :])
        if toks and toks[0].lower() == "the" and len(toks) > 1:
            out |= {o[4:] for o in out if o.lower().startswith("the ")}
        return sorted(o for o in out if o and o.lower() != phrase.lower() and len(o) > 1)

    def __call__(self, phrase: str, rng: random.Random) -> str | None:
        opts = self.options(phrase)
        return rng.choice(opts) if opts else None


def token_overlap(a: str, b: str) -> float:
    """Jaccard overlap of lower-cased token sets."""
    x, y = set(a.lower().split()), set(b.lower().split())
    return len(x & y) / len(x | y) if x | y else 1.0


class MinedParaphraser:
    """Near-paraphrases mined from a phrase list by an encoder: pairs of high cosine
    similarity and low token overlap ("purchase agreement" ~ "sales contract").

    Parameters
    ----------
    encoder : Encoder
        The backbone that judges similarity.
    min_cosine : float, default=0.8
    max_overlap : float, default=0.34
        Maximum Jaccard overlap of the token sets.
    top_k : int, default=10
        Neighbours examined per phrase.

    Call :meth:`fit` with the phrase list first.
    """

    def __init__(
        self,
        encoder,
        min_cosine: float = 0.8,
        max_overlap: float = 0.34,
        top_k: int = 10,
        batch_size: int = 64,
    ) -> None:
        self.encoder = encoder
        self.min_cosine, self.max_overlap, self.top_k = min_cosine, max_overlap, top_k
        self.batch_size = batch_size
        self.table_: dict[str, list[str]] = {}

    def fit(
        self, phrases: list[str], show_progress_bar: bool = True, cache=None
    ) -> MinedParaphraser:
        """Mine the table of paraphrases among ``phrases`` (``cache``: an optional
        :class:`~pearl.encoders.EmbeddingCache` of the same encoder to reuse)."""
        import faiss

        from pearl.encoders.base import normalize_rows

        phrases = list(dict.fromkeys(phrases))
        raw = (
            cache(phrases, show_progress_bar=show_progress_bar)
            if cache is not None
            else self.encoder.encode(
                phrases, batch_size=self.batch_size, show_progress_bar=show_progress_bar
            )
        )
        emb = normalize_rows(raw)
        index = faiss.IndexHNSWFlat(emb.shape[1], 32, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efSearch = max(64, 2 * self.top_k)
        index.add(emb)
        scores, ids = index.search(emb, self.top_k + 1)
        table: dict[str, list[str]] = {}
        for i, (row_s, row_i) in enumerate(zip(scores, ids, strict=True)):
            good = [
                phrases[j]
                for s, j in zip(row_s, row_i, strict=True)
                if j >= 0
                and j != i
                and s >= self.min_cosine
                and token_overlap(phrases[i], phrases[j]) <= self.max_overlap
            ]
            if good:
                table[phrases[i]] = good
        self.table_ = table
        return self

    def __call__(self, phrase: str, rng: random.Random) -> str | None:
        opts = self.table_.get(phrase)
        return rng.choice(opts) if opts else None


class Seq2SeqParaphraser:
    """A Hugging Face seq2seq paraphrase model (e.g. a T5 paraphraser, as in the paper).

    Loaded lazily on first use; it needs a reachable hub or a local folder, so no pearl
    default uses it offline.
    """

    def __init__(
        self,
        model: str,
        prefix: str = "paraphrase: ",
        num_beams: int = 4,
        max_new_tokens: int = 32,
        device: str = "cpu",
    ) -> None:
        self.model_name, self.prefix = model, prefix
        self.num_beams, self.max_new_tokens, self.device = num_beams, max_new_tokens, device
        self._model: Any = None
        self._tok: Any = None

    def _load(self) -> None:
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        try:
            self._tok = AutoTokenizer.from_pretrained(self.model_name)
            self._model = (
                AutoModelForSeq2SeqLM.from_pretrained(self.model_name).to(self.device).eval()
            )
        except OSError as exc:
            raise OSError(
                f"paraphrase model {self.model_name!r} is not available offline; "
                "use WordNetParaphraser, AcronymParaphraser or MinedParaphraser"
            ) from exc

    def __call__(self, phrase: str, rng: random.Random) -> str | None:
        import torch

        if self._model is None:
            self._load()
        torch.manual_seed(rng.randrange(2**31))
        inputs = self._tok(self.prefix + phrase, return_tensors="pt").to(self.device)
        with torch.no_grad():
            out = self._model.generate(
                **inputs,
                num_beams=self.num_beams,
                num_return_sequences=self.num_beams,
                max_new_tokens=self.max_new_tokens,
            )
        cands = [c.strip() for c in self._tok.batch_decode(out, skip_special_tokens=True)]
        cands = [c for c in cands if c and c.lower() != phrase.lower()]
        return cands[int(np.argmin([token_overlap(phrase, c) for c in cands]))] if cands else None
