import json

import numpy as np
import pandas as pd
import pytest
from conftest import HashEncoder

import pearl
from pearl import EntityIndex

NAMES = [
    f"{a} {b} company"
    for a in ("acme", "globex", "initech", "umbrella", "hooli", "vandelay", "wonka", "stark")
    for b in ("north", "south", "east", "west", "central")
]


@pytest.mark.parametrize("kind", ["flat", "hnsw", "ivf"])
def test_typo_queries_find_their_names(hash_encoder, kind):
    idx = EntityIndex(model=hash_encoder, index=kind, nprobe=64).build(NAMES)
    res = idx.search([n.replace("company", "compani") for n in NAMES[:10]], top_k=3)
    assert res.ids.shape == (10, 3) and res.scores.dtype == np.float32
    assert [r[0] for r in res.names] == NAMES[:10]
    assert (np.diff(res.scores, axis=1) <= 1e-6).all()  # sorted by score


def test_k_larger_than_the_index_is_capped(hash_encoder):
    res = EntityIndex(model=hash_encoder).build(["a", "b"]).search("a", top_k=4)
    assert list(res.ids[0]) == [0, 1]
    assert len(res.to_frame()) == 2


def test_add_continues_ids(hash_encoder):
    idx = EntityIndex(model=hash_encoder).build(NAMES[:5])
    idx.add(NAMES[5:8])
    assert len(idx) == 8
    assert idx.search(NAMES[6], top_k=1).ids[0, 0] == 6


def test_save_load_roundtrip_and_model_check(hash_encoder, tmp_path):
    idx = EntityIndex(model=hash_encoder, index="hnsw").build(NAMES + ["🙂 café"])
    idx.save(tmp_path / "idx")
    back = EntityIndex.load(tmp_path / "idx", model=hash_encoder)
    assert back.names_ == idx.names_ and back.index == "hnsw"
    a, b = idx.search(NAMES[:5], top_k=2), back.search(NAMES[:5], top_k=2)
    np.testing.assert_array_equal(a.ids, b.ids)
    with pytest.raises(ValueError, match="Rebuild the index"):
        EntityIndex.load(tmp_path / "idx", model=HashEncoder(dim=64))


def test_corrupt_or_missing_folders(hash_encoder, tmp_path):
    with pytest.raises(FileNotFoundError, match="not a pearl index"):
        EntityIndex.load(tmp_path)
    idx = EntityIndex(model=hash_encoder).build(NAMES)
    idx.save(tmp_path / "i")
    (tmp_path / "i" / "index.faiss").write_bytes(b"junk")
    with pytest.raises(OSError, match="corrupt"):
        EntityIndex.load(tmp_path / "i", model=hash_encoder)
    idx.save(tmp_path / "j")
    meta = json.loads((tmp_path / "j" / "meta.json").read_text())
    (tmp_path / "j" / "names.jsonl").write_text('"only one"\n')
    assert meta["size"] == len(NAMES)
    with pytest.raises(OSError, match="corrupt index folder"):
        EntityIndex.load(tmp_path / "j", model=hash_encoder)


def test_bad_input(hash_encoder, tmp_path):
    with pytest.raises(ValueError, match="empty"):
        EntityIndex(model=hash_encoder).search("x")
    with pytest.raises(ValueError, match=r"names\[1\] is None"):
        EntityIndex(model=hash_encoder).build(["a", None])
    with pytest.raises(ValueError, match="index must be"):
        EntityIndex(index="lsh")
    with pytest.raises(FileNotFoundError):
        EntityIndex.from_file(tmp_path / "nope.txt")


def test_from_file_skips_blank_lines(hash_encoder, tmp_path):
    f = tmp_path / "names.txt"
    f.write_text("alpha\n\n  \nbeta\n", encoding="utf-8")
    assert EntityIndex.from_file(f, model=hash_encoder).names_ == ["alpha", "beta"]


def test_from_file_decodes_strictly(hash_encoder, tmp_path):
    # a latin-1 byte became "\ufffd" in the index's own names (what searches return)
    f = tmp_path / "names.txt"
    f.write_bytes("Zürich\nGenève\n".encode("latin-1"))
    with pytest.raises(ValueError, match="is not utf-8 text"):
        EntityIndex.from_file(f, model=hash_encoder)
    index = EntityIndex.from_file(f, encoding="latin-1", model=hash_encoder)
    assert index.names_ == ["Zürich", "Genève"]


