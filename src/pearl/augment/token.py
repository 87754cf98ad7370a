"""Token-level augmentation: word order and synonyms (WordNet, GloVe neighbours)."""

from __future__ import annotations

import random

import numpy as np

__all__ = ["swap_tokens", "WordNetSynonyms", "GloveSynonyms"]

_STOP = {
    "the",
    "a",
    "an",
    "of",
    "in",
    "on",
    "at",
    "to",
    "for",
    "and",
    "or",
    "by",
    "with",
    "from",
    "is",
    "are",
    "was",
    "be",
    "it",
    "this",
    "that",
    "as",
}


def swap_tokens(phrase: str, rng: random.Random) -> str:
    """Swap two adjacent tokens ("New York Times" -> "York New Times")."""
    toks = phrase.split()
    if len(toks) < 2:
        return phrase
    i = rng.randrange(len(toks) - 1)
    toks[i], toks[i + 1] = toks[i + 1], toks[i]
    return " ".join(toks)


def _match_case(word: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    if like[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


class WordNetSynonyms:
    """Replace one content word by a WordNet synonym ("big house" -> "large house").

    Parameters
    ----------
    wordnet_dir : str, optional
        WordNet database folder (default: the shared lexicon).
    senses : int, default=1
        Synonyms come from the word's first ``senses`` synsets (WordNet orders them by
        frequency).
    """

    def __init__(self, wordnet_dir: str | None = None, senses: int = 1) -> None:
        from pearl.augment.wordnet import load_wordnet

        self.wn = load_wordnet(wordnet_dir)
        self.senses = senses
        self._cache: dict[str, list[str]] = {}

    def synonyms(self, word: str) -> list[str]:
        """Other lemmas of the word's most frequent sense (at most two tokens each)."""
        key = word.lower()
        if key not in self._cache:
            synsets = self.wn.synsets(key)[: self.senses]
            names = {lem.name().replace("_", " ") for s in synsets for lem in s.lemmas()}
            self._cache[key] = sorted(n for n in names if n.lower() != key and len(n.split()) <= 2)
        return self._cache[key]

    def __call__(self, phrase: str, rng: random.Random) -> str:
        toks = phrase.split()
        # capitalised words are mostly names: "Times" in "The New York Times" is no metre
        options = [
            i
            for i, t in enumerate(toks)
            if t.lower() not in _STOP and t.isalpha() and t.islower() and self.synonyms(t)
        ]
        if not options:
            return phrase
        i = rng.choice(options)
        toks[i] = _match_case(rng.choice(self.synonyms(toks[i])), toks[i])
        return " ".join(toks)


class GloveSynonyms:
    """Replace one word by a GloVe nearest neighbour above a cosine threshold.

    Parameters
    ----------
    threshold : float, default=0.8
        Minimum cosine similarity of a replacement.
    vocab_size : int, default=50000
        Neighbours are searched among the most frequent words of GloVe.
    k : int, default=5
        Candidate neighbours per word.
    glove : GloveEncoder, optional
        Defaults to the packaged GloVe 6B 50-d.
    keep_names : bool, default=False
        Leave capitalised words alone, as :class:`WordNetSynonyms` does. GloVe 6B is
        lower-cased, so a name's token is otherwise replaced by a neighbour of the common
        word ("Victoria Falls" -> "Victoria Rises"), a false positive pair. False keeps the
        behaviour the shipped pearl-minilm was trained with.

    Notes
    -----
    Distributional neighbours include related words that are not synonyms
    (antonyms, co-hyponyms); the threshold trades coverage for precision.
    """

    def __init__(
        self,
        threshold: float = 0.8,
        vocab_size: int = 50_000,
        top_k: int = 5,
        glove=None,
        keep_names: bool = False,
    ) -> None:
        from pearl.encoders.base import normalize_rows
        from pearl.encoders.glove import GloveEncoder

        self.threshold, self.top_k = threshold, top_k
        self.keep_names = keep_names
        g = glove or GloveEncoder()
        words = sorted(g.index, key=g.index.__getitem__)[:vocab_size]
        self.words = [w for w in words if w.isalpha()]
        self.lookup = {w: i for i, w in enumerate(self.words)}
        self.vectors = normalize_rows(np.asarray(g.vectors[[g.index[w] for w in self.words]]))
        self._cache: dict[str, list[str]] = {}

    def neighbours(self, word: str) -> list[str]:
        key = word.lower()
        if key not in self._cache:
            i = self.lookup.get(key)
            if i is None or key in _STOP:
                self._cache[key] = []
            else:
                sims = self.vectors @ self.vectors[i]
                top = np.argsort(-sims)[1 : self.top_k + 1]
                self._cache[key] = [self.words[j] for j in top if sims[j] >= self.threshold]
        return self._cache[key]

    def __call__(self, phrase: str, rng: random.Random) -> str:
        toks = phrase.split()
        options = [
            i
            for i, t in enumerate(toks)
            if not (self.keep_names and t[:1].isupper()) and self.neighbours(t)
        ]
        if not options:
            return phrase
        i = rng.choice(options)
        toks[i] = _match_case(rng.choice(self.neighbours(toks[i])), toks[i])
        return " ".join(toks)
