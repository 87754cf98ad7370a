"""The shipped pearl-minilm model: present, small, the default, loadable by both libraries."""

from pathlib import Path

import numpy as np
import pytest

from pearl import PhraseEncoder
from pearl.encoders.resolve import resolve_model_path

pytestmark = pytest.mark.integration
TEXTS = ["The New York Times", "nytimes.com", "NYTimes", "", "café 🙂"]


@pytest.fixture(scope="module")
def folder() -> Path:
    return Path(resolve_model_path("pearl-minilm"))


def test_shipped_folder_is_small_and_float16(folder):
    from safetensors.torch import load_file

    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert size < 60e6
    weights = load_file(str(folder / "model.safetensors"))
    assert {str(v.dtype) for v in weights.values()} == {"torch.float16"}
    assert (folder / "README.md").read_text().count("pearl-minilm") > 1


def test_shipped_model_loads_by_name_identical_in_sentence_transformers(folder):
    from sentence_transformers import SentenceTransformer

    enc = PhraseEncoder("pearl-minilm")
    assert enc.path == str(folder) and enc.embedding_dim == 384 + 128
    ours = enc.encode(TEXTS)
    ref = SentenceTransformer(str(folder), trust_remote_code=True, device="cpu").encode(TEXTS)
    np.testing.assert_array_equal(ours, ref)


def test_typo_stays_close(folder):
    enc = PhraseEncoder("pearl-minilm")
    sims = enc.similarity("The New York Times", ["The New York Tmies", "two years after"])
    assert sims[0, 0] > sims[0, 1]


@pytest.mark.parametrize("name", ["pearl-minilm", "pearl-static", "all-MiniLM-L6-v2"])
def test_each_shipped_model_finds_its_matcher_weights_by_fingerprint(name):
    """A change to a shipped folder (even a renamed file) must come with its calibration:
    a copy of the folder is matched by fingerprint, never by name."""
    import json

    from pearl.encoders.fingerprint import folder_fingerprint
    from pearl.tables.matcher import WEIGHTS_FILE

    table = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))["models"]
    assert table[name]["fingerprint"] == folder_fingerprint(resolve_model_path(name))


def test_model2vec_refuses_pearl_static_rather_than_load_it_wrong():
    """model2vec would read the token table alone (other vectors, no n-grams): the folder
    is laid out so that it refuses it (issue 37)."""
    model2vec = pytest.importorskip("model2vec")
    with pytest.raises(Exception, match="layout|not found|No such|does not"):
        model2vec.StaticModel.from_pretrained(resolve_model_path("pearl-static"))


def test_the_default_model_answers_the_papers_figure_1(capsys):
    """`pearl similarity` with the default model puts the joined and web-address forms of
    "The New York Times" above the other newspapers and the city (issue 82; the README's
    quickstart)."""
    from pearl import DEFAULT_MODEL
    from pearl.cli import main

    same = ["NYTimes", "nytimes.com", "NY Times"]
    other = ["New York Post", "New York", "Washington Post"]
    assert main(["similarity", "The New York Times", *same, *other]) == 0
    ranked = [
        line.split(maxsplit=1)[1].rsplit(maxsplit=1)[0]
        for line in capsys.readouterr().out.splitlines()
        if line.strip()[:1].isdigit()
    ]
    assert DEFAULT_MODEL == "pearl-minilm"
    assert set(ranked[:3]) == set(same) and set(ranked[3:]) == set(other)
