"""The matcher's weights are fitted by library code (issue 34): what
benchmarks/data/matcher_weights.py --ship stores comes from these functions."""

import json
import random

import numpy as np
import pytest

from pearl.augment.char import drop_char, swap_chars
from pearl.tables.matcher import MatchScorer
from pearl.training.matcher_weights import (
    SHIPPED_KEYS,
    alias_queries,
    fit_matcher_weights,
    matcher_training_views,
    near_duplicates,
    store_matcher_weights,
)

WORDS = [
    "north",
    "river",
    "global",
    "union",
    "star",
    "pacific",
    "summit",
    "metro",
    "alpha",
    "harbor",
    "crown",
    "liberty",
    "falcon",
    "granite",
    "maple",
    "orbit",
]
KINDS = ["Bank", "Airlines", "Foods", "Energy", "Press", "Motors"]


def _names(n=120, seed=0):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        name = f"{rng.choice(WORDS).title()} {rng.choice(WORDS).title()} {rng.choice(KINDS)}"
        if name not in out:
            out.append(name)
    return out


def test_fit_gives_shippable_calibrated_weights(hash_encoder):
    sample = _names()
    rng = random.Random(1)
    views = [(drop_char if i % 2 else swap_chars)(s, rng) for i, s in enumerate(sample)]
    rec = fit_matcher_weights(hash_encoder, sample, views, seed=0, top_k=5, show_progress_bar=False)
    assert set(SHIPPED_KEYS) <= set(rec)
    assert rec["fingerprint"] == hash_encoder.fingerprint
    assert min(rec["weights"]) >= 0 and len(rec["weights"]) == 3
    # typo'd views of distinct names: the combined score finds the source most of the time
    assert rec["top1"]["combined"] >= 0.8
    scorer = MatchScorer.from_dict({k: rec[k] for k in SHIPPED_KEYS})
    p = scorer.probability(np.array([0.95, 0.1]), np.array([0.9, 0.05]))
    assert 0 <= p[1] < p[0] <= 1


def test_store_adds_and_replaces_entries(tmp_path):
    path = tmp_path / "weights.json"
    row = {
        "model": "a",
        "weights": [1.0, 1.0, 0.0],
        "bias": -1.0,
        "source": "s",
        "fingerprint": "f",
        "calibration": [],
        "margin": None,
        "top1": {"combined": 1},
    }
    store_matcher_weights([row], path)
    table = json.loads(path.read_text())
    assert table["default"] == "a" and set(table["models"]["a"]) <= set(SHIPPED_KEYS)
    store_matcher_weights([dict(row, model="b", bias=-2.0)], path, fallback="b")
    table = json.loads(path.read_text())
    assert table["default"] == "b" and set(table["models"]) == {"a", "b"}
    with pytest.raises(ValueError, match="fallback"):
        store_matcher_weights([row], path, fallback="zzz")


def test_alias_queries_and_near_duplicates(tmp_path, training_files):
    csv = tmp_path / "aliases.csv"
    csv.write_text(
        "group,text,source\n0,The Hague,wordnet\n0,Den Haag,wordnet\n"
        "1,IBM,definition\n1,International Business Machines,definition\n"
        "2,Only Form,variants\n3,x,replay\n3,y,replay\n",
        encoding="utf-8",
    )
    queries, targets = alias_queries(csv, n=10, seed=0)
    assert len(queries) == len(targets) == 2  # the single form and the replay group left out
    assert {frozenset(p) for p in zip(queries, targets, strict=True)} == {
        frozenset({"The Hague", "Den Haag"}),
        frozenset({"IBM", "International Business Machines"}),
    }
    assert alias_queries(None, 10, 0) == ([], [])
    from pearl.mining.hard_negatives import read_hard_negatives

    negatives = read_hard_negatives(training_files["negatives"])
    sample = list(negatives)[:3]
    dups = near_duplicates(training_files["negatives"], sample)
    assert dups and not set(dups) & set(sample)
    assert set(dups) <= {n for s in sample for n in negatives[s]}


def test_training_views_are_seeded_augmentations(training_files):
    from conftest import SHARED_DATA

    wordnet = SHARED_DATA / "lexicon" / "wordnet"
    if not wordnet.is_dir():
        pytest.skip("no WordNet in ../shared/data")
    a = matcher_training_views(training_files["corpus"], 5, 0, wordnet)
    b = matcher_training_views(training_files["corpus"], 5, 0, wordnet)
    sample, views, kinds = a
    assert a == b and len(sample) == len(views) == len(kinds) == 5
    assert len(set(sample)) == 5


