"""Integration tests with the packaged all-MiniLM-L6-v2 and the shared benchmark files."""

import numpy as np
import pytest
from conftest import SHARED_DATA

from pearl import PhraseEncoder
from pearl.encoders.resolve import resolve_model_path

pytestmark = pytest.mark.integration
needs_data = pytest.mark.skipif(
    not (SHARED_DATA / "benchmark").is_dir(), reason="../shared/data not present"
)


@pytest.fixture(scope="module")
def minilm():
    return PhraseEncoder("all-MiniLM-L6-v2")


def test_same_embeddings_as_sentence_transformers(minilm):
    from sentence_transformers import SentenceTransformer

    texts = ["The New York Times", "nytimes.com", "NYTimes", "New York Post", "", "🙂"]
    ref = SentenceTransformer(resolve_model_path("all-MiniLM-L6-v2"), device="cpu").encode(texts)
    np.testing.assert_allclose(minilm.encode(texts), ref, atol=1e-5)


def test_paper_figure1_ranking_is_sane(minilm):
    sims = minilm.similarity("The New York Times", ["New-York Daily Times", "two years after"])
    assert sims[0, 0] > sims[0, 1]


@needs_data
def test_loaders_match_the_provenance_counts():
    from pearl.evaluation.tasks.autofj import dataset_names
    from pearl.evaluation.tasks.clustering import LABELS, load_mentions
    from pearl.evaluation.tasks.paraphrase import load_ppdb
    from pearl.evaluation.tasks.retrieval import load_names, load_queries
    from pearl.evaluation.tasks.similarity import load_bird, load_turney

    b = SHARED_DATA / "benchmark"
    assert len(load_ppdb(b / "ppdb" / "ppdb.json")[2]) == 23_364
    assert len(load_ppdb(b / "ppdb_filtered" / "ppdb_filtered.json")[2]) == 15_532
    assert len(load_turney(b / "turney" / "turney.txt")) == 2_180
    assert len(load_bird(b / "bird" / "bird.txt")[2]) == 3_345
    assert len(load_queries(b / "yago" / "yago_test_samples.txt")[0]) == 10_000
    names = set(load_names(b / "yago" / "yago_kb_standin.txt"))
    assert len(names) == 158_868
    assert set(load_queries(b / "yago" / "yago_test_samples.txt")[1]) <= names
    assert len(load_mentions(b / "conll2003" / "test.json", LABELS["conll2003"])[0]) == 4_946
    assert len(load_mentions(b / "bc5cdr" / "test.json", LABELS["bc5cdr"])[0]) == 9_658
    assert len(dataset_names(b / "autofj")) == 50


@needs_data
def test_short_text_splits(minilm):
    from pearl.evaluation.tasks.short_text import length_split, load_atis, load_twitter

    texts, labels = load_twitter(SHARED_DATA / "short_text")
    assert len(texts) == 14_284
    short, _ = length_split(texts, labels, "S")
    long, _ = length_split(texts, labels, "L")
    assert len(short) + len(long) == len(texts)
    assert max(len(t.split()) for t in short) <= min(len(t.split()) for t in long)
    texts, labels = load_atis(SHARED_DATA / "short_text")
    assert len(set(labels)) == 8
