"""Write the model card (README.md) of a trained PEARL model folder.

It gathers what the folder itself records (``training/config.json``, ``training/loss.tsv``)
and the benchmark records written by ``pearl eval`` for the model and its backbone, so the
card says how the model was made and how it scores, from files rather than by hand::

    pearl model-card models/pearl-minilm --results results --train-seconds 5903
"""

from __future__ import annotations

import json
from pathlib import Path
from string import Template

from pearl._io import read_json_object, write_text_atomic
from pearl.encoders.resolve import DEFAULT_MODEL, SHIPPED
from pearl.evaluation.report import load_records, probe_runs, render_markdown, seed0_scores
from pearl.evaluation.runner import averages

__all__ = [
    "write_model_card",
    "write_static_model_card",
    "write_card",
    "is_static_folder",
    "SPLIT_RECORD",
]

#: The record ``pearl add-split`` leaves in ``training/``.
SPLIT_RECORD = "surface_split.json"

_TEMPLATES = Path(__file__).resolve().parent / "templates"


def _training_config(folder: Path, command: str) -> dict:
    """``<folder>/training/config.json``, which ``command`` writes."""
    path = folder / "training" / "config.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: is {folder} a folder from {command}?")
    return read_json_object(path, "training record")


def _render(template: str, **values) -> str:
    """A card from its template (``templates/<template>``, ``string.Template`` fields)."""
    text = (_TEMPLATES / template).read_text(encoding="utf-8")
    return Template(text).substitute(values).rstrip("\n")


def _load_name(name: str) -> str:
    """How the card's example opens the model: a shipped model by its name, any other
    folder by its path (a bare name that is no known model is a Hugging Face name)."""
    return name if name in SHIPPED else f"./{name}"


def _default_note(name: str) -> str:
    if name != DEFAULT_MODEL:
        return ""
    return (
        "\nThis is pearl's default model (`pearl.DEFAULT_MODEL`), chosen by the rules "
        "written in pearl's docs/models.md.\n"
    )


def _record(records: list[dict], name: str) -> dict | None:
    return next((r for r in records if r["model"] == name), None)


def _recipe_lines(cfg: dict, first, last, train_seconds, command, extra=()) -> list[str]:
    """The card's recipe lines: steps, components, loss, time, ``extra`` lines (a
    fine-tuning stage), command."""
    switches = {
        k: cfg[k]
        for k in ("use_chars", "type_loss", "char_aug", "token_aug", "phrase_aug", "average")
    }
    lines = [
        f"- Character encoder pretrained for {cfg['char_pretrain_steps']} steps to mimic the "
        f"backbone's embeddings of the {cfg['char_pretrain_words']:,} most frequent corpus "
        "words (and typo'd variants).",
        f"- {cfg.get('total_steps')} steps, batch {cfg['batch_size']}, Adam lr {cfg['lr']} "
        f"(character encoder and type head {cfg['char_lr']}), x{cfg['lr_decay']} every "
        f"{cfg['decay_steps']} steps, seed {cfg['seed']}, max {cfg['max_seq_length']} tokens.",
        f"- Components: {switches}.",
    ]
    if cfg.get("type_contrastive_weight"):
        lines.append(
            "- Types shape the geometry: a supervised-contrastive term over entity types "
            f"(weight {cfg['type_contrastive_weight']}, temperature "
            f"{cfg.get('type_contrastive_temperature')}), on batches of which a share of "
            f"{cfg.get('type_batch_share')} is drawn as groups of "
            f"{cfg.get('type_group_size')} same-type phrases."
        )
    if cfg.get("normalize", False):
        lines.append("- The folder ends with a `Normalize` module: encodings are unit vectors.")
    if first and last:
        lines.append(
            f"- Loss {first[1]:.3f} at step 1, {last[1]:.3f} at step {int(last[0])} "
            "(curve: `training/loss.png`, values: `training/loss.tsv`)."
        )
    if train_seconds:
        cpus = cfg.get("machine", {}).get("cpus")
        lines.append(
            f"- Training wall time: {train_seconds / 60:.0f} min"
            + (f" on {cpus} CPU cores" if cpus else "")
            + ", character-encoder pretraining included."
        )
    lines += list(extra)
    if command:
        lines += ["", "Command:", "", f"    {command}"]
    return lines


