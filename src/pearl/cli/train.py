"""Training commands: train, finetune, distill-static, train-static, matcher-weights."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from pearl._io import check_io, check_output
from pearl.cli._common import (
    POSITIVE,
    float_between,
    int_at_least,
    model_arg,
    set_overrides,
)


def cmd_train(args) -> int:
    from pearl.training import Trainer, load_config

    overrides = set_overrides(args)
    for key in ("output", "backbone", "corpus", "augmented", "negatives"):
        if getattr(args, key, None):
            overrides[key] = getattr(args, key)
    config = load_config(args.config, overrides)
    check_io(config.outputs(), [*config.inputs(), args.config])
    if args.dry_run:
        print(json.dumps(config.to_dict(), indent=2))
        return 0
    result = Trainer(config, show_progress_bar=not args.quiet).train(resume=args.resume)
    return _report_run(result, config.checkpoints)


def _report_run(result, checkpoints) -> int:
    """What ``pearl train``/``train-static`` print at the end; 130 when interrupted."""
    if result.interrupted:
        print(
            f"interrupted at step {result.steps}/{result.total_steps}; the checkpoint is in "
            f"{checkpoints}. Continue with the same command and --resume.",
            file=sys.stderr,
        )
        return 130
    print(
        f"trained {result.steps} steps in {result.seconds:.0f} s; model saved to {result.output}",
        file=sys.stderr,
    )
    return 0


def cmd_finetune(args) -> int:
    from pearl.evaluation.pairs import read_pairs
    from pearl.training.finetune import read_labelled, run_finetune
    from pearl.training.finetune_loop import FinetuneOptions

    check_output(args.output, [args.pairs, *([args.config] if args.config else [])], "--output")
    if args.test and not args.dev:
        raise ValueError("--test needs --dev: the match threshold is chosen on the --dev pairs")
    # read (and check) the evaluation pairs now, not after hours of training
    dev = read_pairs(args.dev) if args.dev else None
    test = read_pairs(args.test) if args.test else None
    given = {
        "loss": args.loss,
        "encoder": args.encoder,
        "epochs": args.epochs,
        "batch_size": args.batch_size,
        "lr": args.lr,
        "max_steps": args.max_steps,
        "average_weight": args.average_weight,
        "validation": args.validation,
        "patience": args.patience,
        "seed": args.seed,
        "save_dtype": args.save_dtype,
        "checkpoint_every": args.checkpoint_every,
    }
    # the file's options, then those given on the command line
    options = FinetuneOptions.from_file(
        args.config, {k: v for k, v in given.items() if v is not None}
    )
    res = run_finetune(
        read_labelled(args.pairs),
        Path(args.output),
        options,
        model=args.model,
        checkpoints=args.checkpoint_dir,
        resume=args.resume,
        show_progress_bar=not args.quiet,
        record={"command": "pearl " + shlex.join(args.argv), "data": str(args.pairs)},
    )
    if res.interrupted:
        print(
            f"interrupted in epoch {res.epochs + 1}; the checkpoint is in {res.checkpoints}. "
            "Continue with the same command and --resume.",
            file=sys.stderr,
        )
        return 130
    summary = {
        "output": str(res.output),
        "epochs": res.epochs,
        "best_epoch": res.best_epoch,
        "validation_top1": res.validation_top1,
        "seconds": round(res.seconds, 1),
    }
    if dev is not None:
        from pearl.encoders import load_encoder
        from pearl.evaluation.pairs import threshold_accuracy

        # the folder by its absolute path: a bare -o name is not a model name
        folder = str(Path(str(res.output)).resolve())
        summary["evaluation"] = threshold_accuracy(load_encoder(folder), dev, test)
    print(json.dumps(summary, indent=2))
    return 0


def add_finetune(sub) -> None:
    """The ``pearl finetune`` command."""
    p = sub.add_parser(
        "finetune",
        help="specialise a model on your own labelled matches",
        description="Fine-tune a model on labelled matches (a CSV of pairs: "
        "left,right,label with label 1 for a match and 0 for a non-match; or "
        "of groups: text,group) with SentPWNet's multi-similarity loss. A "
        "share of the groups is held out for early stopping; the best "
        "weights are saved as a model folder every pearl tool loads.",
    )
    p.add_argument("pairs", help="CSV of labelled pairs or groups")
    p.add_argument(
        "-c",
        "--config",
        help="TOML file of options in the sections of pearl train's ([model] encoder, "
        "[[objective]] loss and its parameters, [data], [optimisation], [output]; see "
        "docs/training.md); options given on the command line override it",
    )
    p.add_argument("-o", "--output", required=True, help="model folder to write")
    model_arg(p)
    p.add_argument(
        "--loss",
        choices=["ms", "infonce", "triplet"],
        help="multi-similarity with locality weighting (default), InfoNCE or triplet",
    )
    p.add_argument("--epochs", type=POSITIVE, help="at most N epochs (default 10)")
    p.add_argument(
        "-b",
        "--batch-size",
        type=int_at_least(2),
        help="strings per batch (default 64)",
    )
    p.add_argument(
        "--encoder",
        choices=["transformer", "bilstm", "cnn"],
        help="fine-tune --model (default), or train SentPWNet's BiLSTM or CNN "
        "over GloVe vectors from scratch (no transformer; --model is unused)",
    )
    p.add_argument(
        "--lr",
        type=float_between(1e-8, 1.0),
        help="learning rate (default 2e-5 for a transformer; 1e-3 for static vectors "
        "such as pearl-static, and for --encoder bilstm/cnn)",
    )
    p.add_argument(
        "--validation",
        type=float_between(0.0, 0.9),
        help="share of groups held out for early stopping (default 0.1)",
    )
    p.add_argument(
        "--patience",
        type=POSITIVE,
        help="epochs without improvement before stopping (default 2)",
    )
    p.add_argument(
        "--max-steps",
        type=int_at_least(0),
        help="stop after N batches in all (default 0: no cap)",
    )
    p.add_argument(
        "--average-weight",
        type=float_between(0.0, 1.0),
        help="save W * original + (1 - W) * fine-tuned weights (default 0: the fine-tuned weights)",
    )
    p.add_argument(
        "--save-dtype",
        choices=["float32", "float16"],
        help="storage type of the saved weights (default float32)",
    )
    p.add_argument("--seed", type=int_at_least(0), help="seed (default 0)")
    _checkpoint_args(p)
    p.add_argument(
        "--dev", help="pairs CSV to choose the match threshold on (reported with its accuracy)"
    )
    p.add_argument(
        "--test", help="pairs CSV to report accuracy on, at the --dev threshold (needs --dev)"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_finetune)


def _checkpoint_args(p) -> None:
    """``pearl finetune``'s checkpoint options."""
    p.add_argument(
        "--checkpoint-every",
        type=POSITIVE,
        help="write a checkpoint every N batches (default 200; also at each epoch's end "
        "and on Ctrl-C or SIGTERM)",
    )
    p.add_argument("--checkpoint-dir", help="checkpoint folder (default: <output>.checkpoints)")
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted run from its checkpoint (same data and options)",
    )


