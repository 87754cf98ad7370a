"""pearl-static served with NumPy: the torch module's vectors, without importing torch."""

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from pearl.encoders import PhraseEncoder
from pearl.encoders.resolve import model_folder
from pearl.models import static_inference
from pearl.models.folder_checks import TORCH_FREE_TYPES, module_registry
from pearl.models.static_inference import StaticInference, is_static_stack

PHRASES = [
    "",
    "   ",
    "The New York Times",
    "NYTimes",
    "nytimes.com",
    "🙂 emoji only 🙂",
    "東京都",
    "Zürich",
    "a" * 600,
    "x",
    "lone \ud800 surrogate",
    "New  York\tPost",
] + [f"company number {i} of springfield" for i in range(120)]


@pytest.fixture(scope="module")
def static_pair():
    fast = PhraseEncoder("pearl-static")
    reference = PhraseEncoder("pearl-static")
    reference.model  # noqa: B018 - reading it switches this one to the torch module
    return fast, reference


@pytest.mark.parametrize("n", [1, 5, static_inference.SPARSE_FROM - 1, len(PHRASES)])
def test_vectors_equal_the_torch_modules(static_pair, n):
    fast, reference = static_pair
    assert fast._model is None and reference._model is not None
    got, want = fast.encode(PHRASES[:n]), reference.encode(PHRASES[:n])
    assert got.dtype == np.float32 and got.shape == want.shape
    assert np.abs(got - want).max() <= 1e-6
    norms = np.linalg.norm(got, axis=1)
    assert np.allclose(norms[norms > 0], 1, atol=1e-5)  # the folder ends with Normalize


def test_an_accent_in_either_unicode_form_gives_one_vector(static_pair):
    # the torch module and the NumPy path both read the composed form (NFC)
    for enc in static_pair:
        composed, decomposed = enc.encode(["Z\u00fcrich Caf\u00e9", "Zu\u0308rich Cafe\u0301"])
        np.testing.assert_array_equal(composed, decomposed)


def test_an_empty_phrase_is_the_zero_vector(static_pair):
    fast, _ = static_pair
    assert not fast.encode([""]).any() and not fast.encode(["   "]).any()
    assert fast.encode([]).shape == (0, fast.embedding_dim)