def write_model_card(
    folder: str | Path,
    results: str | Path | None = None,
    backbone_name: str | None = None,
    train_seconds: float | None = None,
    command: str | None = None,
) -> Path:
    """Render ``<folder>/README.md``; returns its path.

    Parameters
    ----------
    folder : path-like
        A model folder written by ``pearl train``.
    results : path-like, optional
        Folder of ``pearl eval`` records (JSON); the model's row (matched by folder name)
        and the backbone's row are put in the card.
    backbone_name : str, optional
        Name of the backbone's record; defaults to the training config's backbone.
    train_seconds : float, optional
        Wall time of the training run.
    command : str, optional
        The command that trained it.
    """
    folder = Path(folder)
    cfg = _training_config(folder, "pearl train")
    name = folder.name
    train_seconds = train_seconds or cfg.get("train_seconds")
    backbone_name = backbone_name or cfg["backbone"]
    loss_rows = (folder / "training" / "loss.tsv").read_text().splitlines()[1:]
    last = [float(x) for x in loss_rows[-1].split("\t")] if loss_rows else None
    first = [float(x) for x in loss_rows[0].split("\t")] if loss_rows else None
    extra = [*_finetune_lines(folder), *_split_lines(folder)]
    lines = _recipe_lines(cfg, first, last, train_seconds, command, extra)
    pairs = cfg.get("training_pairs")
    lines = [
        _render(
            "model_card.md",
            name=name,
            load_name=_load_name(name),
            backbone=cfg["backbone"],
            char_out_dim=cfg["char_out_dim"],
            temperature=cfg["temperature"],
            hard_negatives=cfg["hard_negatives"],
            average_weight=cfg["average_weight"],
            default_note=_default_note(name),
            dtype_note="Weights are stored in float16 and computed in float32."
            if cfg.get("save_dtype") == "float16"
            else "",
            corpus=cfg["corpus"],
            augmented=cfg["augmented"],
            char_aug=cfg["char_aug"],
            token_aug=cfg["token_aug"],
            phrase_aug=cfg["phrase_aug"],
            augmenter_weights=cfg["augmenter_weights"],
            negatives=cfg["negatives"],
            pairs_line=f"- Training pairs after filtering: {pairs:,}."
            if isinstance(pairs, int)
            else "",
            recipe="\n".join(lines),
        )
    ]
    if results:
        records = load_records(results)
        rows = [r for r in (_record(records, backbone_name), _record(records, name)) if r]
        if rows:
            lines += ["", "## Benchmark (`pearl eval`)", "", render_markdown(rows, published=False)]
        if len(rows) == 2:
            lines += _avg7_comparison(*rows)
    path = folder / "README.md"
    write_text_atomic(path, "\n".join(lines) + "\n")
    return path


def _avg7_comparison(backbone: dict, model: dict) -> list[str]:
    """The card's Avg-7 line, comparing like with like: when the two records follow
    different PPDB protocols, both are compared on their seed-0 probe."""
    a, b = (r.get("averages", {}).get("avg7") for r in (backbone, model))
    if a is None or b is None:
        return []
    if probe_runs(backbone) == probe_runs(model):
        return [f"Avg-7 against the backbone: {b - a:+.1f} points ({b:.1f} vs {a:.1f})."]
    a, b = (averages(seed0_scores(r))["avg7"] for r in (backbone, model))
    if a is None or b is None:
        return []
    return [
        f"Avg-7 against the backbone, both with the seed-0 probe (the records follow different "
        f"PPDB protocols): {b - a:+.1f} points ({b:.1f} vs {a:.1f})."
    ]


_LOSSES = {"ms": "multi-similarity", "infonce": "InfoNCE", "triplet": "triplet"}


def _finetune_lines(folder: Path) -> list[str]:
    """The card's lines on the ``pearl finetune`` stages (``training/finetune.json`` and
    the stages it records before it, oldest first), if any."""
    path = folder / "training" / "finetune.json"
    if not path.is_file():
        return []
    last = read_json_object(path, "fine-tuning record")
    lines = []
    for rec in [*last.get("earlier_stages", []), last]:
        data = f" (`{rec['data']}`)" if isinstance(rec.get("data"), str) else ""
        lines.append(
            f"- Then fine-tuned by `pearl finetune` on {rec['groups']:,} groups of "
            f"{rec['strings']:,} strings{data}: {_LOSSES.get(rec['loss'], rec['loss'])} "
            f"loss, batches of {rec['batch_size']} ({rec['per_group']} per group), lr "
            f"{rec['lr']}, best of {rec['epochs_run']} epochs on "
            f"{rec['validation']:.0%} held-out groups (epoch {rec['best_epoch']}), saved "
            f"weights averaged with the start's (weight {rec['average_weight']}), "
            f"{rec['seconds']:.0f} s."
        )
        if rec.get("command"):
            lines.append(f"- Command: `{rec['command']}`.")
    return lines


def _split_lines(folder: Path) -> list[str]:
    """The card's line on the surface splitter ``pearl add-split`` put in front (its
    ``training/surface_split.json``), if any."""
    path = folder / "training" / SPLIT_RECORD
    if not path.is_file():
        return []
    rec = read_json_object(path, "surface-splitter record")
    lines = [
        "- Then put behind a surface splitter by `pearl add-split` (no training, same "
        "weights): joined and web-address forms of a name are rewritten into their words "
        'before tokenising ("NYTimes" -> "NY Times", "nytimes.com" -> "ny times"; '
        "`pearl.models.surface_split`)."
    ]
    if isinstance(rec.get("command"), str):
        lines.append(f"- Command: `{rec['command']}`.")
    return lines


