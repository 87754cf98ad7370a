"""The training configuration: one dataclass, read from a TOML file plus overrides."""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pearl._validation import InputTypeError, check_bool, check_choice, check_float, check_int

__all__ = ["TrainConfig", "load_config", "check_fields"]

# (min, max) of the numeric options; unlisted ones are >= 0
#: options that measured no gain and were removed, with the value that meant "off" (a
#: checkpoint or recorded config that used one with another value cannot be resumed)
RETIRED: dict[str, Any] = {"type_balance": 0.0}

_RANGES: dict[str, tuple] = {
    "batch_size": (2, None),
    "checkpoint_every": (1, None),
    "decay_steps": (1, None),
    "char_out_dim": (1, None),
    "char_dim": (1, None),
    "char_buckets": (1, None),
    "max_seq_length": (1, None),
    "char_pretrain_batch": (1, None),
    "average_weight": (0.0, 1.0),
    "lr_decay": (0.0, 1.0),
}


class ConfigPaths:
    """What a training configuration reads and writes, for the output guard
    (:func:`pearl._io.check_io`): the trainers refuse, before any work, an output or
    checkpoint folder that overlaps an input."""

    _INPUT_FIELDS = (
        *("corpus", "augmented", "negatives", "teacher", "contexts", "triplets"),
        "word_negatives",
    )
    output: str
    checkpoint_dir: str

    @property
    def checkpoints(self) -> Path:
        """``checkpoint_dir``, or ``<output>.checkpoints``."""
        return Path(self.checkpoint_dir or f"{self.output}.checkpoints")

    def to_dict(self) -> dict[str, Any]:
        """Every option, as the run's record and its checkpoints store them."""
        return dataclasses.asdict(self)  # type: ignore[call-overload]

    def inputs(self) -> list[str]:
        """The files and folders the run reads (the backbone's folder included)."""
        from pearl.encoders.resolve import model_folder

        paths = [getattr(self, name, "") for name in self._INPUT_FIELDS]
        backbone = model_folder(getattr(self, "backbone", None))
        return [p for p in paths if p] + ([backbone] if backbone else [])

    def outputs(self) -> dict[str, str]:
        """The model folder and the checkpoint folder the run writes."""
        return {"output": str(self.output), "checkpoint_dir": str(self.checkpoints)}