def test_precomputed_embeddings_match_encoded(hash_encoder):
    a = EntityIndex(model=hash_encoder).build(NAMES)
    b = EntityIndex(model=hash_encoder).add_embeddings(NAMES, hash_encoder.encode(NAMES))
    q = hash_encoder.encode(["acme north compani"])
    np.testing.assert_array_equal(
        a.search("acme north compani", top_k=3, matcher="cosine").ids,
        b.search_embeddings(q, top_k=3).ids,
    )
    with pytest.raises(ValueError, match="2 names but embeddings"):
        EntityIndex(model=hash_encoder).add_embeddings(["a", "b"], np.zeros((3, 4)))


def test_combined_search_scores_the_candidates_n_grams_and_follows_add(hash_encoder):
    from pearl.tables.matcher import MatchScorer
    from pearl.tables.ngrams import NgramVectorizer

    scorer = MatchScorer((1.0, 2.0, 0.5), -1.5)
    idx = EntityIndex(hash_encoder).build(NAMES[:20])
    # words reordered, one misspelt: no typo of a name (whose floor is tested elsewhere)
    queries = ["nrth acme company", "company globex sooth"]

    def expected(names):
        q = hash_encoder.encode(queries)
        r = hash_encoder.encode(names)
        q, r = (x / np.linalg.norm(x, axis=1, keepdims=True) for x in (q, r))
        ng = NgramVectorizer().fit(names)
        ngram = (ng.transform(queries) @ ng.transform(names).T).toarray()
        raw = scorer.score(q @ r.T, ngram)
        return raw.argmax(axis=1), scorer.calibrated(raw.max(axis=1))

    for names in (NAMES[:20], NAMES):  # the n-gram rows are remade when names are added
        got = idx.search(queries, top_k=1, matcher=scorer, candidates=len(names))
        best, prob = expected(names)
        np.testing.assert_array_equal(got.ids[:, 0], best)
        np.testing.assert_allclose(got.scores[:, 0], prob, rtol=1e-5)
        idx.add(NAMES[20:])


class _ScrambledEncoder(HashEncoder):
    """Vectors unrelated to spelling: only the n-gram candidates can find a typo's name."""

    @property
    def fingerprint(self) -> str:
        return "scrambled"

    def encode(self, texts, batch_size=64, normalize=False, show_progress_bar=None):
        import zlib

        out = np.stack(
            [np.random.default_rng(zlib.crc32(t.encode())).normal(size=self.dim) for t in texts]
        ).astype(np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True) if normalize else out


@pytest.mark.parametrize("exact_max", [None, 8])  # exact n-gram products, or sketches
def test_combined_candidates_come_from_the_n_grams_too(monkeypatch, exact_max):
    from pearl.tables import search

    if exact_max:
        monkeypatch.setattr(search, "EXACT_MAX", exact_max)
    idx = EntityIndex(_ScrambledEncoder()).build(NAMES)
    from pearl.tables.matcher import MatchScorer

    # 3 per signal: a 128-d sketch is noisy at the margins of this list (acme north 0.62
    # by exact n-gram cosine, acme south 0.54, acme west 0.52)
    by_ngrams = MatchScorer((0.0, 5.0, 0.0), -2.0)
    got = idx.search(
        ["acme nrth company", "wonka centrl company"], top_k=1, matcher=by_ngrams, candidates=3
    )
    assert [n[0] for n in got.names] == ["acme north company", "wonka central company"]
    cosine = idx.search(["acme nrth company"], top_k=1)
    assert cosine.names[0][0] != "acme north company"  # the embedding alone is lost here


def test_combined_search_in_query_blocks_gives_the_same_result(hash_encoder, monkeypatch):
    from pearl.tables import index as index_module

    idx = EntityIndex(hash_encoder).build(NAMES)
    queries = ["acme nrth company", "globex sooth company", "wonka centrl company"]
    whole = idx.search(queries, top_k=2, matcher="combined")
    monkeypatch.setattr(index_module, "QUERY_BLOCK", 2)
    blocks = idx.search(queries, top_k=2, matcher="combined")
    np.testing.assert_array_equal(whole.ids, blocks.ids)
    np.testing.assert_array_equal(whole.scores, blocks.scores)
    assert whole.names == blocks.names and blocks.queries == queries
    empty = idx.search([], top_k=2, matcher="combined")
    assert empty.ids.shape[0] == 0 and empty.names == []