def write_card(folder: str | Path) -> Path:
    """Render the ``README.md`` of a folder that ``pearl train``, ``pearl train-static`` or
    ``pearl finetune`` wrote, from its ``training/`` records (each command calls it).

    A folder with a ``training/config.json`` gets its training command's card with any
    fine-tuning stages (:func:`write_model_card`, :func:`write_static_model_card`, without
    benchmark rows: ``pearl model-card --results`` adds them); a fine-tuned
    sentence-transformers model, or SentPWNet's GloVe encoder trained from scratch, a card
    that names the start and tells the stages. Without this, sentence-transformers writes
    a generic card, or, for a model it loaded, the starting model's card unchanged: a card
    that describes other weights.
    """
    folder = Path(folder)
    if (folder / "training" / "config.json").is_file():
        if is_static_folder(folder):
            return write_static_model_card(folder)
        return write_model_card(folder)
    rec = read_json_object(folder / "training" / "finetune.json", "fine-tuning record")
    start = rec.get("start")
    if start:
        what = f"`{start}` fine-tuned on labelled groups of matching strings."
        base = f"base_model: {json.dumps(str(start))}\n"
    else:
        what = (
            f"SentPWNet's {str(rec.get('encoder', '')).upper()} encoder over GloVe vectors, "
            "trained on labelled groups of matching strings."
        )
        base = ""
    text = _render(
        "finetune_model_card.md",
        name=folder.name,
        base_model=base,
        what=what,
        training="\n".join([*_finetune_lines(folder), *_split_lines(folder)]).replace(
            "- Then fine-tuned", "- Fine-tuned", 1
        ),
    )
    path = folder / "README.md"
    write_text_atomic(path, text + "\n")
    return path


def write_static_model_card(
    folder: str | Path,
    results: str | Path | None = None,
    compare: tuple[str, ...] = ("all-MiniLM-L6-v2", "pearl-minilm"),
    speed: str | Path | None = None,
) -> Path:
    """Render the ``README.md`` of a pearl-static folder (written by ``pearl train-static``,
    possibly fine-tuned after by ``pearl finetune``).

    ``results``: folder of ``pearl eval`` records (the model's row, matched by folder name,
    and the ``compare`` rows go in the card); ``speed``: a ``model_speed.json`` record.
    """
    folder = Path(folder)
    cfg = _training_config(folder, "pearl train-static")
    name = folder.name
    extras = (", phrase-type loss" if cfg.get("type_loss") else "") + (
        f", and distillation of the in-batch similarities of `{Path(cfg['teacher']).name}`"
        if cfg.get("teacher")
        else ""
    )
    training = [
        f"- Corpus `{cfg['corpus']}`, positives `{cfg['augmented']}`, hard negatives "
        f"`{cfg['negatives']}` (no benchmark data).",
        f"- {cfg.get('total_steps')} steps of batch {cfg['batch_size']} over "
        f"{cfg.get('training_pairs', 0):,} pairs, Adam lr {cfg['lr']}, seed {cfg['seed']}; "
        f"token table averaged with the distilled one (weight {cfg['average_weight']}); "
        f"weights stored in {cfg['save_dtype']}.",
        *(
            [
                f"- Teacher: the corpus phrases' embeddings in `{cfg['teacher']}` (`pearl "
                f"teacher`), KL of the in-batch similarity distributions, weight "
                f"{cfg.get('distill_weight')}, temperature {cfg.get('distill_temperature')}."
            ]
            if cfg.get("teacher")
            else []
        ),
        "- Command: `pearl train-static -c configs/pearl-static.toml`.",
        *_finetune_lines(folder),
    ]
    lines = [
        _render(
            "static_model_card.md",
            name=name,
            load_name=_load_name(name),
            backbone=cfg["backbone"],
            pca_dims=cfg["pca_dims"],
            n_buckets=f"{cfg['n_buckets']:,}",
            temperature=cfg["temperature"],
            hard_negatives=cfg["hard_negatives"],
            extras=extras,
            default_note=_default_note(name),
            training="\n".join(training),
        )
    ]
    if results:
        records = load_records(results)
        rows = [r for r in [*(_record(records, c) for c in compare), _record(records, name)] if r]
        if rows:
            lines += ["", "## Benchmark (`pearl eval`)", "", render_markdown(rows, published=False)]
    if speed and Path(speed).is_file():
        rec = read_json_object(speed, "speed record")
        lines += ["", "## Speed", "", f"`{rec['command']}`:", ""]
        lines += [
            f"- {r['model']} (batch {r['batch_size']}): {r['phrases_per_s']:,.0f} phrases/s"
            for r in rec["rows"]
        ]
    path = folder / "README.md"
    write_text_atomic(path, "\n".join(lines) + "\n")
    return path


def is_static_folder(folder: str | Path) -> bool:
    """Whether ``folder`` was written by ``pearl train-static`` (its training config
    records the static model's n-gram table)."""
    try:
        return "n_buckets" in _training_config(Path(folder), "pearl train")
    except FileNotFoundError:
        return False
