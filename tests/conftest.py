"""Shared fixtures: a tiny randomly initialised sentence-transformers model, a hashing
encoder, and a miniature benchmark folder with the real file formats."""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path

import numpy as np
import pytest

from pearl.encoders.base import Encoder

SHARED_DATA = Path(
    os.environ.get("PEARL_DATA", Path(__file__).parents[1].parent / "shared" / "data")
)
# the tests' data folder (the Makefile's value), for the code under test and its commands
os.environ.setdefault("PEARL_DATA", str(SHARED_DATA))
# float32 on every CPU, in this process and the ones it starts (Dask workers, CLI runs), so
# that tests comparing with sentence-transformers' vectors hold bit for bit;
# tests/encoders/test_precision.py covers "auto" and bfloat16
os.environ["PEARL_COMPUTE_DTYPE"] = "float32"


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("PEARL_CACHE", str(tmp_path_factory.mktemp("pearl-cache")))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory) -> Path:
    """A 1-layer, 32-d BERT with mean pooling, random weights, saved as an ST folder."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    from transformers import BertConfig, BertModel

    from pearl.encoders.resolve import resolve_model_path

    torch.manual_seed(0)
    src = Path(resolve_model_path("all-MiniLM-L6-v2"))
    hf_dir = tmp_path_factory.mktemp("tiny-hf")
    config = BertConfig(
        vocab_size=30522,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
    )
    BertModel(config).save_pretrained(hf_dir)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        (hf_dir / name).write_bytes((src / name).read_bytes())
    word = Transformer(str(hf_dir), max_seq_length=64)
    pool = Pooling(word.get_embedding_dimension(), pooling_mode="mean")
    out = tmp_path_factory.mktemp("tiny-st")
    SentenceTransformer(modules=[word, pool], device="cpu").save(str(out))
    return out


class HashEncoder(Encoder):
    """Deterministic bag of hashed character trigrams: similar strings, similar vectors."""

    name = "hash"

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.calls = 0

    @property
    def embedding_dim(self) -> int:
        return self.dim

    @property
    def fingerprint(self) -> str:
        return f"hash-{self.dim}"

    def encode(self, texts, batch_size=64, normalize=False, show_progress_bar=None):
        from pearl._validation import check_texts

        items = check_texts(texts)
        self.calls += len(items)
        out = np.zeros((len(items), self.dim), dtype=np.float32)
        for r, t in enumerate(items):
            s = f"  {t.lower()}  "
            for i in range(len(s) - 2):
                out[r, zlib.crc32(s[i : i + 3].encode()) % self.dim] += 1
        if normalize:
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out


@pytest.fixture
def hash_encoder() -> HashEncoder:
    return HashEncoder()


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def mini_benchmark(tmp_path) -> Path:
    """A small benchmark + short_text tree in the real file formats. Returns the data root."""
    rng = np.random.default_rng(0)
    root = tmp_path / "data"
    b = root / "benchmark"
    words = [
        "alpha",
        "bravo",
        "charlie",
        "delta",
        "echo",
        "foxtrot",
        "golf",
        "hotel",
        "india",
        "juliet",
        "kilo",
        "lima",
        "mike",
        "november",
        "oscar",
        "papa",
    ]
    # PPDB: positive and negative pairs come from different vocabularies, so a probe on
    # concatenated embeddings can separate them.
    rows = []
    for i in range(300):
        a = f"{words[i % 16]} {words[(i * 7) % 16]}"
        rows.append([a, a + " same same", "pos", 1.0])
        rows.append([a, f"zzzzqqq xxxxvvv {i % 10}", "neg", None])
    _write(b / "ppdb" / "ppdb.json", json.dumps(rows))
    _write(b / "ppdb_filtered" / "ppdb_filtered.json", json.dumps([r[:3] for r in rows]))
    # Turney: the gold unigram shares the bigram's letters.
    lines = [
        f"{w}{w[:2]} x | {w}{w[:2]} | a | b | qqq | zzz{j} | vvv | kkk" for j, w in enumerate(words)
    ]
    _write(b / "turney" / "turney.txt", "\n".join(lines) + "\n")
    # BIRD: relatedness rises with string overlap.
    bird = ["pair\tterm1\tterm2\ttype\tsource\trelation\tscore\tpos"]
    for j, w in enumerate(words):
        bird.append(f"x\t{w} house\t{w} house\tbigram\ts\tNone\t1.0\tn-n")
        bird.append(f"x\t{w} house\tzzz qqq{j}\tbigram\ts\tNone\t0.0\tn-n")
    _write(b / "bird" / "bird.txt", "\n".join(bird) + "\n")
    # Retrieval: mentions are typo'd names.
    for name in ("yago", "umls"):
        names = [f"{w} {v} institute" for w in words for v in words[:4]]
        queries = [f"{n[:-1]}\t{n}" for n in names[:20]]
        _write(b / name / f"{name}_kb_standin.txt", "\n".join(names) + "\n")
        _write(b / name / f"{name}_test_samples.txt", "\n".join(queries) + "\n")
    # Clustering: two very different surface families.
    for name, types in (("conll2003", ("PER", "LOC", "ORG")), ("bc5cdr", ("Chemical", "Disease"))):
        out = []
        for i in range(60):
            k = i % len(types)
            tok = ["aaaa", "mmmm", "zzzz"][k] + str(i % 5)
            out.append(
                json.dumps(
                    {"sentences": [[tok, "said"]], "ner": [[[0, 0, types[k]], [1, 1, "MISC"]]]}
                )
            )
        _write(b / name / "test.json", "\n".join(out) + "\n")
    # AutoFJ: two datasets, right titles are lightly edited left titles.
    for ds in ("DsOne", "DsTwo"):
        left = [f"{w} {v} club" for w in words for v in words[:3]]
        right = [t.replace("club", "clubs") for t in left[:15]]
        folder = b / "autofj" / "benchmark" / ds
        _write(
            folder / "left.csv",
            "id,title\n" + "\n".join(f"{i},{t}" for i, t in enumerate(left)) + "\n",
        )
        _write(
            folder / "right.csv",
            "id,title\n" + "\n".join(f"{i},{t}" for i, t in enumerate(right)) + "\n",
        )
        _write(
            folder / "gt.csv",
            "id_l,title_l,id_r,title_r\n"
            + "\n".join(f"{i},{left[i]},{i},{right[i]}" for i in range(15))
            + "\n",
        )
    # Short text: class is given by a keyword.
    st = root / "short_text"
    texts, labels = [], []
    for i in range(150):
        k = int(rng.integers(3))
        n = 2 + i % 6
        texts.append(" ".join([["good", "meh", "bad"][k]] + ["word"] * n))
        labels.append(str(k))
    for part, sl in (("val", slice(0, 50)), ("test", slice(50, 150))):
        _write(st / "twitter_sentiment" / f"{part}_text.txt", "\n".join(texts[sl]) + "\n")
        _write(st / "twitter_sentiment" / f"{part}_labels.txt", "\n".join(labels[sl]) + "\n")
    intents = ["atis_flight", "atis_airfare", "atis_airline"]
    for part in ("train", "dev", "test"):
        q = [f"{intents[i % 3].split('_')[1]} please " + "x " * (i % 7) for i in range(40)]
        _write(st / "atis" / part / "seq.in", "\n".join(q) + "\n")
        _write(st / "atis" / part / "label", "\n".join(intents[i % 3] for i in range(40)) + "\n")
    return root


@pytest.fixture(scope="session")
def tiny_pearl_dir(tiny_model_dir, tmp_path_factory) -> Path:
    """A fused PEARL model (tiny backbone + character encoder + type head), saved."""
    import torch

    from pearl.models import build_pearl_model

    torch.manual_seed(0)
    model = build_pearl_model(
        str(tiny_model_dir), {"out_dim": 8, "dim": 16}, labels=["NP-ORG", "NP-GPE", "NP-OTHER"]
    )
    out = tmp_path_factory.mktemp("tiny-pearl") / "model"
    model.save(str(out))
    return out


# --- tiny training files (corpus, augmented views, hard negatives) ---

PHRASES = [
    ("The New York Times", "NP-ORG", "The New York Timse", "char_swap", "New York Post"),
    ("New York", "NP-GPE", "New Yrok", "char_swap", "New Jersey"),
    ("Albert Einstein", "NP-PERSON", "Albert Einstien", "char_swap", "Albert Camus"),
    ("23 February 2008", "NP-DATE", "23 Feb 2008", "acronym", "23 February 2009"),
    ("adult male", "NP-OTHER", "grown man", "wordnet_paraphrase", "adult female"),
    ("more than 63kg", "NP-QUANTITY", "over 63kg", "wordnet_synonym", "less than 63kg"),
    ("run quickly", "VP-OTHER", "quickly run", "token_swap", "run slowly"),
    ("in the morning", "PP-TIME", "in the mornin", "char_drop", "in the evening"),
    ("very happy", "ADJP-OTHER", "very glad", "glove_synonym", "very sad"),
    ("Paris", "NP-GPE", "Pairs", "keyboard_typo", "Parish"),
    ("black pant men", "NP-OTHER", "black pants for men", "mined_paraphrase", "black men"),
    (
        "2024 Summer Olympics",
        "NP-EVENT",
        "2024 Sumer Olympics",
        "char_drop",
        "2024 Winter Olympics",
    ),
]


def write_training_files(folder: Path) -> dict[str, str]:
    folder.mkdir(parents=True, exist_ok=True)
    corpus, aug, neg = folder / "corpus.tsv", folder / "augmented.tsv", folder / "neg.tsv"
    corpus.write_text(
        "phrase\tlabel\tfrequency\tsource\n"
        + "".join(f"{p}\t{lab}\t1\ttest\n" for p, lab, *_ in PHRASES),
        encoding="utf-8",
    )
    aug.write_text(
        "phrase\tpositive\taugmenter\n"
        + "".join(f"{p}\t{pos}\t{a}\n" for p, _, pos, a, _ in PHRASES),
        encoding="utf-8",
    )
    neg.write_text(
        "phrase\tnegative\tedit_ratio\tcosine\n"
        + "".join(f"{p}\t{n}\t80\t0.3\n" for p, *_, n in PHRASES),
        encoding="utf-8",
    )
    return {"corpus": str(corpus), "augmented": str(aug), "negatives": str(neg)}


@pytest.fixture
def training_files(tmp_path) -> dict[str, str]:
    return write_training_files(tmp_path / "data")
