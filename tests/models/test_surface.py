import json

import numpy as np
import pytest
import torch

from pearl import PhraseEncoder
from pearl.models.loading import open_model_folder
from pearl.models.raw_text import RawTextTransformer
from pearl.models.static import StaticPhraseEmbedding
from pearl.models.surface import StaticConcat, add_static
from pearl.training.saving import save_model

TEXTS = ["The New York Times", "nytimes.com", "NYTimes", "Café Zürich 🚀", "", "x" * 400]


@pytest.fixture(scope="module")
def static_model(tiny_model_dir):
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tiny_model_dir / "tokenizer.json"))
    torch.manual_seed(0)
    module = StaticPhraseEmbedding(
        tok,
        embedding_weights=torch.randn(tok.get_vocab_size(), 16),
        n_buckets=128,
        ngram_weights=torch.randn(128, 16),
    )
    return SentenceTransformer(modules=[module, Normalize()], device="cpu")


def _unit(x):
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


def test_cosine_is_the_weighted_mean_of_the_two_models(tiny_pearl_dir, static_model, tmp_path):
    base = open_model_folder(tiny_pearl_dir)
    model = add_static(base, static_model, weights=(3, 1))
    assert isinstance(model[0], RawTextTransformer) and not isinstance(base[0], RawTextTransformer)
    save_model(model, tmp_path / "m")
    assert json.loads((tmp_path / "m" / "modules.json").read_text())[-1]["type"] == (
        "pearl.models.surface.StaticConcat"
    )
    enc = PhraseEncoder(str(tmp_path / "m"))  # the strict loader, no code from the folder
    assert enc.embedding_dim == base.get_embedding_dimension() + 16
    out = enc.encode(TEXTS)
    a = _unit(base.encode(TEXTS))
    b = _unit(static_model.encode(TEXTS))
    np.testing.assert_allclose(out, np.hstack([np.sqrt(0.75) * a, np.sqrt(0.25) * b]), atol=1e-6)
    np.testing.assert_allclose(out @ out.T, 0.75 * a @ a.T + 0.25 * b @ b.T, atol=1e-6)


def test_the_static_part_reads_the_typed_text(tiny_pearl_dir, static_model):
    model = add_static(open_model_folder(tiny_pearl_dir), static_model, weights=(0, 1))
    out = model.encode(["NYTimes.com", "nytimes com"])
    # the uncased token ids of the transformer are the same; the n-grams are not
    expected = _unit(static_model.encode(["NYTimes.com", "nytimes com"]))
    np.testing.assert_allclose(out[:, -16:], expected, atol=1e-6)
    assert not np.allclose(out[0], out[1])


def test_float16_folder_and_corrupt_module(tiny_pearl_dir, static_model, tmp_path):
    model = add_static(open_model_folder(tiny_pearl_dir), static_model)
    save_model(model, tmp_path / "h", dtype="float16")
    got = PhraseEncoder(str(tmp_path / "h")).encode(TEXTS[:3])
    np.testing.assert_allclose(got, model.encode(TEXTS[:3]), atol=2e-3)
    (config,) = (tmp_path / "h").glob("*_StaticConcat/static_concat_config.json")
    config.write_text("{}")
    with pytest.raises(OSError, match="StaticConcat"):
        PhraseEncoder(str(tmp_path / "h")).encode(["x"])


def test_bad_inputs_are_refused(tiny_model_dir, tiny_pearl_dir, static_model):
    base = open_model_folder(tiny_pearl_dir)
    with pytest.raises(ValueError, match="weights"):
        StaticConcat(static_model[0], phrase_dim=8, weights=(0, 0))
    with pytest.raises(ValueError, match="pearl-static"):
        add_static(base, base)
    with pytest.raises(ValueError, match="Transformer"):
        add_static(static_model, static_model)
    with pytest.raises(ValueError, match="already"):
        add_static(add_static(base, static_model), static_model)
    # without the strings (a plain first module), a clear error, not a silent fallback
    from sentence_transformers import SentenceTransformer

    plain = SentenceTransformer(
        modules=[*base, StaticConcat(static_model[0], base.get_embedding_dimension())],
        device="cpu",
    )
    with pytest.raises(ValueError, match="RawTextTransformer"):
        plain.encode(["x"])


def test_add_static_command(tiny_pearl_dir, static_model, tmp_path):
    from pearl.cli import main

    static_model.save(str(tmp_path / "static"))
    out = tmp_path / "out"
    args = ["add-static", "-m", str(tiny_pearl_dir), "--static", str(tmp_path / "static")]
    assert main([*args, "-o", str(out), "--weights", "1", "3", "--save-dtype", "float32"]) == 0
    got = PhraseEncoder(str(out)).encode(TEXTS)
    a = _unit(open_model_folder(tiny_pearl_dir).encode(TEXTS))
    b = _unit(static_model.encode(TEXTS))
    np.testing.assert_allclose(got, np.hstack([np.sqrt(0.25) * a, np.sqrt(0.75) * b]), atol=1e-6)
    with pytest.raises(SystemExit):  # a negative weight is refused by the parser
        main([*args, "-o", str(tmp_path / "bad"), "--weights", "-1", "1"])
