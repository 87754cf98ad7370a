import numpy as np
import pytest

from pearl.tables.ngrams import NgramVectorizer


def test_ngram_cosine_sees_typos():
    v = NgramVectorizer().fit(["Washington", "Beijing", "Paris"])
    x = v.transform(["Washington", "Washingtno", "Beijing", ""])
    sims = (x @ x.T).toarray()
    assert sims[0, 1] > 0.45 > 0.1 > sims[0, 2]
    assert sims[3].sum() == 0  # an empty string matches nothing
    np.testing.assert_allclose(np.asarray(x.multiply(x).sum(1)).ravel(), [1, 1, 1, 0], atol=1e-6)


def test_words_tell_names_apart_that_share_their_ngrams():
    ref = ["2009 Tour de France", "2011 Tour de France", "Tour de Suisse", "Giro d'Italia"]
    sims = {}
    for w in (0.0, 0.5):
        v = NgramVectorizer(word_weight=w).fit(ref)
        x = v.transform(["Tour de France 2011", *ref[:2]])
        sims[w] = (x[0] @ x[1:].T).toarray().ravel()
        assert sims[w][1] > sims[w][0]  # the right year wins
    # the shared year counts for more once whole words are seen
    assert sims[0.5][1] - sims[0.5][0] > sims[0.0][1] - sims[0.0][0]
    # word_weight=0 is skrub's char 2-4-gram encoding alone: no word columns are set
    x = NgramVectorizer(word_weight=0).fit(ref).transform(ref)
    assert x.indices.max() < NgramVectorizer().n_features


def test_ngram_frequencies_of_parts_give_the_fit():
    texts = ["Le Monde", "The New York Times", "NYTimes", "nytimes.com", ""]
    whole = NgramVectorizer().fit(texts).transform(texts)
    v = NgramVectorizer()
    df = sum(v.document_frequencies(v.counts(part)) for part in (texts[:2], texts[2:]))
    parts = v.fit_frequencies(df, len(texts)).transform(texts)
    np.testing.assert_allclose(parts.toarray(), whole.toarray(), rtol=1e-6)


def test_ngram_fit_transform_equals_fit_then_transform():
    texts = ["Acme Corp.", "ACME corporation", "", "Globex 2011", "Acme Corp."]
    one = NgramVectorizer().fit_transform(texts)
    two = NgramVectorizer().fit(texts).transform(texts)
    assert (one != two).nnz == 0 and one.shape == two.shape


def _reference_bucket(token: str, n_buckets: int) -> int:
    """The column of one n-gram or word, hashed one character at a time."""
    h = 0
    for ch in token:
        h = (h * 1_000_003 + ord(ch) + 1) % 2**64
    return (((h * 0x9E3779B97F4A7C15) % 2**64) >> 32) % n_buckets


TRICKY = [
    "The New York Times",
    "  a  b\tc ",  # single letters, tabs, runs of spaces
    "",
    "Zürich ÉCOLE ß",  # accents kept, case folded by lower()
    "🍕 pizza 🍕🍕",  # emoji are characters
    "x" * 70,
    "l'été (2011) — R&D",
]


@pytest.mark.parametrize("ngram_range", [(2, 4), (3, 5), (5, 6)])
def test_hashed_char_ngrams_are_scikit_learns_char_wb_ngrams(ngram_range):
    from collections import Counter

    from sklearn.feature_extraction.text import CountVectorizer

    from pearl.tables.ngrams import hashed_char_ngrams

    analyze = CountVectorizer(analyzer="char_wb", ngram_range=ngram_range).build_analyzer()
    lowered = [t.lower() for t in TRICKY]
    rows, cols = hashed_char_ngrams(lowered, ngram_range, 1 << 20)
    for i, text in enumerate(TRICKY):
        expected = Counter(_reference_bucket(g, 1 << 20) for g in analyze(text))
        assert Counter(cols[rows == i].tolist()) == expected, text


@pytest.mark.parametrize("ngram_range", [(2, 4), (3, 5), (5, 6)])
def test_counts_through_distinct_words_are_the_texts_counts(ngram_range, monkeypatch):
    """A column that repeats its words is counted word by word, then summed: the same
    canonical matrix as counting each text alone."""
    from scipy.sparse import vstack

    from pearl.tables import ngrams

    monkeypatch.setattr(ngrams, "WORD_SUM_MIN", 2)
    texts = [*TRICKY, "a a a a b", "x"] * 4  # repeated words: counted once each
    v = NgramVectorizer(ngram_range=ngram_range)
    whole = v.counts(texts)
    alone = vstack([v.counts([t]) for t in texts], format="csr")
    assert whole.has_canonical_format and whole.dtype == np.float64
    np.testing.assert_array_equal(whole.indptr, alone.indptr)
    np.testing.assert_array_equal(whole.indices, alone.indices)
    np.testing.assert_array_equal(whole.data, alone.data)
    assert v.counts([]).shape == (0, 2 * v.n_features)
    # a text holding the separator of the texts' words is counted all the same
    odd = [*texts, "a \x01 b", "\x01"]
    np.testing.assert_array_equal(
        v.counts(odd).toarray()[-2:], vstack([v.counts([t]) for t in odd[-2:]]).toarray()
    )