@dataclass
class TrainConfig(ConfigPaths):
    """Everything a PEARL training run depends on (the paper's values as defaults).

    The options fall in the sections of :data:`SECTIONS`, as a configuration file has
    them; the objective's options can also be written as a list of loss specs
    (:mod:`pearl.training.loss_specs`).

    Attributes
    ----------
    backbone, corpus, augmented, negatives : str
        ``[data]``: a model name or folder, the typed phrases (``pearl build-corpus``),
        the positive views (``pearl augment``), the mined negatives (``pearl mine``).
    objective : {"infonce", "triplet", "phrase-bert"}
        ``[objective]``: PEARL's InfoNCE at ``temperature`` with in-batch negatives plus
        ``hard_negatives`` mined negatives per batch; Phrase-BERT's L2 triplet loss with
        ``margin``, each anchor's negative the closest of the same candidates; or
        Phrase-BERT's triplets of a ``triplets`` file. Plus ``type_weight`` x the
        cross-entropy of the phrase type on both views (``type_loss``), and optionally
        ``type_contrastive_weight`` x a supervised contrastive loss over entity types.
    teacher, distill_weight, distill_temperature
        A folder of ``pearl teacher`` embeddings: plus ``distill_weight`` x the KL
        divergence between the teacher's and the student's in-batch similarity
        distributions over the anchors.
    contexts, context_weight, max_contexts
        The ``contexts.tsv`` of ``pearl build-corpus --contexts N``: plus
        ``context_weight`` x Phrase-BERT's context objective (each anchor against its own
        masked context and another anchor's); ``max_contexts`` > 0 keeps only the first
        that many of a batch's anchors with a context (contexts dominate the step time).
    word_negatives, word_negative_weight, word_negative_temperature
        The TSV of ``pearl mine --shared-words`` (names sharing words with each name):
        plus ``word_negative_weight`` x InfoNCE of each anchor that has such negatives
        against its positive and its own negatives (issue 49, part 3).
    lr, char_lr, lr_decay, decay_steps, batch_size, epochs, max_steps, seed
        ``[optimisation]``: Adam at ``lr`` (``char_lr`` for the character encoder and
        type head), multiplied by ``lr_decay`` every ``decay_steps`` steps.
    use_chars, type_loss, char_aug, token_aug, phrase_aug, hard_negatives, average : bool
        The switches of the paper's Table 3 (``hard_negatives = 0`` is off; ``average``
        mixes original and fine-tuned weights, ``average_weight`` the original's share,
        0.5 in the paper).
    average_scope : {"all", "transformer"}
        ``[output]``: which weights ``average`` mixes: every pretrained module's, or only
        the transformer's (the character channel keeps its trained weights: mixing it with
        its own pretraining took the long run's development typos from 86.95 to 77.20, yet
        the benchmark's Avg-7 was 0.7 lower without it; experiments/results/long_run_plan.md).
    output, save_dtype, normalize : str, str, bool
        ``[output]``: the model folder; float16 halves it; ``normalize`` ends the model
        with a ``Normalize`` module, as its sentence-transformers backbone, so encodings
        are unit vectors.
    dev_every : int
        ``[output]``: > 0 scores the model on the development proxy
        (:func:`pearl.evaluation.dev_proxy.dev_scores`, ISO 3166 names; needs pycountry)
        every this many steps and at the last, into the step's record (the training log
        and the checkpoint's history): the curve of the development score over steps.
    checkpoint_every, threads, device
        Checkpoints every this many steps; CPU threads (0: torch's default); the device
        (empty: a CUDA GPU when torch sees one, else the CPU). A run may be resumed on
        another device; GPU kernels are not bit-for-bit deterministic.
    """

    backbone: str = "all-MiniLM-L6-v2"
    corpus: str = "data_out/corpus/corpus.tsv"
    augmented: str = "data_out/augmented.tsv"
    negatives: str = "data_out/hard_negatives.tsv"
    output: str = "models/pearl-minilm"
    checkpoint_dir: str = ""  # default: <output>.checkpoints
    # model
    char_out_dim: int = 128
    char_dim: int = 64
    # the character channel: "attention" (LOVE-style, the paper's), "ngram_bag" (hashed
    # character n-grams + subwords, as pearl-static; issue 49) or "both" (their sum)
    char_kind: str = "attention"
    char_buckets: int = 16384  # rows of the n-gram table of "ngram_bag" / "both"
    output_dim: int = 0  # 0: the concatenation
    max_seq_length: int = 32
    use_chars: bool = True
    char_gain: bool = False  # a learned scalar weight on the character vector
    char_share: float = 0.0  # > 0: parts at unit length, the character part this share
    raw_text: bool = False  # the character encoder reads the typed text (PEARL v2 models)
    # character encoder pretraining (mimic the backbone's word embeddings)
    char_pretrain_steps: int = 1500
    char_pretrain_words: int = 30000
    char_pretrain_batch: int = 256
    char_pretrain_lr: float = 2e-3
    # objective
    # "infonce" (PEARL); "triplet" (L2 triplet, batch-hard negatives); "phrase-bert"
    # (Phrase-BERT: L2 triplet on the `triplets` file's lexically controlled negatives)
    objective: str = "infonce"
    triplets: str = ""  # file of `pearl triplets`, for objective = "phrase-bert"
    contexts: str = ""  # contexts.tsv of `pearl build-corpus --contexts N`: the context loss
    context_weight: float = 1.0
    max_contexts: int = 0  # > 0: at most this many anchors' contexts per batch (step cost)
    temperature: float = 0.07
    margin: float = 1.0  # of the triplet objective
    teacher: str = ""  # folder of `pearl teacher` embeddings: adds the distillation loss
    distill_weight: float = 1.0
    distill_temperature: float = 0.05
    hard_negatives: int = 2
    type_loss: bool = True
    type_weight: float = 1.0
    type_contrastive_weight: float = 0.0  # > 0: SupCon over entity types (issue 15, lever 4)
    type_contrastive_temperature: float = 0.1
    type_batch_share: float = 0.0  # share of a batch drawn as typed groups
    type_group_size: int = 4
    word_negatives: str = ""  # `pearl mine --shared-words` file: the word-negatives loss
    word_negative_weight: float = 0.0
    word_negative_temperature: float = 0.07
    # augmentation
    char_aug: bool = True
    token_aug: bool = True
    phrase_aug: bool = True
    augmenter_weights: dict[str, float] = field(
        default_factory=lambda: {"mined_paraphrase": 0.25, "acronym": 0.35}
    )
    # optimisation
    batch_size: int = 512
    epochs: float = 2.0
    max_steps: int = 0  # > 0 caps the run
    max_examples: int = 0  # > 0: a random subset of the corpus
    lr: float = 3e-5
    char_lr: float = 1e-3
    lr_decay: float = 0.98
    decay_steps: int = 2000
    seed: int = 0
    # end of training
    average: bool = True
    average_weight: float = 0.5
    average_scope: str = "all"  # or "transformer": the character channel is not averaged
    save_dtype: str = "float32"  # or "float16"
    normalize: bool = True  # the saved model ends with a Normalize module (unit vectors)
    dev_every: int = 0  # > 0: the development score every this many steps (issue 49)
    # bookkeeping
    checkpoint_every: int = 200
    threads: int = 0  # 0: torch default
    device: str = ""  # "": CUDA when there is one, else the CPU; or "cpu", "cuda", "cuda:1"

    def __post_init__(self) -> None:
        check_fields(self)
        if self.temperature <= 0 or self.lr <= 0 or self.char_lr <= 0 or self.epochs <= 0:
            raise ValueError("temperature, lr, char_lr and epochs must be > 0")
        if not isinstance(self.augmenter_weights, dict):
            raise InputTypeError("augmenter_weights must be a table of name = weight")
        for name, weight in self.augmenter_weights.items():
            check_float(weight, f"augmenter_weights[{name!r}]", 0.0)
        check_choice(self.save_dtype, "save_dtype", ("float32", "float16"))
        check_choice(self.average_scope, "average_scope", ("all", "transformer"))
        check_choice(self.objective, "objective", ("infonce", "triplet", "phrase-bert"))
        check_choice(self.char_kind, "char_kind", ("attention", "ngram_bag", "both"))
        if self.objective == "phrase-bert" and not self.triplets:
            raise ValueError('objective = "phrase-bert" needs triplets = <file of pearl triplets>')
        check_float(self.margin, "margin", 0.0)
        check_float(self.distill_weight, "distill_weight", 0.0)
        check_float(self.distill_temperature, "distill_temperature", 1e-6)
        check_float(self.type_contrastive_weight, "type_contrastive_weight", 0.0)
        check_float(self.type_contrastive_temperature, "type_contrastive_temperature", 1e-6)
        check_float(self.type_batch_share, "type_batch_share", 0.0, 0.9)
        check_float(self.char_share, "char_share", 0.0, 0.95)
        if self.char_share and (self.char_gain or self.output_dim or not self.use_chars):
            raise ValueError("char_share needs use_chars, without char_gain or output_dim")
        check_int(self.type_group_size, "type_group_size", 2)
        check_int(self.dev_every, "dev_every", 0)
        check_float(self.word_negative_temperature, "word_negative_temperature", 1e-6)
        if self.word_negative_weight > 0 and not self.word_negatives:
            raise ValueError("word_negative_weight > 0 needs word_negatives = <file>")

    @property
    def levels(self) -> set[str]:
        """The augmentation levels switched on."""
        return {
            lvl
            for lvl, on in (
                ("char", self.char_aug),
                ("token", self.token_aug),
                ("phrase", self.phrase_aug),
            )
            if on
        }


