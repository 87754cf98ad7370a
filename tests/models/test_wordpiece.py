"""The printable-ASCII WordPiece path gives tokenizers' ids, and only where it may."""

from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import Whitespace

from pearl.encoders.resolve import resolve_model_path
from pearl.models.wordpiece import AsciiWordPiece


@pytest.fixture
def bert():
    tok = Tokenizer.from_file(str(Path(resolve_model_path("all-MiniLM-L6-v2")) / "tokenizer.json"))
    assert AsciiWordPiece.from_tokenizer(tok) is None  # it pads: ids would differ
    tok.no_padding()  # as pearl-static's inference does
    return tok


def _texts():
    rng = np.random.default_rng(0)
    printable = [chr(c) for c in range(0x20, 0x7F)]
    letters = list("abcdefghijklmnopqrstuvwxyz") * 4 + list(" .,-'&/()#_") + list("0123456789")
    texts = [
        "",
        " ",
        "The New York Times",
        "NYTimes nytimes.com N.Y. Times",
        'AT&T / at-t_corp (USA) #1 @home ~`^|{}[]\\"',
        "x" * 150,  # longer than max_input_chars_per_word: one unknown token
        "qzxqzxqzx unaffable",  # continuations and a word without a full match
        "[MASK] of the [cls] and [Sep]",  # added tokens: tokenizers' own path
        "tabs\tand\nnewlines",  # not printable ASCII
        "Zürich café",
        "🙂 emoji",
        "word " * 300,  # past the tokenizer's truncation
    ]
    texts += ["".join(rng.choice(printable, rng.integers(0, 40))) for _ in range(300)]
    texts += ["".join(rng.choice(letters, rng.integers(1, 60))) for _ in range(300)]
    return texts


def _reference(tok, texts):
    ids = [e.ids for e in tok.encode_batch_fast(texts, add_special_tokens=False)]
    return np.array([i for t in ids for i in t], dtype=np.int64), np.array([len(t) for t in ids])


@pytest.mark.parametrize("cut", [None, ("right", 7), ("left", 7)])
def test_ids_equal_tokenizers_ids(bert, cut):
    if cut is None:
        bert.no_truncation()
    else:
        bert.enable_truncation(cut[1], direction=cut[0])
    fast = AsciiWordPiece.from_tokenizer(bert)
    assert fast is not None
    texts = _texts()
    flat, lengths = fast.flat_ids(texts)
    ref_flat, ref_lengths = _reference(bert, texts)
    np.testing.assert_array_equal(lengths, ref_lengths)
    np.testing.assert_array_equal(flat, ref_flat)
    assert flat.dtype == lengths.dtype == np.int64
    empty = fast.flat_ids([])
    assert empty[0].shape == empty[1].shape == (0,)
    for only in (["Zürich", "🙂"], ["", "", "a"], [""]):  # tokenizers' texts alone, empty ones
        np.testing.assert_array_equal(fast.flat_ids(only)[0], _reference(bert, only)[0])
        np.testing.assert_array_equal(fast.flat_ids(only)[1], _reference(bert, only)[1])


def test_other_pipelines_are_left_to_tokenizers(bert):
    assert AsciiWordPiece.from_tokenizer(bert) is not None  # the packaged truncation: fine
    bert.enable_truncation(16, stride=2)
    assert AsciiWordPiece.from_tokenizer(bert) is None
    other = Tokenizer(WordLevel({"[UNK]": 0, "a": 1}, unk_token="[UNK]"))
    other.pre_tokenizer = Whitespace()
    assert AsciiWordPiece.from_tokenizer(other) is None
    assert AsciiWordPiece.from_tokenizer(object()) is None
