"""Alias groups: several surface forms of one name, for training with several positives.

The positives of :mod:`pearl.augment.sampler` are one view per phrase. Name matching needs
the forms a name takes in real tables ("The New York Times", "NYTimes", "nytimes.com",
"NYT"), several at a time, which is what the multi-similarity loss of
:func:`pearl.training.finetune.finetune` trains on (SapBERT's recipe for synonyms). Groups
come from four offline sources:

- ``wordnet``: WordNet synsets of proper names with two or more lemmas
  ("The Hague", "Den Haag", "'s Gravenhage");
- ``definition``: acronym definitions found in the corpus text
  (:func:`pearl.data.acronyms.mine_definitions`);
- ``variants``: the corpus phrases typed as names, with their rule-made forms
  (:class:`NameVariants`);
- ``replay``: a sample of the training pairs of ``pearl augment`` as two-member groups, so
  that fine-tuning on names does not forget the rest.

A string belongs to one group only (its first), and strings equal but for case share a
group: the forms of "the New York Times" join the group of "The New York Times". A form
that several names share ("WP" of The Washington Post, West Papua and West Point; "Ford"
of several WordNet synsets) is dropped from every group, so that it never merges them. A group
containing any string of ``exclude`` (evaluation data, compared case-insensitively) is
dropped. :func:`as_pairs` adds mined hard negatives ("The New York Times" is not "The New
Yorker"), which ``pearl finetune`` puts in the same batch as the group they differ from.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from pearl.augment.phrase import _SMALL, AcronymParaphraser

__all__ = [
    "NameVariants",
    "wordnet_alias_groups",
    "alias_groups",
    "as_pairs",
    "NAME_TYPES",
    "build_aliases",
]

#: Entity types (of the corpus labels ``<tag>-<type>``) whose phrases are names.
NAME_TYPES = frozenset(
    {"ORG", "PERSON", "GPE", "LOC", "FAC", "PRODUCT", "WORK_OF_ART", "EVENT", "NORP", "LAW"}
)
_WEB_TYPES = frozenset({"ORG", "PRODUCT", "FAC", "WORK_OF_ART", "EVENT"})
_WORD = re.compile(r"^[A-Za-z][A-Za-z'.-]*$")


class NameVariants:
    """Rule-made surface forms of a typed name.

    - organisations and other names: initials ("NYT"), compact forms ("NYTimes"),
      abbreviations ("Co.", "Intl"), without a leading "The"
      (:class:`~pearl.augment.phrase.AcronymParaphraser`), and web addresses
      ("nytimes.com", "newyorktimes.com") of organisations, products, buildings, works and
      events;
    - people: "J. Smith", "Smith, John", and without middle names;
    - names of two or more words: lower case.

    Parameters
    ----------
    max_variants : int, default=4
        At most this many forms per name (drawn by the caller's random generator).
    """

    def __init__(self, max_variants: int = 4) -> None:
        self.max_variants = max_variants

    def options(self, phrase: str, label: str) -> list[str]:
        """Every form of ``phrase`` (typed ``label``, e.g. ``NP-ORG``), itself excluded."""
        kind = label.split("-", 1)[-1]
        toks = phrase.split()
        if kind not in NAME_TYPES or not toks or not any(t[:1].isupper() for t in toks):
            return []
        out = set()
        if kind == "PERSON":
            if 2 <= len(toks) <= 4 and all(_WORD.match(t) and t[0].isupper() for t in toks):
                first, last = toks[0], toks[-1]
                out |= {f"{first[0]}. {last}", f"{last}, {' '.join(toks[:-1])}"}
                if len(toks) > 2:
                    out.add(f"{first} {last}")
        else:
            out |= set(AcronymParaphraser().options(phrase))
            content = [t for t in toks if t.lower() not in _SMALL]
            if kind in _WEB_TYPES and 1 <= len(content) <= 4 and all(t.isalnum() for t in content):
                out.add("".join(t.lower() for t in content) + ".com")
                if len(content) >= 2:
                    out.add(
                        "".join(t[0].lower() for t in content[:-1]) + content[-1].lower() + ".com"
                    )
        if len(toks) > 1:
            out.add(phrase.lower())
        return sorted(o for o in out if o and o != phrase and len(o) > 1)

    def __call__(self, phrase: str, label: str, rng: random.Random) -> list[str]:
        opts = self.options(phrase, label)
        return rng.sample(opts, min(self.max_variants, len(opts)))


def _banned(exclude: Iterable[str]) -> set[str]:
    """The strings of ``exclude``, stripped and lower-cased (blank ones left out)."""
    return {s.strip().lower() for s in exclude if s and s.strip()}


def wordnet_alias_groups(wordnet_dir=None) -> list[list[str]]:
    """Noun synsets of proper names with two or more lemmas (instances, or all lemmas
    capitalised)."""
    from pearl.augment.wordnet import load_wordnet

    wn = load_wordnet(wordnet_dir)
    groups = []
    for synset in wn.all_synsets("n"):
        names = sorted({lem.name().replace("_", " ") for lem in synset.lemmas()})
        if len(names) < 2:
            continue
        if all(n[:1].isupper() for n in names) or (
            any(n[:1].isupper() for n in names) and synset.instance_hypernyms()
        ):
            groups.append(names)
    return groups


def _ambiguous_forms(candidates: list[tuple[str, list[str]]]) -> set[str]:
    """The forms (case-folded) that several names share ("WP" of The Washington Post, West
    Papua and West Point; "Ford" of several WordNet synsets): grouping them would merge
    every name that has them. A form counts for each candidate holding it, a candidate
    being its name ("The X" and "X" one name) or, for WordNet, its synset; a candidate's
    own name does not count for it."""
    makers: dict[str, set] = {}
    for i, (source, members) in enumerate(candidates):
        if not members:
            continue
        first = members[0].casefold()
        who = ("synset", i) if source == "wordnet" else re.sub(r"^the\s+", "", first)
        for m in members if source == "wordnet" else members[1:]:
            if source == "wordnet" or m.casefold() != first:
                makers.setdefault(m.casefold(), set()).add(who)
    return {form for form, who in makers.items() if len(who) >= 2}


def alias_groups(
    *,
    records=(),
    definitions: Iterable[tuple[str, str]] = (),
    wordnet: Iterable[list[str]] = (),
    replay: Iterable[tuple[str, str]] = (),
    n_replay: int = 0,
    exclude: Iterable[str] = (),
    max_variants: int = 4,
    seed: int = 0,
) -> pd.DataFrame:
    """Assemble alias groups as a table of ``text, group, source`` rows.

    Parameters
    ----------
    records : iterable of PhraseRecord
        The typed corpus (:func:`pearl.data.corpus.read_corpus`); its names get
        :class:`NameVariants`.
    definitions : iterable of (long form, short form)
    wordnet : iterable of list of str
        From :func:`wordnet_alias_groups`.
    replay : iterable of (phrase, positive)
        Training pairs, of which ``n_replay`` (drawn with ``seed``) become groups.
    exclude : iterable of str
        Strings that must not be trained on; a group holding one is dropped.
    max_variants, seed
        Of :class:`NameVariants`, and of every draw.
    """
    rng = random.Random(seed)
    banned = _banned(exclude)
    candidates: list[tuple[str, list[str]]] = []
    candidates += [("wordnet", list(g)) for g in wordnet]
    candidates += [("definition", [long, short]) for long, short in definitions]
    variants = NameVariants(max_variants)
    for rec in records:
        forms = variants(rec.phrase, rec.label, rng)
        if forms:
            candidates.append(("variants", [rec.phrase, *forms]))
    replay = [(a, b) for a, b in replay if a and b and a != b]
    if n_replay and replay:
        candidates += [("replay", list(p)) for p in rng.sample(replay, min(n_replay, len(replay)))]
    candidates = [
        (source, [m.strip() for m in members if isinstance(m, str) and m.strip()])
        for source, members in candidates
    ]
    ambiguous = _ambiguous_forms(candidates)
    group_of: dict[str, int] = {}  # casefolded -> group
    rows, seen, n_groups = [], set(), 0
    for source, members in candidates:
        if any(m.lower() in banned for m in members):
            continue
        members = [m for m in members if m.casefold() not in ambiguous]
        known = [group_of[m.casefold()] for m in members if m.casefold() in group_of]
        members = [m for m in dict.fromkeys(members) if m not in seen]
        if known:  # a form of a string already grouped ("the New York Times"): join it
            group, new = known[0], False
        elif len(members) >= 2:
            group, new = n_groups, True
        else:
            continue
        for m in members:
            group_of.setdefault(m.casefold(), group)
        seen.update(members)
        rows += [(m, group, source) for m in members]
        n_groups += new
    frame = pd.DataFrame(rows, columns=["text", "group", "source"])
    return frame.sort_values("group", kind="stable", ignore_index=True)


def as_pairs(
    frame: pd.DataFrame,
    negatives: dict[str, list[str]] | None = None,
    per_group: int = 2,
    exclude: Iterable[str] = (),
    seed: int = 0,
) -> pd.DataFrame:
    """The groups of :func:`alias_groups` as labelled pairs (``left, right, label,
    source``), the format :func:`pearl.training.finetune.read_labelled` reads.

    Each group gives ``(first member, member, 1)`` for its other members; with
    ``negatives`` (phrase -> hard negatives, from ``pearl mine``), each group also gives up
    to ``per_group`` ``(member, negative, 0)`` rows, for negatives outside the group and
    not in ``exclude``.
    """
    rng = random.Random(seed)
    banned = _banned(exclude)
    group_of = dict(zip(frame["text"], frame["group"], strict=True))
    rows = []
    for group, part in frame.groupby("group", sort=True):
        texts, source = part["text"].tolist(), part["source"].iloc[0]
        rows += [(texts[0], t, 1, source) for t in texts[1:]]
        if not negatives:
            continue
        options = sorted(
            {
                (t, n)
                for t in texts
                for n in negatives.get(t, ())
                if group_of.get(n, -1) != group and n.lower() not in banned
            }
        )
        rows += [
            (t, n, 0, "negative") for t, n in rng.sample(options, min(per_group, len(options)))
        ]
    return pd.DataFrame(rows, columns=["left", "right", "label", "source"])


def build_aliases(
    corpus: str | Path,
    *,
    text: str | Path | None = None,
    wordnet: str | Path | None = None,
    replay: str | Path | None = None,
    negatives: str | Path | None = None,
    exclude: Iterable[str] = (),
    negatives_per_group: int = 2,
    word_negatives: bool = False,
    n_replay: int = 20_000,
    min_definitions: int = 1,
    max_variants: int = 4,
    seed: int = 0,
    show_progress_bar: bool = True,
) -> tuple[pd.DataFrame, dict]:
    """Alias groups for ``pearl finetune`` from the training pipeline's files (what
    ``pearl aliases`` writes).

    Parameters
    ----------
    corpus : path-like
        ``corpus.tsv`` of ``pearl build-corpus`` (its typed names get rule-made forms).
    text : path-like, optional
        Running text to mine acronym definitions from (default ``<data root>/corpus``).
    wordnet : path-like, optional
        WordNet folder (default ``<data root>/lexicon/wordnet``): synsets of proper names.
    replay : path-like, optional
        ``augmented.tsv`` of ``pearl augment``: ``n_replay`` of its pairs are replayed.
    negatives : path-like, optional
        ``hard_negatives.tsv`` of ``pearl mine``: the groups become labelled pairs, with up
        to ``negatives_per_group`` non-matching pairs per group.
    exclude : iterable of str
        Strings never to train on.
    negatives_per_group : int, default=2
    word_negatives : bool, default=False
        Negatives also from the names of other groups that share words with the group's
        name (:func:`pearl.mining.shared_words.shared_word_negatives`: "New York Post" for
        "The New York Times"); the groups become labelled pairs, as with ``negatives``.
    min_definitions : int, default=1
        How often an acronym definition must be seen in the text.
    max_variants : int, default=4
        Rule-made forms per name.
    seed : int, default=0
    show_progress_bar : bool, default=True

    Returns
    -------
    frame : DataFrame
        ``text, group, source`` (or labelled pairs with ``negatives``).
    report : dict
        Groups and strings, by source (and the negative pairs).
    """
    from pearl.augment.sampler import read_augmented
    from pearl.data.acronyms import mine_definitions
    from pearl.data.corpus import read_corpus
    from pearl.paths import data_root

    exclude = list(exclude)
    definitions = [
        d
        for d, n in mine_definitions(text or data_root() / "corpus", show_progress_bar).items()
        if n >= min_definitions
    ]
    frame = alias_groups(
        records=read_corpus(corpus),
        definitions=definitions,
        wordnet=wordnet_alias_groups(wordnet),
        replay=[(a, b) for a, b, _ in read_augmented(replay)] if replay else [],
        n_replay=n_replay,
        exclude=exclude,
        max_variants=max_variants,
        seed=seed,
    )
    summary = frame.groupby("source")["group"].agg(["nunique", "size"])
    report = {
        "groups": int(frame["group"].nunique()),
        "strings": len(frame),
        "by_source": {
            k: {"groups": int(r["nunique"]), "strings": int(r["size"])}
            for k, r in summary.iterrows()
        },
    }
    if negatives or word_negatives:
        from pearl.mining.hard_negatives import read_hard_negatives
        from pearl.mining.shared_words import shared_word_negatives

        found = read_hard_negatives(negatives) if negatives else {}
        if word_negatives:
            words = shared_word_negatives(frame, negatives_per_group, exclude=exclude, seed=seed)
            for name, negs in words.items():
                found[name] = [*found.get(name, []), *negs]
        frame = as_pairs(frame, found, per_group=negatives_per_group, exclude=exclude, seed=seed)
        report["negative_pairs"] = int((frame["label"] == 0).sum())
    return frame, report