def check_fields(config: Any, ranges: dict[str, tuple] | None = None) -> None:
    """Check every field of a configuration dataclass by its annotated type (int fields
    refuse 8.5 and "abc"; floats refuse strings and NaN) and range (``ranges`` maps a
    field to (min, max); numbers are >= 0 by default); floats are stored as float."""
    ranges = _RANGES if ranges is None else ranges
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if f.type == "int":
            check_int(value, f.name, *ranges.get(f.name, (0, None)))
        elif f.type == "float":
            setattr(config, f.name, check_float(value, f.name, *ranges.get(f.name, (0.0, None))))
        elif f.type == "bool":
            check_bool(value, f.name)
        elif f.type == "str" and not isinstance(value, str):
            raise InputTypeError(f"{f.name} must be a string, got {type(value).__name__}")


def _coerce(name: str, value: Any, current: Any) -> Any:
    if not isinstance(value, str) or isinstance(current, str):
        return value
    if isinstance(current, bool):
        if value.lower() in ("1", "true", "yes", "on"):
            return True
        if value.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"{name}: expected a boolean, got {value!r}")
    try:
        if isinstance(current, int):
            return int(value)
        if isinstance(current, float):
            return float(value)
        if isinstance(current, dict):
            return tomllib.loads(f"x = {value}")["x"]
    except ValueError as exc:  # tomllib.TOMLDecodeError is a ValueError too
        kind = {"dict": "a table", "int": "an integer", "float": "a number"}[type(current).__name__]
        raise ValueError(f"{name}: expected {kind}, got {value!r}") from exc
    return value


