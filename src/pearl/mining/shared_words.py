"""Word-sharing negatives: names of other alias groups that share words with a group's name
("The New York Post" for "The New York Times"), the non-matches a name matcher confuses
most after near-spellings. :func:`pearl.augment.names.as_pairs` turns them into labelled
non-matching pairs, which ``pearl finetune`` batches beside the group they differ from."""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterable

import pandas as pd

__all__ = ["content_words", "shared_word_negatives", "corpus_word_negatives", "NAME_TYPES"]

#: Words that never make two names share a word (articles, prepositions, conjunctions).
STOPWORDS = frozenset(
    "a an and at by de del der des di du en for from in la le les of on or the to van von y".split()
)
_WORD = re.compile(r"[^\W\d_]{2,}")
#: the entity types whose phrases are names (of an organisation, a place, a person, a work...)
NAME_TYPES = frozenset("EVENT FAC GPE LANGUAGE LAW LOC NORP ORG PERSON PRODUCT WORK_OF_ART".split())


def content_words(text: str) -> frozenset[str]:
    """The case-folded alphabetic words of ``text`` (two letters or more), stopwords aside."""
    return frozenset(w for w in _WORD.findall(text.casefold()) if w not in STOPWORDS)


def shared_word_negatives(
    groups: pd.DataFrame,
    per_name: int = 2,
    *,
    max_groups_per_word: int = 1000,
    exclude: Iterable[str] = (),
    seed: int = 0,
) -> dict[str, list[str]]:
    """For the name of each alias group (its first member), the names of other groups that
    share the most content words with it.

    Two names are candidates only when each has a content word the other lacks: "New York
    Post" is a negative of "The New York Times", but "New York" (all of whose words the
    other holds, perhaps the same entity named shorter) is not. Words held by more than
    ``max_groups_per_word`` groups ("company", "university") do not count.

    Parameters
    ----------
    groups : DataFrame
        ``text, group, source`` rows of :func:`pearl.augment.names.alias_groups`.
    per_name : int, default=2
        Negatives per group, drawn (seeded) among the candidates sharing the most words.
    max_groups_per_word : int, default=1000
    exclude : iterable of str
        Strings never to return (evaluation data), compared case-insensitively.
    seed : int, default=0

    Returns
    -------
    dict
        Group name -> its negatives (groups without any are left out), the format of
        :func:`pearl.mining.hard_negatives.read_hard_negatives`.
    """
    if per_name < 0:
        raise ValueError(f"per_name must be >= 0, got {per_name}")
    rng = random.Random(seed)
    banned = {s.casefold() for s in exclude}
    names = groups.groupby("group", sort=True)["text"].first()
    words = {g: content_words(t) for g, t in names.items()}
    holders: dict[str, list] = defaultdict(list)
    for g, ws in words.items():
        for w in ws:
            holders[w].append(g)
    out: dict[str, list[str]] = {}
    for g, ws in words.items():
        shared = Counter(
            h for w in ws if len(holders[w]) <= max_groups_per_word for h in holders[w] if h != g
        )
        options = [
            h
            for h in sorted(shared)
            if words[h] - ws and ws - words[h] and names[h].casefold() not in banned
        ]
        if not options or not per_name:
            continue
        most = max(shared[h] for h in options)
        best = [h for h in options if shared[h] == most]
        out[names[g]] = [names[h] for h in rng.sample(best, min(per_name, len(best)))]
    return out


def corpus_word_negatives(
    rows: Iterable,
    per_name: int = 2,
    *,
    max_groups_per_word: int = 200,
    exclude: Iterable[str] = (),
    seed: int = 0,
) -> dict[str, list[str]]:
    """:func:`shared_word_negatives` of a corpus's names: each phrase typed as a name
    (:data:`NAME_TYPES`) its own entity, its negatives the other names sharing the most
    content words with it ("New York Post" for "The New York Times"), for ``pearl train``'s
    word-negatives loss (``pearl mine --shared-words``).

    Parameters
    ----------
    rows : iterable of PhraseRecord
        :func:`pearl.data.corpus.read_corpus`'s rows.
    per_name : int, default=2
    max_groups_per_word : int, default=200
        Words held by more names do not count (and would make the search quadratic).
    exclude : iterable of str
        Strings (evaluation data) neither given negatives nor returned as one, compared
        case-insensitively.
    seed : int, default=0

    Returns
    -------
    dict
        Name -> its negatives (names without any are left out).
    """
    banned = {s.casefold() for s in exclude}
    names = sorted(
        {
            r.phrase
            for r in rows
            if r.label.rsplit("-", 1)[-1] in NAME_TYPES and r.phrase.casefold() not in banned
        }
    )
    frame = pd.DataFrame({"text": names, "group": range(len(names))})
    return shared_word_negatives(
        frame, per_name, max_groups_per_word=max_groups_per_word, seed=seed
    )