def cmd_distill_static(args) -> int:
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize

    from pearl.training.saving import save_model
    from pearl.training.static import distill_static

    module = distill_static(args.model, pca_dims=args.pca_dims, n_buckets=args.n_buckets)
    save_model(SentenceTransformer(modules=[module, Normalize()], device="cpu"), Path(args.output))
    print(
        f"distilled {args.model} into {args.output} ({module.num_embeddings:,} tokens x "
        f"{module.embedding_dim})",
        file=sys.stderr,
    )
    return 0


def cmd_add_static(args) -> int:
    from pearl.encoders.resolve import resolve_model_path
    from pearl.models.loading import open_model_folder
    from pearl.models.surface import add_static
    from pearl.training.saving import save_model

    model, static = (open_model_folder(resolve_model_path(m)) for m in (args.model, args.static))
    out = add_static(model, static, weights=tuple(args.weights))
    save_model(out, Path(args.output), dtype=args.save_dtype)
    print(
        f"wrote {args.output}: {args.model} + {args.static} "
        f"({out.get_embedding_dimension()} dimensions)",
        file=sys.stderr,
    )
    return 0


def cmd_add_split(args) -> int:
    from pearl.encoders.resolve import resolve_model_path
    from pearl.evaluation.model_card import SPLIT_RECORD, write_card
    from pearl.models.loading import open_model_folder
    from pearl.models.surface_split import add_surface_split
    from pearl.training.saving import save_model, write_stage_record

    start = resolve_model_path(args.model)
    out = add_surface_split(open_model_folder(start))
    output = Path(args.output)
    save_model(out, output, dtype=args.save_dtype)
    record = {"start": str(args.model), "command": "pearl " + shlex.join(args.argv)}
    write_stage_record(output, start, SPLIT_RECORD, record)
    if (output / "training" / "config.json").is_file() or (
        output / "training" / "finetune.json"
    ).is_file():
        write_card(output)  # pearl's card of the start, with the splitter's line
    print(f"wrote {args.output}: {args.model} behind a surface splitter", file=sys.stderr)
    return 0


