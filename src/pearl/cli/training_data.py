"""Training-data commands: build-corpus, augment, mine, triplets, teacher, aliases."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pearl._io import atomic_path, check_output
from pearl.cli._common import (
    COSINE,
    POSITIVE,
    data_root,
    float_between,
    int_at_least,
    model_arg,
)


def cmd_build_corpus(args) -> int:
    import json

    from pearl.data.corpus import build_corpus

    # the data root only where a default needs it (--corpus DIR --no-lists needs none)
    corpus = Path(args.corpus) if args.corpus else data_root(args) / "corpus"
    lexicon = None
    if not args.no_lists:
        lexicon = Path(args.lexicon) if args.lexicon else data_root(args) / "lexicon"
    check_output(args.output, [corpus, lexicon], "--output")
    stats = build_corpus(
        corpus,
        args.output,
        lexicon_root=lexicon,
        min_freq=args.min_freq,
        typed_min_freq=args.typed_min_freq,
        max_tokens=args.max_tokens,
        include_lists=not args.no_lists,
        list_types=args.list_types,
        n_process=args.processes,
        limit=args.limit,
        contexts=args.contexts,
        show_progress_bar=not args.quiet,
    )
    if not stats.phrases:  # everything downstream would fail on it, later and less clearly
        raise ValueError(
            f"no phrase found in {corpus} ({stats.input.get('files_read', 0)} files read, "
            f"{stats.input.get('text_units', 0)} lines of text): give a folder of .txt files "
            f"(--corpus); what was skipped is in {Path(args.output) / 'stats.md'}"
        )
    print((Path(args.output) / "stats.md").read_text())
    print(json.dumps({"phrases": stats.phrases, "seconds": stats.seconds}), file=sys.stderr)
    return 0


def cmd_augment(args) -> int:
    from pearl.augment.sampler import AugmentationSampler, default_augmenters, precompute
    from pearl.data.corpus import read_corpus

    check_output(args.output, [args.corpus], "--output")
    phrases = [r.phrase for r in read_corpus(args.corpus)]
    if args.limit:
        phrases = phrases[: args.limit]
    levels = args.levels.split(",")
    # WordNet only for the token and phrase levels (character typos need no data folder)
    wordnet = (
        str(data_root(args) / "lexicon" / "wordnet") if {"token", "phrase"} & set(levels) else None
    )
    mined = None
    if "phrase" in args.levels and args.mine_paraphrases:
        from pearl.augment.phrase import MinedParaphraser
        from pearl.encoders import load_encoder

        mined = MinedParaphraser(load_encoder(args.model)).fit(phrases)
    augs = default_augmenters(
        levels,
        wordnet,
        args.glove_threshold,
        mined,
        glove_keep_names=args.glove_keep_names,
    )
    weights = dict(kv.split("=") for kv in args.weights.split(",")) if args.weights else {}
    sampler = AugmentationSampler(augs, {k: float(v) for k, v in weights.items()}, seed=args.seed)
    precompute(phrases, sampler, args.output, views=args.views, show_progress_bar=not args.quiet)
    print(f"wrote {len(phrases) * args.views:,} positives to {args.output}", file=sys.stderr)
    return 0


def cmd_triplets(args) -> int:
    from collections import Counter

    from pearl.augment.phrase_bert import make_triplets
    from pearl.augment.sampler import default_augmenters, read_augmented
    from pearl.data.corpus import read_corpus

    check_output(args.output, [args.augmented, args.corpus], "--output")
    counts = Counter(
        w for r in read_corpus(args.corpus) for w in r.phrase.split() if w.isalpha() and w.islower()
    )
    vocabulary = sorted(w for w, n in counts.items() if n >= 2)
    augs = default_augmenters(
        ("char", "token", "phrase"),
        str(data_root(args) / "lexicon" / "wordnet"),
        glove_keep_names=True,
    )
    rows = read_augmented(args.augmented)
    if args.limit:
        rows = rows[: args.limit]
    make_triplets(
        rows, augs, vocabulary, args.output, seed=args.seed, show_progress_bar=not args.quiet
    )
    print(
        f"wrote triplets to {args.output} ({len(vocabulary):,} replacement words)", file=sys.stderr
    )
    return 0


def add_triplets(sub) -> None:
    """The ``pearl triplets`` command."""
    p = sub.add_parser(
        "triplets",
        help="Phrase-BERT triplets from augmented positives",
        description="For every (phrase, positive) row of an augmentation "
        "file, a negative made as Phrase-BERT makes it: one non-stopword "
        "replaced by a random corpus word, then passed through the augmenter "
        "that made the positive. For pearl train with objective = "
        '"phrase-bert" and triplets = OUTPUT.',
    )
    p.add_argument("augmented", help="TSV written by pearl augment")
    p.add_argument(
        "--corpus", required=True, help="corpus.tsv (its words are the replacement vocabulary)"
    )
    p.add_argument("-o", "--output", required=True, help="TSV file to write")
    p.add_argument("--data", help="shared data root, for WordNet")
    p.add_argument("--seed", type=int_at_least(0), default=0, help="seed (default 0)")
    p.add_argument("--limit", type=POSITIVE, help="first N rows only")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_triplets)


def cmd_mine(args) -> int:
    from pearl.data.corpus import read_corpus
    from pearl.encoders import load_encoder
    from pearl.mining import mine_hard_negatives

    check_output(args.output, [args.corpus, *(args.exclude or [])], "--output")
    if args.shared_words:
        return _mine_shared_words(args)
    if args.exclude:
        raise ValueError("--exclude is for --shared-words")
    phrases = [r.phrase for r in read_corpus(args.corpus)]
    if args.limit:
        phrases = phrases[: args.limit]
    res = mine_hard_negatives(
        phrases,
        load_encoder(args.model),
        args.output,
        min_ratio=args.min_ratio,
        max_cosine=args.max_cosine,
        top_k=args.top_k,
        show_progress_bar=not args.quiet,
    )
    res.pop("negatives")
    print(json.dumps(res, indent=2))
    return 0


def _mine_shared_words(args) -> int:
    """``pearl mine --shared-words``: names sharing words with each name of the corpus."""
    from pearl._io import atomic_tsv
    from pearl.data.corpus import read_corpus
    from pearl.mining.shared_words import corpus_word_negatives

    rows = list(read_corpus(args.corpus))
    if args.limit:
        rows = rows[: args.limit]
    exclude: list[str] = []
    for path in args.exclude or []:
        exclude += Path(path).read_text(encoding="utf-8").splitlines()
    negatives = corpus_word_negatives(rows, args.top_k, exclude=exclude)
    with atomic_tsv(args.output, ["phrase", "negative"]) as w:
        for name in sorted(negatives):
            for other in negatives[name]:
                w.writerow([name, other])
    print(json.dumps({"names_with_negatives": len(negatives), "output": args.output}, indent=2))
    return 0


def cmd_aliases(args) -> int:
    from pearl.augment.names import build_aliases

    inputs = [args.corpus, *(args.exclude or []), args.replay, args.negatives]
    check_output(args.output, inputs, "--output")
    exclude: list[str] = []
    for path in args.exclude or []:
        exclude += Path(path).read_text(encoding="utf-8").splitlines()
    frame, report = build_aliases(
        args.corpus,
        text=args.text,
        wordnet=args.wordnet,
        replay=args.replay,
        negatives=args.negatives,
        exclude=exclude,
        negatives_per_group=args.negatives_per_group,
        word_negatives=args.word_negatives,
        n_replay=args.n_replay,
        min_definitions=args.min_definitions,
        max_variants=args.max_variants,
        seed=args.seed,
        show_progress_bar=not args.quiet,
    )
    with atomic_path(args.output) as tmp:
        frame.to_csv(tmp, index=False)
    print(json.dumps({"output": str(args.output), **report}, indent=2))
    return 0


def add_aliases(sub) -> None:
    """The ``pearl aliases`` command."""
    p = sub.add_parser(
        "aliases",
        help="build alias groups (several forms of one name)",
        description="Write a CSV of alias groups (text,group,source) for "
        "pearl finetune: WordNet synsets of proper names, acronym definitions "
        "found in the corpus text, rule-made forms of the corpus's typed names "
        "(NYTimes, nytimes.com, J. Smith) and a replay sample of training "
        "pairs. Groups holding a string of an --exclude file are dropped.",
    )
    p.add_argument("corpus", help="corpus.tsv written by build-corpus")
    p.add_argument("-o", "--output", required=True, help="CSV file to write")
    p.add_argument(
        "--text", help="running text to mine acronym definitions from (default <data root>/corpus)"
    )
    p.add_argument("--wordnet", help="WordNet folder (default <data root>/lexicon/wordnet)")
    p.add_argument(
        "--replay", help="augmented.tsv written by pearl augment, to sample replay pairs from"
    )
    p.add_argument(
        "--negatives",
        help="hard_negatives.tsv written by pearl mine: adds up "
        "to --negatives-per-group non-matching pairs per group (the CSV is then "
        "written as left,right,label,source pairs)",
    )
    p.add_argument(
        "--word-negatives",
        action="store_true",
        help="add non-matching pairs with the names of other groups that share words "
        "with the group's name (New York Post for The New York Times), up to "
        "--negatives-per-group per group (the CSV is then written as pairs)",
    )
    p.add_argument(
        "--negatives-per-group",
        type=int_at_least(0),
        default=2,
        help="hard negatives per group (default 2)",
    )
    p.add_argument(
        "--n-replay", type=int_at_least(0), default=20000, help="replay pairs (default 20000)"
    )
    p.add_argument(
        "--min-definitions",
        type=POSITIVE,
        default=1,
        help="keep acronym definitions seen at least N times (default 1)",
    )
    p.add_argument(
        "--max-variants", type=POSITIVE, default=4, help="rule-made forms per name (default 4)"
    )
    p.add_argument(
        "--exclude",
        action="append",
        help="text file of strings never to train on, one per line (repeatable)",
    )
    p.add_argument("--seed", type=int_at_least(0), default=0, help="seed (default 0)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_aliases)


def cmd_teacher(args) -> int:
    from pearl.training.teacher import encode_teacher

    check_output(args.output, [args.corpus], "--output")
    out = encode_teacher(
        args.corpus,
        args.output,
        model=args.model,
        chunk_size=args.chunk_size,
        batch_size=args.batch_size,
        limit=args.limit,
        device=args.device,
        show_progress_bar=not args.quiet,
    )
    print(f"teacher embeddings in {out}", file=sys.stderr)
    return 0


def add_teacher(sub) -> None:
    """The ``pearl teacher`` command."""
    p = sub.add_parser(
        "teacher",
        help="encode the corpus phrases with a teacher model",
        description="Embed every phrase of a corpus.tsv with a (stronger) "
        "model, in checksummed shards; a re-run after an interruption "
        "skips the finished ones. pearl train uses the folder with "
        "--set teacher=DIR (the distillation loss).",
    )
    p.add_argument("corpus", help="corpus.tsv written by build-corpus")
    p.add_argument("-o", "--output", required=True, help="folder to write (or to complete)")
    p.add_argument(
        "-m",
        "--model",
        default="all-mpnet-base-v2",
        help="teacher model (default all-mpnet-base-v2)",
    )
    p.add_argument(
        "--chunk-size",
        type=POSITIVE,
        default=4096,
        help="phrases per shard: the most an interruption loses (default 4096)",
    )
    p.add_argument("-b", "--batch-size", type=POSITIVE, default=128, help="batch size")
    p.add_argument("--limit", type=POSITIVE, help="first N phrases only")
    p.add_argument("--device", help="torch device of the teacher, e.g. cuda (default cpu)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_teacher)


def add_build_corpus(sub) -> None:
    """The ``pearl build-corpus`` command."""
    p = sub.add_parser(
        "build-corpus",
        help="build the typed phrase corpus from raw text",
        description="Parse raw text with spaCy, extract NP/VP/PP/ADVP/ADJP "
        "phrases from the dependency parse, type them (5 lexical classes x 18 "
        "OntoNotes types + OTHER), keep those seen --min-freq times, add WordNet "
        "lemmas and the NLTK name lists, and write corpus.tsv and statistics.",
    )
    p.add_argument("-o", "--output", required=True, help="output folder")
    p.add_argument("--data", help="data root (default: $PEARL_DATA)")
    p.add_argument("--corpus", help="raw text folder (default: <data>/corpus)")
    p.add_argument("--lexicon", help="lexicon folder with wordnet/ (default: <data>/lexicon)")
    p.add_argument("--min-freq", type=POSITIVE, default=2, help="minimum frequency (default 2)")
    p.add_argument(
        "--typed-min-freq",
        type=POSITIVE,
        help="minimum frequency of phrases typed as entities in context (default: "
        "--min-freq; 1 keeps the entity names seen once)",
    )
    p.add_argument("--max-tokens", type=POSITIVE, default=10, help="maximum tokens (default 10)")
    p.add_argument("--no-lists", action="store_true", help="leave out WordNet and name lists")
    p.add_argument(
        "--list-types",
        choices=["tagger", "lists"],
        default="tagger",
        help="type list phrases by NER on the isolated phrase (default; the "
        "shipped model's corpus) or by the type their list gives",
    )
    p.add_argument("--processes", type=POSITIVE, default=1, help="spaCy processes (default 1)")
    p.add_argument("--limit", type=POSITIVE, help="parse only the first N text lines")
    p.add_argument(
        "--contexts",
        type=int_at_least(0),
        default=0,
        metavar="N",
        help="also write contexts.tsv: each phrase's first sentence window, N "
        "words either side, the phrase masked (Phrase-BERT's context objective; "
        "default 0: none)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_build_corpus)


def add_augment(sub) -> None:
    """The ``pearl augment`` command."""
    p = sub.add_parser(
        "augment",
        help="precompute augmented positives for a corpus",
        description="One positive per phrase (--views for more), drawn by "
        "weight among the character, token and phrase-level augmenters.",
    )
    p.add_argument("corpus", help="corpus.tsv written by build-corpus")
    p.add_argument("-o", "--output", required=True, help="TSV file to write")
    p.add_argument(
        "--levels",
        default="char,token,phrase",
        help="comma-separated levels to use (default char,token,phrase)",
    )
    p.add_argument("--weights", help="name=weight,... e.g. acronym=2,char_swap=0.5")
    p.add_argument("--views", type=POSITIVE, default=1, help="positives per phrase (default 1)")
    p.add_argument(
        "--glove-threshold",
        type=COSINE,
        default=0.8,
        help="minimum cosine of GloVe synonyms (default 0.8)",
    )
    p.add_argument(
        "--glove-keep-names",
        action="store_true",
        help="GloVe synonyms leave capitalised words (names) alone; off by "
        "default, as for the shipped pearl-minilm's data",
    )
    p.add_argument(
        "--mine-paraphrases",
        action="store_true",
        help="also mine near-paraphrases from the corpus with --model",
    )
    model_arg(p)
    p.add_argument("--data", help="shared data root, for WordNet")
    p.add_argument("--seed", type=int_at_least(0), default=0, help="seed (default 0)")
    p.add_argument("--limit", type=POSITIVE, help="first N phrases only")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_augment)


def add_mine(sub) -> None:
    """The ``pearl mine`` command."""
    p = sub.add_parser(
        "mine",
        help="mine hard negatives for a corpus",
        description="Candidates of small edit distance (blocked rapidfuzz), "
        "encoded by --model; those of low cosine are kept as hard negatives. With "
        "--shared-words: for each name of the corpus, the names sharing the most "
        "content words with it ('New York Post' for 'The New York Times'), for "
        "pearl train's word_negatives loss (no model).",
    )
    p.add_argument("corpus", help="corpus.tsv written by build-corpus")
    p.add_argument("-o", "--output", required=True, help="TSV file to write")
    model_arg(p)
    p.add_argument(
        "--min-ratio",
        type=float_between(0.0, 100.0),
        default=80,
        help="minimum rapidfuzz ratio of a candidate, 0-100 (default 80)",
    )
    p.add_argument(
        "--max-cosine",
        type=float_between(-1.0, 2.0),
        default=0.6,
        help="maximum cosine of a hard negative (default 0.6; above 1 keeps every candidate)",
    )
    p.add_argument(
        "-k", "--top-k", type=POSITIVE, default=5, help="negatives per phrase (default 5)"
    )
    p.add_argument(
        "--shared-words",
        action="store_true",
        help="word-sharing names instead of near-spellings (corpus names only)",
    )
    p.add_argument(
        "--exclude",
        action="append",
        metavar="FILE",
        help="with --shared-words: strings never to return, one per line (repeatable)",
    )
    p.add_argument("--limit", type=POSITIVE, help="first N phrases only")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_mine)


def register(sub) -> None:
    """Add this group's commands to the ``pearl`` sub-parsers."""
    add_build_corpus(sub)
    add_augment(sub)
    add_mine(sub)
    add_triplets(sub)
    add_teacher(sub)
    add_aliases(sub)
