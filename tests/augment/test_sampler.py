import pytest

from pearl.augment.char import drop_char, swap_chars
from pearl.augment.sampler import AugmentationSampler, precompute, read_augmented


def _never(phrase, rng):
    return None


def test_weights_and_fallback():
    s = AugmentationSampler({"swap": swap_chars, "never": _never}, {"never": 100}, seed=0)
    out, name = s.augment("London", 0)
    assert name == "swap" and out != "London"  # "never" fails, the sampler falls back
    off = AugmentationSampler({"swap": swap_chars}, {"swap": 0})
    assert off.augment("London", 0) == ("London", "identity")
    with pytest.raises(ValueError, match="unknown"):
        AugmentationSampler({"swap": swap_chars}, {"nope": 1})


def test_distribution_follows_weights():
    s = AugmentationSampler({"swap": swap_chars, "drop": drop_char}, {"swap": 3, "drop": 1})
    names = [s.augment("Amsterdam", i)[1] for i in range(400)]
    assert 0.65 < names.count("swap") / 400 < 0.85


def test_precompute_is_reproducible(tmp_path):
    s = AugmentationSampler({"swap": swap_chars, "drop": drop_char}, seed=7)
    phrases = ["New York", "Paris", "🙂 émoji", ""]
    precompute(phrases, s, tmp_path / "a.tsv", views=2, show_progress_bar=False)
    precompute(phrases, s, tmp_path / "b.tsv", views=2, show_progress_bar=False)
    assert (tmp_path / "a.tsv").read_bytes() == (tmp_path / "b.tsv").read_bytes()
    rows = read_augmented(tmp_path / "a.tsv")
    assert len(rows) == 8 and rows[-1] == ("", "", "identity")
