"""The objective of a training configuration as a list of loss specs.

A recipe may write its objective as the list of its terms, in the order they are summed::

    [[objective]]
    loss = "infonce"          # the contrastive term: "infonce", "triplet" or "phrase-bert"
    temperature = 0.07
    hard_negatives = 2
    [[objective]]
    loss = "type"             # the phrase-type cross-entropy
    weight = 1.0
    [[objective]]
    loss = "type_contrastive" # supervised contrastive over entity types
    weight = 0.2
    batch_share = 0.25

A term left out is off. :func:`flat_options` turns such a list into the configuration's
options (what checkpoints and training records store, so older ones keep resuming), and
:func:`loss_specs` gives the list back from a configuration; the trainers build their
objective from it (:func:`pearl.training.objective.build_objective`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["SPEC_OPTIONS", "CONTRASTIVE", "LOSS_ORDER", "flat_options", "loss_specs"]

#: the contrastive losses (one of them is the first term of every objective)
CONTRASTIVE = ("infonce", "triplet", "phrase-bert")

#: each loss's spec keys -> the configuration option each one sets
SPEC_OPTIONS: dict[str, dict[str, str]] = {
    **{
        name: {
            "temperature": "temperature",
            "margin": "margin",
            "hard_negatives": "hard_negatives",
            "triplets": "triplets",
        }
        for name in CONTRASTIVE
    },
    "context": {
        "weight": "context_weight",
        "margin": "margin",
        "max_contexts": "max_contexts",
        "contexts": "contexts",
    },
    "distill": {
        "weight": "distill_weight",
        "temperature": "distill_temperature",
        "teacher": "teacher",
    },
    "type": {"weight": "type_weight"},
    "type_contrastive": {
        "weight": "type_contrastive_weight",
        "temperature": "type_contrastive_temperature",
        "batch_share": "type_batch_share",
        "group_size": "type_group_size",
    },
    "word_negatives": {
        "weight": "word_negative_weight",
        "temperature": "word_negative_temperature",
        "negatives": "word_negatives",
    },
}
#: the order in which a configuration's terms are summed (a configuration may set its own)
LOSS_ORDER = ("contrastive", "context", "distill", "type", "type_contrastive", "word_negatives")
# the options that switch a term off when the list leaves it out
_OFF = {
    "type": ("type_loss", False),
    "type_contrastive": ("type_contrastive_weight", 0.0),
    "word_negatives": ("word_negative_weight", 0.0),
}


def flat_options(specs: Any, known: set[str]) -> dict[str, Any]:
    """The configuration options of a list of loss specs (each a table with ``loss``).

    ``known`` are the options of the configuration class: a loss or key it has no option
    for is an error, as is a list without a contrastive term first or a loss named twice.
    """
    if not isinstance(specs, list) or not all(isinstance(s, dict) for s in specs):
        raise ValueError("objective: expected a list of loss tables ([[objective]] in TOML)")
    names = [s.get("loss") for s in specs]
    if not names or names[0] not in CONTRASTIVE:
        raise ValueError(
            f"objective: the first loss must be one of {', '.join(CONTRASTIVE)}, "
            f"got {names[0] if names else 'none'!r}"
        )
    if len(set(names)) != len(names):
        raise ValueError(f"objective: a loss is named twice ({', '.join(map(str, names))})")
    out: dict[str, Any] = {"objective": names[0]} if "objective" in known else {}
    for option, off in _OFF.values():
        if option in known:
            out[option] = off
    if "type" in names:
        out["type_loss"] = True
    for spec in specs:
        name = spec["loss"]
        keys = SPEC_OPTIONS.get(name)
        if keys is None or (name in CONTRASTIVE[1:] and "objective" not in known):
            raise ValueError(f"objective: unknown loss {name!r}")
        for key, value in spec.items():
            if key == "loss":
                continue
            target = keys.get(key)
            if target is None or target not in known:
                raise ValueError(f"objective: the {name!r} loss has no option {key!r}")
            out[target] = value
    return out


def loss_specs(config: Any) -> list[dict[str, Any]]:
    """The objective of ``config`` (a :class:`~pearl.training.config.TrainConfig` or a
    pearl-static configuration) as loss specs, in the order its terms are summed (the
    configuration's ``LOSS_ORDER``; by default contrastive, context, distillation, type,
    type-contrastive). The context and distillation terms are on when their file is set."""
    get = config.__dict__.get
    made = {
        "contrastive": {
            "loss": get("objective", "infonce"),
            "temperature": config.temperature,
            "margin": get("margin", 1.0),
        }
    }
    if get("contexts"):
        made["context"] = {
            "loss": "context",
            "weight": config.context_weight,
            "margin": config.margin,
            "max_contexts": config.max_contexts,
        }
    if get("teacher"):
        made["distill"] = {
            "loss": "distill",
            "weight": config.distill_weight,
            "temperature": config.distill_temperature,
        }
    if get("type_loss"):
        made["type"] = {"loss": "type", "weight": config.type_weight}
    if get("type_contrastive_weight", 0.0) > 0:
        made["type_contrastive"] = {
            "loss": "type_contrastive",
            "weight": config.type_contrastive_weight,
            "temperature": config.type_contrastive_temperature,
        }
    if get("word_negative_weight", 0.0) > 0:
        made["word_negatives"] = {
            "loss": "word_negatives",
            "weight": config.word_negative_weight,
            "temperature": config.word_negative_temperature,
        }
    order = getattr(config, "LOSS_ORDER", LOSS_ORDER)
    return [made[k] for k in order if k in made]