def cmd_train_static(args) -> int:
    from pearl.training.config import load_config
    from pearl.training.static import StaticConfig, StaticTrainer

    overrides = set_overrides(args)
    if args.output:
        overrides["output"] = args.output
    config = load_config(args.config, overrides, config_class=StaticConfig)
    check_io(config.outputs(), [*config.inputs(), args.config])
    result = StaticTrainer(config, show_progress_bar=not args.quiet).train(resume=args.resume)
    return _report_run(result, config.checkpoints)


def add_train(sub) -> None:
    """The ``pearl train`` command."""
    p = sub.add_parser(
        "train",
        help="train a PEARL model",
        description="Contrastive training of a fused phrase + character "
        "encoder with hard negatives and the phrase-type loss. Options come "
        "from --config (TOML) and --set KEY=VALUE overrides; --dry-run prints "
        "the resolved configuration.",
    )
    p.add_argument("-c", "--config", help="TOML configuration file (see configs/)")
    p.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="override one option, e.g. --set batch_size=64; repeatable",
    )
    p.add_argument("-o", "--output", help="model folder to write (overrides the config)")
    p.add_argument("--backbone", help="backbone model name or folder")
    p.add_argument("--corpus", help="corpus.tsv of typed phrases")
    p.add_argument("--augmented", help="augmented positives TSV")
    p.add_argument("--negatives", help="hard negatives TSV")
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue from the last checkpoint of the same configuration "
        "(a larger epochs or max_steps extends a finished run)",
    )
    p.add_argument("--dry-run", action="store_true", help="print the configuration and stop")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_train)


def add_distill_static(sub) -> None:
    """The ``pearl distill-static`` command."""
    p = sub.add_parser(
        "distill-static",
        help="distil a static model from a transformer",
        description="model2vec's distillation of --model (one vector per "
        "token, PCA, SIF weights) plus an empty hashed character n-gram "
        "table, saved as a sentence-transformers folder. Needs pip install "
        "'pearl[static]'.",
    )
    p.add_argument("-o", "--output", required=True, help="model folder to write")
    p.add_argument(
        "-m",
        "--model",
        default="all-MiniLM-L6-v2",
        help="transformer to distil (default all-MiniLM-L6-v2)",
    )
    p.add_argument("--pca-dims", type=POSITIVE, default=256, help="vector size (default 256)")
    p.add_argument(
        "--n-buckets",
        type=POSITIVE,
        default=16384,
        help="rows of the character n-gram table (default 16384)",
    )
    p.set_defaults(func=cmd_distill_static)


def add_train_static(sub) -> None:
    """The ``pearl train-static`` command."""
    p = sub.add_parser(
        "train-static",
        help="train pearl-static (distil, then PEARL's objective)",
        description="Distil the backbone with model2vec, add hashed character "
        "n-gram vectors, and train both with InfoNCE, hard negatives and the "
        "type loss on the training-data files (see configs/pearl-static.toml).",
    )
    p.add_argument("-c", "--config", help="TOML configuration file")
    p.add_argument(
        "--set", action="append", metavar="KEY=VALUE", help="override one option; repeatable"
    )
    p.add_argument("-o", "--output", help="model folder to write (overrides the config)")
    p.add_argument("--resume", action="store_true", help="continue from the last checkpoint")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_train_static)


def cmd_matcher_weights(args) -> int:
    from pearl.paths import data_root
    from pearl.training.matcher_weights import (
        UNMATCHED_SHARE,
        learn_matcher_weights,
        store_matcher_weights,
    )

    rows, _ = learn_matcher_weights(
        args.model,
        args.corpus,
        (Path(args.data) if args.data else data_root()) / "lexicon" / "wordnet",
        n=args.n,
        seed=args.seed,
        negatives=args.negatives,
        aliases=args.aliases,
        n_aliases=args.n_aliases,
        show_progress_bar=not args.quiet,
        unmatched_share=(UNMATCHED_SHARE if args.unmatched_share is None else args.unmatched_share),
    )
    if args.ship:
        from pearl.tables.matcher import WEIGHTS_FILE

        output = store_matcher_weights(rows, WEIGHTS_FILE)
    else:
        output = store_matcher_weights(rows, args.output)
    for r in rows:
        print(json.dumps({k: r[k] for k in ("model", "weights", "bias") if k in r}))
    print(f"wrote {output}", file=sys.stderr)
    return 0


