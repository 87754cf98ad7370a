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
