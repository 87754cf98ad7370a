"""Uniform "model soup" of PEARL models fine-tuned from the same backbone.

Averages every weight (backbone, character encoder, type head) of the given model folders
and saves the result in float32, to be scored with ``pearl eval``. Not a training recipe:
each ingredient is a full training run, so a soup of k runs costs k times the 2-hour budget.

    python experiments/soup.py pearl-minilm models/pearl-minilm-v3 \
        models/pearl-minilm-b512 -o models/soup3
"""

from __future__ import annotations

import argparse

import torch

from pearl.encoders import PhraseEncoder


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", help="model names or folders (same architecture)")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args(argv)
    if len(a.models) < 2:
        raise SystemExit("a soup needs at least two models")
    first = PhraseEncoder(a.models[0]).model.float()
    states = [first.state_dict()]
    for name in a.models[1:]:
        states.append(PhraseEncoder(name).model.float().state_dict())
    keys = set(states[0])
    if any(set(s) != keys for s in states[1:]):
        raise SystemExit("the models do not share one architecture")
    soup = {
        k: torch.stack([s[k].float() for s in states]).mean(0)
        if states[0][k].is_floating_point()
        else states[0][k]
        for k in keys
    }
    first.load_state_dict(soup)
    first.save(a.output)
    print(f"soup of {len(states)} models saved to {a.output}")


if __name__ == "__main__":
    main()