def add_matcher_weights(sub) -> None:
    """The ``pearl matcher-weights`` command."""
    p = sub.add_parser(
        "matcher-weights",
        help="learn the combined matcher's weights for a model",
        description="Fit, calibrate and check the combined matcher (embedding and n-gram "
        "cosines) for each --model on training-corpus phrases and their augmented views "
        "(pearl.training.matcher_weights), and add each model's entry to a weights file. "
        "Use it with matcher=MatchScorer.from_file(OUTPUT, MODEL).",
    )
    p.add_argument("corpus", help="corpus TSV of pearl build-corpus")
    p.add_argument("-m", "--model", action="append", required=True, help="model; repeatable")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("-o", "--output", help="weights JSON to write (entries are added)")
    where.add_argument(
        "--ship",
        action="store_true",
        help="add the entries to the package's own weights file (what the table tools "
        "use by default): how the shipped weights are made",
    )
    p.add_argument("--n", type=POSITIVE, default=20_000, help="phrases sampled (default 20000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample and views (default 0)")
    p.add_argument("--negatives", help="hard negatives of pearl mine: near-duplicate references")
    p.add_argument("--aliases", help="alias groups of pearl aliases: name-variant queries")
    p.add_argument(
        "--n-aliases", type=POSITIVE, default=10_000, help="alias groups drawn (default 10000)"
    )
    p.add_argument(
        "--unmatched-share",
        type=float,
        default=None,
        help="share of the queries calibrated as rows without a partner (their match "
        "taken out of their candidates), so that a join's probabilities hold on tables "
        "where some rows have none (default 0.3, the shipped weights' "
        "pearl.training.matcher_weights.UNMATCHED_SHARE; 0: every query has its match)",
    )
    p.add_argument("--data", help="data root with lexicon/wordnet (default: pearl.paths)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_matcher_weights)


def _folder_dtype_arg(p) -> None:
    """``--save-dtype`` of the commands that write a model folder from shipped ones."""
    p.add_argument(
        "--save-dtype",
        choices=["float32", "float16"],
        default="float16",
        help="storage type of the weights (default float16; computed in float32)",
    )


def add_add_static(sub) -> None:
    """The ``pearl add-static`` command."""
    p = sub.add_parser(
        "add-static",
        help="concatenate a static model's vector of the text to a transformer model's",
        description="Write a model folder that encodes with --model and --static and "
        "concatenates their unit vectors, each scaled by the square root of its weight, so "
        "that the cosine is the weighted mean of the two models' cosines "
        "(pearl.models.surface.StaticConcat).",
    )
    p.add_argument("-o", "--output", required=True, help="model folder to write")
    model_arg(p)
    p.add_argument("--static", default="pearl-static", help="static model (default pearl-static)")
    p.add_argument(
        "--weights",
        type=float_between(0.0, float("inf")),
        nargs=2,
        default=[0.5, 0.5],
        metavar=("MODEL", "STATIC"),
        help="fixed weights of the two cosines (default 0.5 0.5)",
    )
    _folder_dtype_arg(p)
    p.set_defaults(func=cmd_add_static)


def add_add_split(sub) -> None:
    """The ``pearl add-split`` command."""
    p = sub.add_parser(
        "add-split",
        help="put a rewriting of joined and web-address names in front of a model",
        description="Write a model folder that encodes with --model after rewriting joined "
        'and web-address forms of names into their words ("NYTimes" -> "NY Times", '
        '"nytimes.com" -> "ny times"; pearl.models.surface_split). No training.',
    )
    p.add_argument("-o", "--output", required=True, help="model folder to write")
    model_arg(p)
    _folder_dtype_arg(p)
    p.set_defaults(func=cmd_add_split)


def register(sub) -> None:
    """Add this group's commands to the ``pearl`` sub-parsers."""
    add_train(sub)
    add_finetune(sub)
    add_distill_static(sub)
    add_add_static(sub)
    add_add_split(sub)
    add_train_static(sub)
    add_matcher_weights(sub)
