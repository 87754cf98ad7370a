"""Issue 49: where the development score of a trained run goes when its weights are averaged.

A run's checkpoint folder keeps the initial weights (``initial.safetensors``) and the last
trained ones (``state.safetensors``). This scores, with the development proxy
(:func:`pearl.evaluation.dev_proxy.dev_scores`, float32), the saved model and the same
folder loaded with the trained weights, with their mean with the initial weights at
``--weight`` (all of them, the transformer's only, the character channel's only), and
with the initial weights alone: whether averaging (PEARL's last step) or the saving
explains a gap between a run's development curve and its saved model, and which part.

    python experiments/averaging_halves.py models/c49-long-attention
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from safetensors.torch import load_file

from pearl import PhraseEncoder
from pearl.evaluation.dev_proxy import dev_scores, dev_tasks
from pearl.training import average_weights


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "model", type=Path, help="a saved model folder, MODEL.checkpoints beside it"
    )
    parser.add_argument("--weight", type=float, default=0.5, help="the initial weights' share")
    parser.add_argument("-o", "--output", type=Path, help="a JSON file for the scores")
    args = parser.parse_args(argv)
    checkpoints = args.model.with_name(args.model.name + ".checkpoints")
    tasks = dev_tasks()
    encoder = PhraseEncoder(str(args.model), compute_dtype="float32")
    module = encoder.model.float()
    names = list(module.state_dict())
    scores = {"saved model": dev_scores(encoder, tasks)}
    trained = {
        k.removeprefix("model."): v
        for k, v in load_file(checkpoints / "state.safetensors").items()
        if k.startswith("model.")
    }
    initial = load_file(checkpoints / "initial.safetensors")

    def score(weights: dict, scope: str | None = None) -> dict:
        """The proxy's scores of the folder with ``weights``, averaged by the library's
        ``average_weights`` (the trainer's code) when ``scope`` is given."""
        module.load_state_dict({k: weights[k].float() for k in names}, strict=True)
        if scope is not None:
            average_weights(module, initial, args.weight, scope=scope)
        return dev_scores(encoder, tasks)

    # no scope averages the character channel alone: the transformer (the first module,
    # "0.") as trained, every other tensor mixed (the type head too: it encodes nothing)
    chars = {
        k: v if k.startswith("0.") else (1 - args.weight) * v + args.weight * initial[k]
        for k, v in trained.items()
    }
    scores["trained weights"] = score(trained)
    scores[f"averaged here ({args.weight:g} initial)"] = score(trained, "all")
    scores["transformer averaged, character channel as trained"] = score(trained, "transformer")
    scores["character channel averaged, transformer as trained"] = score(chars)
    scores["initial weights"] = score(initial)
    for label, s in scores.items():
        print(f"{label}: {s}")
    if args.output:
        args.output.write_text(json.dumps(scores, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