#: the sections of a training configuration, as its TOML file has them (each option in one)
SECTIONS: dict[str, tuple[str, ...]] = {
    "data": ("backbone", "corpus", "augmented", "negatives", "max_examples"),
    "model": (
        *("char_out_dim", "char_dim", "char_kind", "char_buckets", "output_dim"),
        *("max_seq_length", "use_chars", "char_gain", "char_share", "raw_text"),
        "char_pretrain_steps",
        *("char_pretrain_words", "char_pretrain_batch", "char_pretrain_lr"),
        *("pca_dims", "n_buckets"),
    ),
    "objective": (
        *("objective", "temperature", "margin", "hard_negatives", "triplets", "contexts"),
        *("context_weight", "max_contexts", "teacher", "distill_weight"),
        *("distill_temperature", "type_loss", "type_weight", "type_contrastive_weight"),
        *("type_contrastive_temperature", "type_batch_share", "type_group_size"),
        *("word_negatives", "word_negative_weight", "word_negative_temperature"),
    ),
    "augmentation": ("char_aug", "token_aug", "phrase_aug", "augmenter_weights"),
    "optimisation": (
        *("batch_size", "epochs", "max_steps", "lr", "char_lr", "lr_decay", "decay_steps"),
        *("seed", "threads", "device"),
    ),
    "output": (
        *("output", "checkpoint_dir", "checkpoint_every", "average", "average_weight"),
        *("average_scope", "save_dtype", "normalize", "dev_every"),
    ),
}


def _sections_of(sections: dict[str, tuple[str, ...]]) -> dict[str, str]:
    return {option: name for name, options in sections.items() for option in options}


_SECTION_OF = _sections_of(SECTIONS)


def read_sections(
    path: str | Path,
    known: set[str],
    sections: dict[str, tuple[str, ...]] | None = None,
    objective: Any = None,
) -> dict[str, Any]:
    """The options of a configuration file, from its sections (:data:`SECTIONS`, or the
    ``sections`` of another trainer: ``pearl finetune``'s).

    ``[[objective]]`` is a list of loss specs, turned into options by ``objective(specs,
    known)`` (default :func:`pearl.training.loss_specs.flat_options`). Options may also
    sit at the top level (a flat file). Files of earlier versions still load: options in
    tables of other names (``[end]``, ``[bookkeeping]``...) or in another section than
    ``sections`` says are read with a ``FutureWarning`` naming their section.
    """
    import warnings

    from pearl.training.loss_specs import flat_options

    section_of = _SECTION_OF if sections is None else _sections_of(sections)
    flatten = flat_options if objective is None else objective

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"config file not found: {path}")
    try:
        with open(path, "rb") as f:
            raw = tomllib.load(f)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"config file {path} is not valid TOML: {exc}") from exc
    values: dict[str, Any] = {}
    specs: dict[str, Any] = {}
    misplaced = []
    for key, value in raw.items():
        if key == "objective" and isinstance(value, list):
            specs = flatten(value, known)
            continue
        table = value if isinstance(value, dict) and key != "augmenter_weights" else {key: value}
        section = key if table is value else None
        misplaced += [
            f"{k} -> [{section_of[k]}]"
            for k in table
            if section is not None and k in section_of and section_of[k] != section
        ]
        values.update(table)
    both = sorted(set(specs) & set(values))
    if both:
        raise ValueError(
            f"{path}: {', '.join(both)} set both in the [[objective]] list and elsewhere"
        )
    if misplaced:
        warnings.warn(
            f"{path}: options outside their section (read all the same; move them): "
            + ", ".join(misplaced),
            FutureWarning,
            stacklevel=3,
        )
    return {**values, **specs}


def load_config(
    path: str | Path | None = None,
    overrides: dict[str, Any] | None = None,
    config_class: type = TrainConfig,
) -> Any:
    """A :class:`TrainConfig` (or another configuration dataclass, ``config_class``) from a
    TOML file (optional) and ``key=value`` overrides.

    The file's tables are the sections of :data:`SECTIONS` (``[data]``, ``[model]``,
    ``[objective]`` or a list of loss specs ``[[objective]]``, ``[augmentation]``,
    ``[optimisation]``, ``[output]``; see :func:`read_sections`). An unknown key is an
    error, so a typo never silently trains the default.

    Parameters
    ----------
    path : path-like, optional
        The TOML file (none: the defaults).
    overrides : dict, optional
        Options by flat name (``pearl train --set``); strings are converted to the
        option's type.
    config_class : type, default=TrainConfig
        :class:`TrainConfig` or :class:`~pearl.training.static.StaticConfig`.

    Returns
    -------
    TrainConfig or StaticConfig
    """
    known = {f.name: f for f in dataclasses.fields(config_class)}
    values = read_sections(path, set(known)) if path is not None else {}
    values.update(overrides or {})
    retired = sorted(set(values) & set(RETIRED))
    if retired:
        raise ValueError(
            f"training option(s) {', '.join(retired)} were retired (they measured no gain; "
            "see the experiment log, experiments/results/README.md): remove them"
        )
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise ValueError(f"unknown training option(s): {', '.join(unknown)}")
    defaults = config_class()
    coerced = {k: _coerce(k, v, getattr(defaults, k)) for k, v in values.items()}
    return config_class(**coerced)