def test_cli_ship_adds_the_entry_to_the_package_weights_file(tmp_path, tiny_model_dir, monkeypatch):
    import shutil

    from conftest import SHARED_DATA

    import pearl.tables.matcher as matcher
    from pearl.cli import main

    if not (SHARED_DATA / "lexicon" / "wordnet").is_dir():
        pytest.skip("no WordNet in ../shared/data")
    shipped = tmp_path / "shipped.json"
    shutil.copy(matcher.WEIGHTS_FILE, shipped)
    monkeypatch.setattr(matcher, "WEIGHTS_FILE", shipped)
    corpus = tmp_path / "corpus.tsv"
    rows = [f"{name}\tNP-ORG\t3\ttest" for name in _names()]
    corpus.write_text("phrase\tlabel\tfrequency\tsource\n" + "\n".join(rows) + "\n")
    argv = ["matcher-weights", str(corpus), "-m", str(tiny_model_dir), "--ship"]
    assert main([*argv, "--n", "120", "--data", str(SHARED_DATA), "-q"]) == 0
    table = json.loads(shipped.read_text())
    assert str(tiny_model_dir) in table["models"]
    assert "30% of queries unmatched" in table["models"][str(tiny_model_dir)]["source"]
    assert {"pearl-static", "pearl-minilm"} <= set(table["models"])  # the others kept
    with pytest.raises(SystemExit):  # one place to write: --ship or -o
        main([*argv, "-o", str(tmp_path / "w.json")])


def test_cli_writes_a_weights_file_the_scorer_reads(tmp_path, tiny_model_dir):
    from conftest import SHARED_DATA

    from pearl.cli import main

    if not (SHARED_DATA / "lexicon" / "wordnet").is_dir():
        pytest.skip("no WordNet in ../shared/data")
    corpus = tmp_path / "corpus.tsv"
    rows = [f"{name}\tNP-ORG\t3\ttest" for name in _names()]
    corpus.write_text("phrase\tlabel\tfrequency\tsource\n" + "\n".join(rows) + "\n")
    out = tmp_path / "weights.json"
    argv = ["matcher-weights", str(corpus), "-m", str(tiny_model_dir)]
    assert main([*argv, "-o", str(out), "--n", "120", "--data", str(SHARED_DATA), "-q"]) == 0
    scorer = MatchScorer.from_file(out, str(tiny_model_dir))
    assert scorer == MatchScorer.from_file(out)  # the only entry is the default
    assert min(scorer.weights) >= 0
    with pytest.raises(KeyError, match="no weights for 'other'"):
        MatchScorer.from_file(out, "other")
    with pytest.raises(ValueError, match="not a matcher weights file"):
        (tmp_path / "x.json").write_text("[]")
        MatchScorer.from_file(tmp_path / "x.json")


def test_unmatched_queries_move_the_probabilities_not_the_ranking(hash_encoder):
    sample = _names(200)
    rng = random.Random(1)
    views = [(drop_char if i % 2 else swap_chars)(s, rng) for i, s in enumerate(sample)]
    fit = dict(seed=0, top_k=5, show_progress_bar=False)
    every = fit_matcher_weights(hash_encoder, sample, views, unmatched_share=0.0, **fit)
    some = fit_matcher_weights(hash_encoder, sample, views, unmatched_share=0.5, **fit)
    assert some["weights"] == every["weights"] and some["bias"] == every["bias"]
    assert some["top1"] == every["top1"] and some["unmatched_share"] == 0.5
    a = MatchScorer.from_dict({k: every[k] for k in SHIPPED_KEYS})
    b = MatchScorer.from_dict({k: some[k] for k in SHIPPED_KEYS})
    # a pair seen alone (deduplicate) keeps its probability ...
    assert some["calibration"] == every["calibration"]
    # ... a best candidate among others (a join) is less often right where half the rows
    # have no partner
    lo = a.score(np.array([0.3]), np.array([0.2]))[0]
    best = np.linspace(lo, 0.999, 50)
    ranked = np.stack([best, np.full_like(best, lo)], axis=1)
    assert (b.ranked(ranked)[:, 0] <= a.ranked(ranked)[:, 0] + 1e-6).all()
    assert (b.ranked(ranked)[:, 0] < a.ranked(ranked)[:, 0] - 0.05).any()
    with pytest.raises(ValueError, match="unmatched_share"):
        fit_matcher_weights(hash_encoder, sample, views, unmatched_share=1.0, **fit)