def test_serving_a_static_model_imports_neither_torch_nor_sentence_transformers():
    code = (
        "import sys, pandas as pd, pearl\n"
        "enc = pearl.PhraseEncoder('pearl-static')\n"
        "v = enc.encode(['The New York Times'] * 200)\n"
        "pearl.deduplicate(['acme', 'acme corp', 'acme corp.'], model='pearl-static')\n"
        "left = pd.DataFrame({'name': ['acme corp', 'globex'], 'city': ['paris', 'rome']})\n"
        "right = pd.DataFrame({'name': ['acme corp.', 'initech'], 'city': ['paris', 'oslo']})\n"
        "pearl.fuzzy_join(left, right, on='name', model='pearl-static')\n"
        "pearl.fuzzy_join(left, right, on=['name', 'city'], model='pearl-static')\n"
        "print(v.shape, 'torch' in sys.modules, 'sentence_transformers' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.split()[-2:] == ["False", "False"], out.stdout + out.stderr


def test_reading_model_switches_encoding_to_it(tmp_path):
    enc = PhraseEncoder("pearl-static")
    before = enc.encode(["springfield"])
    st = enc.model
    with __import__("torch").no_grad():
        st[0].ngrams.weight.zero_()  # a change made to the model is seen by encode
    assert not np.allclose(enc.encode(["springfield"]), before)


def test_max_seq_length_of_a_static_model(static_pair):
    fast, reference = static_pair
    assert fast.max_seq_length == reference.max_seq_length == float("inf")
    with pytest.raises(AttributeError, match="static model"):
        fast.max_seq_length = 8


def test_prompts_come_from_the_folder(static_pair):
    fast, reference = static_pair
    assert fast._prompt(None, "query") == reference._prompt(None, "query") == ""
    with pytest.raises(ValueError, match="prompts"):
        fast._prompt(None, "nope")


def _copy_static(tmp_path):
    folder = tmp_path / "static"
    shutil.copytree(model_folder("pearl-static"), folder)
    return folder


def test_a_table_that_does_not_fit_its_config_is_refused(tmp_path):
    folder = _copy_static(tmp_path)
    config = json.loads((folder / static_inference.CONFIG).read_text())
    config["n_buckets"] = 99
    (folder / static_inference.CONFIG).write_text(json.dumps(config))
    with pytest.raises(OSError, match="99 n-gram buckets"):
        PhraseEncoder(folder)


def test_a_token_table_smaller_than_the_vocabulary_is_refused(tmp_path):
    folder = _copy_static(tmp_path)
    weights = folder / static_inference.WEIGHTS
    state = load_file(str(weights))
    state["embedding.weight"] = state["embedding.weight"][:100]
    save_file(state, str(weights))
    with pytest.raises(OSError, match="ids past the table"):
        PhraseEncoder(folder)


@pytest.mark.parametrize("broken", ["missing", "not json", "no key"])
def test_a_broken_static_config_is_an_oserror_naming_the_folder(tmp_path, broken):
    folder = _copy_static(tmp_path)
    config = folder / static_inference.CONFIG
    if broken == "missing":
        config.unlink()
    elif broken == "not json":
        config.write_text("{")
    else:
        config.write_text("{}")
    with pytest.raises(OSError, match="static"):
        PhraseEncoder(folder)


def test_only_the_static_stack_is_served_without_torch():
    static = {"type": "pearl.models.static.StaticPhraseEmbedding", "path": ""}
    norm = {"type": "sentence_transformers.models.Normalize", "path": "1_Normalize"}
    dense = {"type": "sentence_transformers.models.Dense", "path": "1_Dense"}
    assert is_static_stack([static]) and is_static_stack([static, norm])
    assert not is_static_stack([static, dense]) and not is_static_stack([static, norm, norm])
    assert not is_static_stack([{**static, "path": "0_Static"}]) and not is_static_stack([])


def test_the_torch_free_types_are_in_the_registry():
    assert TORCH_FREE_TYPES <= set(module_registry())


def test_a_static_folder_without_normalize_gives_the_raw_vectors(tmp_path):
    folder = _copy_static(tmp_path)
    modules = json.loads((folder / "modules.json").read_text())
    (folder / "modules.json").write_text(json.dumps(modules[:1]))  # no Normalize
    enc = PhraseEncoder(folder)
    assert isinstance(enc._static, StaticInference) and not enc._static.normalize
    raw = enc.encode(["springfield"])
    assert np.linalg.norm(raw) > 1.01 or np.linalg.norm(raw) < 0.99
    reference = PhraseEncoder(folder)
    assert np.abs(reference.model.encode(["springfield"]) - raw).max() <= 1e-6


def test_a_torch_free_encoder_pickles_as_dask_ships_it(static_pair):
    import pickle

    fast, _ = static_pair
    copy = pickle.loads(pickle.dumps(fast))
    assert copy._model is None
    np.testing.assert_array_equal(copy.encode(PHRASES[:8]), fast.encode(PHRASES[:8]))


@pytest.mark.parametrize("value", [float("nan"), float("-inf")])
@pytest.mark.parametrize("table", ["embedding.weight", "ngrams.weight"])
def test_a_static_table_with_non_finite_weights_is_refused(tmp_path, table, value):
    folder = _copy_static(tmp_path)
    weights = folder / static_inference.WEIGHTS
    state = load_file(str(weights))
    state[table][5, 1] = value
    save_file(state, str(weights))
    with pytest.raises(OSError, match="NaN or infinite weights"):
        PhraseEncoder(folder)


def test_a_static_tokenizer_id_past_the_table_is_refused(tmp_path):
    folder = _copy_static(tmp_path)
    path = folder / "tokenizer.json"
    tok = json.loads(path.read_text())
    vocab = tok["model"]["vocab"]
    rows = load_file(str(folder / static_inference.WEIGHTS))["embedding.weight"].shape[0]
    vocab[max(vocab, key=vocab.get)] = rows + 10
    path.write_text(json.dumps(tok))
    with pytest.raises(OSError, match="ids up to"):
        PhraseEncoder(folder)


@pytest.mark.parametrize("field, value", [("ngram_range", [1, 100000]), ("max_chars", 10**9)])
def test_size_like_static_config_values_are_bounded(tmp_path, field, value):
    folder = _copy_static(tmp_path)
    config = json.loads((folder / static_inference.CONFIG).read_text())
    config[field] = value
    (folder / static_inference.CONFIG).write_text(json.dumps(config))
    with pytest.raises(OSError, match="must be ordered"):
        PhraseEncoder(folder)


def test_ngram_sizes_past_the_longest_text_cost_nothing():
    from pearl.models.char_ngrams import char_ngram_ids

    texts = ["acme", "globex corp", ""]
    short = char_ngram_ids(texts, 1024, (2, 13))  # 13 bytes: "<globex corp>"
    long = char_ngram_ids(texts, 1024, (2, 100_000))
    assert all(np.array_equal(a, b) for a, b in zip(short, long, strict=True))
    ids, offsets = char_ngram_ids(["ab"], 1024, (9, 12))  # no n-gram that long
    assert len(ids) == 0 and offsets.tolist() == [0]