def test_search_embeddings_runs_the_combined_search_of_precomputed_vectors(hash_encoder):
    idx = EntityIndex(hash_encoder).build(NAMES)
    queries = ["acme nrth company", "wonka centrl company"]
    vecs = hash_encoder.encode(queries)
    direct = idx.search(queries, top_k=2)
    given = idx.search_embeddings(vecs, 2, queries=queries, matcher="combined")
    assert given.names == direct.names
    np.testing.assert_allclose(given.scores, direct.scores, rtol=1e-6)
    with pytest.raises(ValueError, match="query strings"):
        idx.search_embeddings(vecs, 2, matcher="combined")


def test_a_rebuilt_index_searches_its_new_names_only(hash_encoder):
    idx = EntityIndex(hash_encoder).build(["acme corp", "globex inc"])
    assert idx.search(["acme corp"], top_k=1).names == [["acme corp"]]  # n-grams made
    idx.build(["initech llc", "wonka ltd"])  # as many names: nothing of the first set stays
    assert idx.search(["wonka ltd"], top_k=1).names == [["wonka ltd"]]
    assert idx.search(["acme corp"], top_k=2).ids.max() < 2


def test_a_name_listed_twice_is_no_rival_to_itself(hash_encoder):
    # a match's probability reads its lead over the best other candidate: a dictionary
    # listing "new york" twice gave the exact query 0.52 for each copy, where the same
    # dictionary without the copy gives it 0.99
    others = ["boston", "paris", "berlin", "madrid", "oslo"]
    once = EntityIndex(hash_encoder).build(["new york", *others])
    twice = EntityIndex(hash_encoder).build(["new york", "New York ", *others])
    alone = once.search(["new york"], top_k=1).scores[0, 0]
    found = twice.search(["new york", "boston"], top_k=3)
    assert alone > 0.9
    assert found.ids[0, :2].tolist() == [0, 1]
    assert found.scores[0, :2] == pytest.approx([alone, alone], abs=0.02)
    # another name's probability does not change with the copies
    boston = once.search(["boston"], top_k=1).scores[0, 0]
    assert found.names[1][0] == "boston" and found.scores[1, 0] == pytest.approx(boston, abs=0.02)
    # only copies in reach: the pair's probability alone, as in a one-name index
    copies = EntityIndex(hash_encoder).build(["new york"] * 3)
    single = EntityIndex(hash_encoder).build(["new york"])
    np.testing.assert_allclose(
        copies.search(["new york"], top_k=3).scores[0],
        [single.search(["new york"], top_k=1).scores[0, 0]] * 3,
        rtol=1e-5,
    )


def test_phone_numbers_written_two_ways_are_one_phone_as_in_the_join(hash_encoder, tmp_path):
    phones = ["212-555-0101", "212-555-0102", "310-246-1501", "415-555-2671", "646-555-0199"]
    queries = ["(212) 555 0101", "4155552671", "(310) 246 1502"]
    result = EntityIndex(hash_encoder).build(phones).search(queries, top_k=1)
    joined = pearl.fuzzy_join(
        pd.DataFrame({"phone": queries}),
        pd.DataFrame({"phone": phones}),
        on="phone",
        model=hash_encoder,
        threshold=0.0,
    )
    assert [n[0] for n in result.names[:2]] == ["212-555-0101", "415-555-2671"]
    assert result.scores[2, 0] <= 0.05  # one digit off: another phone
    np.testing.assert_allclose(result.scores[:, 0], joined["match_score"], rtol=1e-5)
    assert result.names[0] == [joined["phone_right"][0]]
    # saved and loaded, the index still compares them as phones
    EntityIndex(hash_encoder).build(phones).save(tmp_path / "idx")
    loaded = EntityIndex.load(tmp_path / "idx", model=hash_encoder)
    np.testing.assert_allclose(loaded.search(queries, top_k=1).scores, result.scores, rtol=1e-5)
