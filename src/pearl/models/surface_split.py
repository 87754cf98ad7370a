"""Joined and web-address forms of a name, split before a WordPiece tokenizer reads them.

An uncased WordPiece model reads "NYTimes" and "nytimes.com" as ``ny ##time ##s`` (and
``. com``), pieces far from the ``ny times`` of "NY Times": the shipped pearl-minilm puts
NYTimes (.638) and nytimes.com (.744) below New York Post (.763) for "The New York Times",
the paper's Figure 1 (issue 49). :func:`split_surface` rewrites such forms into the words
they join, and :class:`SurfaceSplitTransformer` applies it to every input before
tokenising, as the first module of a model folder (:func:`add_surface_split`). No weights
change; the strict loader opens the folder (nothing in it runs code).
"""

from __future__ import annotations

import re
from typing import Any

from pearl.models.strict_transformer import StrictTransformer

__all__ = ["SurfaceSplitTransformer", "split_surface", "add_surface_split"]

#: A whole input that is a web address: optional scheme and "www.", dot-separated labels
#: ending in a lower-case top-level domain of :data:`TOP_LEVEL`, an optional trailing slash
#: ("St.Louis", "J.Smith", "Node.js" and "ASP.NET" are not addresses).
_ADDRESS = re.compile(r"^(?:https?://)?(?:www\.)?((?:[A-Za-z0-9-]+\.)+)([a-z]{2,4})/?$")
#: The top-level domains :func:`split_surface` reads as such: the common generic ones and
#: the country codes of the largest web communities.
TOP_LEVEL = frozenset(
    "com org net edu gov mil int info biz io co ai app dev tv me eu uk us ca au nz ie de fr "
    "it es pt nl be ch at se no dk fi pl cz ru ua jp cn kr in br mx ar za sg hk tw il tr gr "
    "hu ro".split()
)
#: Second-level labels of country domains ("bbc.co.uk" is bbc's).
_SECOND_LEVEL = frozenset({"co", "com", "org", "net", "ac", "gov", "edu"})
#: A case change inside a word: two lower-case letters then a capital ("WashingtonPost"),
#: or two capitals then a capital and a lower-case letter ("NYTimes"); "iPhone", "eBay"
#: and "McDonald" stay whole.
_CAMEL = re.compile(r"(?<=[a-z]{2})(?=[A-Z][a-zA-Z])|(?<=[A-Z]{2})(?=[A-Z][a-z])")
#: The shortest host name :func:`split_surface` tries to split in two, and the shortest part.
MIN_SPLIT, MIN_PART = 5, 2


def _host(text: str) -> str | None:
    """The name of a web address's host ("nytimes" of "https://www.nytimes.com"), or
    None when ``text`` is not a web address."""
    m = _ADDRESS.match(text)
    if not m or m.group(2) not in TOP_LEVEL:
        return None
    labels = m.group(1).rstrip(".").split(".")
    if len(labels) >= 2 and labels[-1].lower() in _SECOND_LEVEL:
        labels = labels[:-1]
    return labels[-1] or None


def _split_word(word: str, vocabulary: frozenset[str]) -> str:
    """``word`` as two words of ``vocabulary`` ("nytimes" -> "ny times", the longest
    first part), when it has at least :data:`MIN_SPLIT` letters, is not itself a word
    of the vocabulary, and such a split exists; else ``word`` unchanged."""
    low = word.lower()
    if len(low) < MIN_SPLIT or not low.isalpha() or not low.isascii() or low in vocabulary:
        return word
    for i in range(len(low) - MIN_PART, MIN_PART - 1, -1):
        if low[:i] in vocabulary and low[i:] in vocabulary:
            return f"{low[:i]} {low[i:]}"
    return word


def split_surface(text: str, vocabulary: frozenset[str] = frozenset()) -> str:
    """``text`` with joined and web-address forms split into their words.

    1. A web address keeps its host's name, split into two words of ``vocabulary`` when
       it is not one itself, has at least :data:`MIN_SPLIT` ASCII letters and such a
       split exists (each part of at least :data:`MIN_PART` letters, the longest first
       part): ``nytimes.com``, ``www.nytimes.com``, ``https://nytimes.com/`` -> ``ny
       times``. Other words are never split this way: a misspelt or rare name ("Kinyarwanda")
       would be cut into unrelated words (issue 49's candidate (f) measured the cost).
    2. Case changes inside a word are split, two letters at least on each side:
       ``NYTimes`` -> ``NY Times``, ``WashingtonPost`` -> ``Washington Post`` (``iPhone``
       and ``eBay`` stay).

    Parameters
    ----------
    text : str
    vocabulary : frozenset of str, default=frozenset()
        Whole words (lower case), e.g. a WordPiece tokenizer's pieces that start a word.

    Returns
    -------
    str
        The rewritten text (whitespace runs become single spaces where anything changed;
        ``text`` itself when nothing did).
    """
    host = _host(text.strip())
    if host is not None:
        rewritten = " ".join(_split_word(w, vocabulary) for w in _CAMEL.sub(" ", host).split())
    else:
        rewritten = " ".join(_CAMEL.sub(" ", w) for w in text.split())
    return text if rewritten == " ".join(text.split()) else rewritten


def _vocabulary(tokenizer: Any) -> frozenset[str]:
    """The whole words of a tokenizer's vocabulary: alphabetic pieces of two letters or
    more that start a word (WordPiece continuations begin with ``##``)."""
    return frozenset(w for w in tokenizer.get_vocab() if len(w) >= MIN_PART and w.isalpha())


class SurfaceSplitTransformer(StrictTransformer):
    """``Transformer`` that rewrites each input with :func:`split_surface` (its
    tokenizer's whole words as the vocabulary) before tokenising. Saved and loaded like
    its parent: the rewriting has no state of its own."""

    def preprocess(self, inputs, prompt: str | None = None, **kwargs) -> dict[str, Any]:
        if inputs and all(isinstance(t, str) for t in inputs):
            vocabulary = getattr(self, "_surface_vocabulary", None)
            if vocabulary is None:
                vocabulary = self._surface_vocabulary = _vocabulary(self.tokenizer)
            inputs = [split_surface(t, vocabulary) for t in inputs]
        return super().preprocess(inputs, prompt=prompt, **kwargs)


def add_surface_split(model):
    """``model`` with its first module rewriting joined and web-address forms
    (:class:`SurfaceSplitTransformer`); the other modules unchanged.

    Parameters
    ----------
    model : sentence_transformers.SentenceTransformer
        A model whose first module is a plain sentence-transformers ``Transformer`` (or
        pearl's strict one); left unchanged (the result holds copies of its modules).

    Returns
    -------
    sentence_transformers.SentenceTransformer
        Saved with ``save`` (or :func:`pearl.training.saving.save_model`) as a folder the
        strict loader opens.

    Raises
    ------
    ValueError
        When the first module is not a plain ``Transformer`` (already a splitter, or a
        :class:`~pearl.models.raw_text.RawTextTransformer` whose raw text would bypass it).
    """
    import copy

    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Transformer

    from pearl.models.raw_text import RawTextTransformer

    modules = list(model)
    first = modules[0] if modules else None
    if not isinstance(first, Transformer) or isinstance(
        first, (SurfaceSplitTransformer, RawTextTransformer)
    ):
        raise ValueError(
            "add_surface_split needs a model whose first module is a plain Transformer"
        )
    modules = copy.deepcopy(modules)
    # the subclass adds no state: it only rewrites the inputs before tokenising
    modules[0].__class__ = SurfaceSplitTransformer
    return SentenceTransformer(modules=modules, device="cpu")