def test_hashed_words_are_scikit_learns_word_tokens():
    import zlib
    from collections import Counter

    from sklearn.feature_extraction.text import CountVectorizer

    from pearl.tables.ngrams import hashed_words

    analyze = CountVectorizer(token_pattern=r"(?u)\b\w+\b").build_analyzer()
    rows, cols = hashed_words([t.lower() for t in TRICKY], 1 << 20)

    def bucket(word):
        h = zlib.crc32(word.encode("utf-8"))
        return (((h * 0x9E3779B97F4A7C15) % 2**64) >> 32) % (1 << 20)

    for i, text in enumerate(TRICKY):
        assert Counter(cols[rows == i].tolist()) == Counter(map(bucket, analyze(text))), text


def test_ngram_cosines_are_those_of_scikit_learns_hashing():
    """The hashing changed (murmur to a rolling polynomial); the cosines did not."""
    from scipy.sparse import hstack
    from sklearn.feature_extraction.text import HashingVectorizer

    texts = [*TRICKY, "New York Post", "NYTimes", "nytimes.com", "Washington Post"]
    common = dict(n_features=2**20, alternate_sign=False, norm=None)
    counts = hstack(
        [
            HashingVectorizer(analyzer="char_wb", ngram_range=(2, 4), **common).transform(texts),
            HashingVectorizer(analyzer="word", token_pattern=r"(?u)\b\w+\b", **common).transform(
                texts
            ),
        ],
        format="csr",
    )
    v = NgramVectorizer().fit_frequencies(NgramVectorizer.document_frequencies(counts), len(texts))
    old = v.weigh(counts)
    new = NgramVectorizer().fit_transform(texts)
    np.testing.assert_allclose((new @ new.T).toarray(), (old @ old.T).toarray(), atol=1e-6)


@pytest.mark.parametrize("n_features", [2**20, 64])  # few columns seen, or most of them
def test_idf_is_scikit_learns_smoothed_idf(n_features):
    from sklearn.feature_extraction.text import TfidfTransformer

    v = NgramVectorizer(n_features=n_features)
    counts = v.counts(TRICKY)
    np.testing.assert_allclose(
        v.fit(TRICKY).idf_, TfidfTransformer(norm=None).fit(counts).idf_, rtol=1e-12
    )
    before = counts.copy()
    v.weigh(counts)
    assert (counts != before).nnz == 0  # weighing leaves the caller's counts alone


def test_idf_lookup_is_the_same_for_few_and_many_columns():
    # few lookups search the seen columns, many gather a dense table: the same values
    v = NgramVectorizer(n_features=2**12).fit(["Washington", "Beijing", "Paris", "New York"])
    rng = np.random.default_rng(0)
    for n in (3, 50_000):  # below and above n_columns // 64
        cols = rng.integers(0, v.n_columns_, n)
        cols[: min(n, 5)] = v.seen_[: min(n, 5)]  # seen columns among them
        np.testing.assert_array_equal(v._idf_at(cols), v.idf_[cols])


@pytest.mark.parametrize("n_features", [2**20, 2**6])  # the sparse and the dense df paths
def test_fit_counts_with_repeats_is_the_fit_on_the_repeated_texts(n_features):
    values = ["acme corp", "beta", "", "gamma ltd", "zeta"]
    repeats = np.array([3, 1, 2, 0, 1])
    column = [v for v, r in zip(values, repeats, strict=True) for _ in range(r)]
    want = NgramVectorizer(n_features=n_features).fit(column)
    vec = NgramVectorizer(n_features=n_features)
    got = vec.fit_counts(vec.counts(values), repeats)
    np.testing.assert_array_equal(got.idf_, want.idf_)
    # a value the column never holds ("gamma ltd") leaves its n-grams unseen
    assert got.unseen_idf_ == want.unseen_idf_
    # no text at all: the IDF of one empty text, as fit([]) gives
    none = NgramVectorizer(n_features=n_features).fit_counts(
        vec.counts(values), np.zeros(5, dtype=int)
    )
    np.testing.assert_array_equal(none.idf_, NgramVectorizer(n_features=n_features).fit([]).idf_)
    with pytest.raises(ValueError, match="repeats"):
        vec.fit_counts(vec.counts(values), [1, 2])
    with pytest.raises(ValueError, match="repeats"):
        vec.fit_counts(vec.counts(values), [1, 1, 1, 1, -1])


def test_an_accent_in_either_unicode_form_gives_the_same_ngrams():
    v = NgramVectorizer()
    composed, decomposed = v.counts(["Z\u00fcrich"]), v.counts(["Zu\u0308rich"])
    assert (composed != decomposed).nnz == 0
