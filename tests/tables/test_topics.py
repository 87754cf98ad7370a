import warnings

import numpy as np
import pandas as pd
import pytest

from pearl.cli import main
from pearl.tables.topics import (
    PhraseTopicModel,
    document_vocabulary,
    read_documents,
    write_topics,
)

SPORT = [
    "the football match ended with a late goal by the home team",
    "the tennis player won the final set and the championship match",
    "the team coach praised the goal keeper after the football match",
]
FOOD = [
    "bake the bread dough in a hot oven for forty minutes",
    "the soup recipe needs fresh tomato garlic and olive oil",
    "fresh bread and olive oil with garlic make a simple recipe",
]
DOCS = (SPORT + FOOD) * 4


def test_topics_separate_two_subjects(hash_encoder):
    vocab = document_vocabulary(DOCS, min_df=2)
    assert "olive oil" in vocab and "the" not in vocab  # phrases, stopwords trimmed
    tm = PhraseTopicModel(2, model=hash_encoder, epochs=60, lr=0.05, chunk_words=8, n_terms=5).fit(
        DOCS, vocabulary=vocab
    )
    dist = tm.transform(SPORT + FOOD)
    assert dist.shape == (6, 2) and np.allclose(dist.sum(1), 1, atol=1e-5)
    sport, food = dist[:3].argmax(1), dist[3:].argmax(1)
    assert len(set(sport)) == 1 and len(set(food)) == 1 and sport[0] != food[0]
    assert tm.loss_[-1] < tm.loss_[0]
    assert len(tm.topics_) == 2 and all(len(t) == 5 for t in tm.topics_)
    frame = tm.topics_frame()
    assert list(frame.columns) == ["topic", "rank", "term", "score"] and len(frame) == 10
    with pytest.raises(ValueError, match="two documents"):
        PhraseTopicModel(2, model=hash_encoder).fit(["one"])


def test_more_topics_than_documents_is_an_error_and_than_distinct_ones_a_warning(hash_encoder):
    with pytest.raises(ValueError, match="n_topics=7 is more than the 6 documents"):
        PhraseTopicModel(7, model=hash_encoder, epochs=1).fit(SPORT + FOOD)
    with pytest.warns(UserWarning, match="only 6 distinct documents"):
        tm = PhraseTopicModel(8, model=hash_encoder, epochs=1).fit(DOCS)
    assert tm.components_.shape[0] == 8
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PhraseTopicModel(6, model=hash_encoder, epochs=1).fit(DOCS)


def test_cli_names_too_many_topics(tiny_model_dir, tmp_path, capsys):
    docs = tmp_path / "docs.txt"
    docs.write_text("\n".join(SPORT) + "\n", encoding="utf-8")
    args = ["topics", str(docs), "-k", "5", "-o", str(tmp_path / "t"), "--min-df", "1"]
    assert main([*args, "-m", str(tiny_model_dir), "-q"]) != 0
    assert "n_topics=5 is more than the 3 documents" in capsys.readouterr().err
    assert not (tmp_path / "t").exists()


def test_cli_writes_the_topic_files(tiny_model_dir, tmp_path, capsys):
    docs = tmp_path / "docs.txt"
    docs.write_text("\n".join(DOCS) + "\n", encoding="utf-8")
    out = tmp_path / "topics"
    assert (
        main(
            [
                "topics",
                str(docs),
                "-k",
                "2",
                "-o",
                str(out),
                "--min-df",
                "2",
                "--epochs",
                "3",
                "-m",
                str(tiny_model_dir),
                "-q",
            ]
        )
        == 0
    )
    assert {p.name for p in out.iterdir()} == {
        "topics.csv",
        "document_topics.csv",
        "topics.md",
        "topics.png",
    }
    assert len(pd.read_csv(out / "document_topics.csv")) == len(DOCS)
    assert "| topic |" in capsys.readouterr().out
    blocks = tmp_path / "blocks.txt"
    blocks.write_text("a b\nc\n\n\nd e\n", encoding="utf-8")
    assert read_documents(blocks, "blank") == ["a b c", "d e"]


def test_write_topics_refuses_a_foreign_folder(hash_encoder, tmp_path):
    tm = PhraseTopicModel(2, model=hash_encoder, epochs=2).fit(DOCS, vocabulary=["bread"])
    (tmp_path / "mine.txt").write_text("user data")
    with pytest.raises(FileExistsError):
        write_topics(tm, DOCS, tmp_path)


def test_the_topic_model_holds_its_model_and_pickles(tiny_model_dir):
    import pickle

    from pearl.tables import encoding as _common

    _common.clear_caches()
    tm = PhraseTopicModel(2, model=str(tiny_model_dir), epochs=2).fit(DOCS, vocabulary=["bread"])
    assert not _common._ENCODERS  # no process-wide copy of the model
    again = pickle.loads(pickle.dumps(tm))
    np.testing.assert_allclose(again.transform(DOCS[:2]), tm.transform(DOCS[:2]), atol=1e-5)


@pytest.mark.parametrize(
    "text, min_df, message",
    [
        ("a b\nc d\n", 5, "min_df=5: a term must occur in 5 documents, but there are 2"),
        ("the of\nand to\n", 1, "no word or phrase"),
        ("alpha beta\ngamma delta\n", 2, "no word or phrase"),
    ],
)
def test_cli_topics_explains_an_empty_vocabulary_before_training(
    tiny_model_dir, tmp_path, capsys, monkeypatch, text, min_df, message
):
    from pearl.tables.topics import PhraseTopicModel

    def no_training(*args, **kwargs):
        raise AssertionError("trained")

    monkeypatch.setattr(PhraseTopicModel, "fit", no_training)
    docs = tmp_path / "docs.txt"
    docs.write_text(text, encoding="utf-8")
    argv = ["topics", str(docs), "-k", "2", "-o", str(tmp_path / "t"), "-m", str(tiny_model_dir)]
    assert main([*argv, "--min-df", str(min_df), "-q"]) == 2
    assert f"pearl: error: {message}" in capsys.readouterr().err


def test_read_documents_decodes_strictly(tmp_path):
    f = tmp_path / "docs.txt"
    f.write_bytes("caf\xe9 cr\xe8me\n".encode("latin-1"))
    with pytest.raises(ValueError, match="is not utf-8 text"):
        read_documents(f)
    assert read_documents(f, encoding="latin-1") == ["café crème"]
