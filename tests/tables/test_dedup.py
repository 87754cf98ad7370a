import numpy as np
import pandas as pd
import pytest

from pearl import cluster, deduplicate
from pearl.tables import dedup


def test_typos_map_to_the_most_frequent_spelling(hash_encoder):
    values = pd.Series(
        ["new york", "new york", "new yorkk", "nwe york", "boston", "bostn", "boston", None],
        index=list("abcdefgh"),
        name="city",
    )
    out = deduplicate(values, threshold=0.5, model=hash_encoder, matcher="cosine")
    assert out.index.tolist() == list("abcdefgh") and out.name == "city"
    assert out.tolist()[:7] == ["new york"] * 4 + ["boston"] * 3 and out.isna().tolist() == [
        False
    ] * 7 + [True]
    assert out.dtype == values.dtype  # the input's string dtype is kept


def test_default_cut_depends_on_the_matcher(hash_encoder):
    values = ["new york", "new yorkk", "nwe york", "boston", "bostn", "bostonn", "paris"]
    assert (
        cluster(values, model=hash_encoder)
        == cluster(values, model=hash_encoder, matcher="combined", threshold=0.6)
    ).all()
    assert (
        cluster(values, model=hash_encoder, matcher="cosine")
        == cluster(values, model=hash_encoder, matcher="cosine", threshold=0.7)
    ).all()
    cluster(values, model=hash_encoder, matcher="cosine", threshold=-0.5)  # a cosine
    with pytest.raises(ValueError, match="threshold"):  # not a probability
        cluster(values, model=hash_encoder, threshold=-0.5)


def test_default_deduplicates_typos_with_a_shipped_model():
    values = ["Acme Corporation"] * 3 + [
        "Acme Corporatoin",
        "Acme Corp.",
        "Globex Industries",
        "Globex Industries",
        "Glbex Industries",
        "Initech",
    ]
    out = deduplicate(values, model="pearl-static")
    assert out.tolist() == ["Acme Corporation"] * 5 + ["Globex Industries"] * 3 + ["Initech"]


def test_cluster_labels(hash_encoder):
    lab = cluster(
        ["aaaa bbbb", "aaaa bbbc", "zzzz yyyy", "zzzz yyyx", None], n_clusters=2, model=hash_encoder
    )
    assert lab[0] == lab[1] != lab[2] == lab[3]
    assert lab[4] == -1
    assert cluster([], model=hash_encoder).shape == (0,)
    assert list(cluster(["only"], model=hash_encoder)) == [0]


def test_high_threshold_keeps_values_apart(hash_encoder):
    vals = ["alpha", "alphb", "gamma"]
    assert len(set(cluster(vals, threshold=0.999, model=hash_encoder))) == 3


def test_numbers_are_strings_and_limits(hash_encoder, monkeypatch):
    assert deduplicate([1, 1, 2], threshold=0.99, model=hash_encoder).tolist() == ["1", "1", "2"]
    with pytest.raises(ValueError, match="n_clusters"):
        cluster(["a", "b"], n_clusters=3, model=hash_encoder)
    monkeypatch.setattr(dedup, "MAX_UNIQUE", 3)
    with pytest.raises(ValueError, match="n_clusters"):  # the exact tree is capped
        cluster([str(i) for i in range(5)], n_clusters=2, model=hash_encoder)
    # a threshold has no cap: the match graph is sparse
    assert len(cluster([str(i) for i in range(5)], model=hash_encoder)) == 5
    assert np.all(cluster([None, np.nan], model=hash_encoder) == -1)


def test_the_approximate_graph_gives_the_exact_graphs_clusters(hash_encoder, monkeypatch):
    from pearl.tables import search

    rng = np.random.default_rng(0)
    names = ["".join(rng.choice(list("abcdefghij"), 8)) for _ in range(60)]
    values = names + [n[:-1] + "z" for n in names[:30]]  # a typo of half of them
    exact = cluster(values, model=hash_encoder)
    monkeypatch.setattr(search, "EXACT_MAX", 10)  # faiss HNSW and n-gram sketches
    approx = cluster(values, model=hash_encoder, top_k=20)
    from sklearn.metrics import adjusted_rand_score

    assert adjusted_rand_score(exact, approx) > 0.95


def test_top_k_bounds_what_can_merge(hash_encoder):
    values = ["acme corp", "acme corp.", "acme corpp", "acme corpo", "acme crp", "bolt inc"]
    wide = cluster(values, model=hash_encoder, threshold=0.3, top_k=10)
    narrow = cluster(values, model=hash_encoder, threshold=0.3, top_k=1)
    assert len(set(wide[:5])) == 1 and wide[5] != wide[0]
    assert len(set(narrow[:5])) >= len(set(wide[:5]))
    with pytest.raises(ValueError, match="top_k"):
        cluster(values, model=hash_encoder, top_k=0)


def test_a_frequent_spelling_pulls_its_rare_misspellings(hash_encoder):
    # three misspellings, far from each other, close to one spelling that fills 20 rows:
    # the mean similarity over rows merges them where the mean over values does not
    typos = ["washingtno", "wahsington", "wasington"]
    options = dict(model=hash_encoder, matcher="cosine", threshold=0.55)
    assert len(set(cluster(["washington", *typos], **options))) > 1
    assert len(set(cluster(["washington"] * 20 + typos, **options))) == 1
    weighted = cluster(["washington", *typos], sample_weight=[20, 1, 1, 1], **options)
    assert len(set(weighted)) == 1
    assert deduplicate(["washington"] * 20 + typos, **options).tolist() == ["washington"] * 23


def test_sample_weight_is_checked(hash_encoder):
    for bad, match in (([1, 2], "entries"), ([1, 0, 1], "positive"), ([1, np.nan, 1], "finite")):
        with pytest.raises(ValueError, match=match):
            cluster(["a", "b", None], model=hash_encoder, sample_weight=bad)


def test_one_typo_apart_merges_with_the_combined_matcher(hash_encoder):
    values = ["Washington"] * 3 + ["Washingtno", "Wxshingtxn"]
    lab = cluster(values, model=hash_encoder, threshold=0.9)
    assert lab[0] == lab[3] != lab[4]  # one swap merges; two substitutions do not
    cosine = cluster(values, model=hash_encoder, matcher="cosine", threshold=0.9)
    assert cosine[0] != cosine[3]  # the cosine matcher scores the pair as it is


def test_typos_allowed_grow_with_length_and_short_codes_stay_apart():
    # skrub's test_deduplicate and _guess_clusters cases, in small
    values = ["Example Category"] * 20 + ["Exampze Catdgory"] + ["Generic"] * 5 + ["Genersz"]
    out = deduplicate(values, model="pearl-static")
    assert out.tolist()[20] == "Example Category"  # two typos in 16 characters
    assert out.tolist()[-1] == "Genersz"  # two typos in 7 characters: another thing
    codes = ["aac", "aaa", "aaab", "aaa", "aaab", "aaa", "aaab", "aaa"]
    assert deduplicate(codes, model="pearl-static").tolist() == codes


def test_abbreviations_merge_with_the_combined_matcher(hash_encoder):
    values = ["International Paper"] * 3 + ["Intl Paper", "Interstate Paper"]
    lab = cluster(values, model=hash_encoder, threshold=0.9)
    assert lab[0] == lab[3] != lab[4]


def test_a_huge_column_is_encoded_outside_the_process_cache(hash_encoder, monkeypatch):
    import pearl.tables.encoding as encoding
    from pearl import cluster

    values = ["alpha", "alpah", "beta", "gamma", "alpha"]
    encoding.clear_caches(models=False)
    monkeypatch.setattr(encoding, "QUERY_CACHE_MAX", 3)
    big = cluster(values, model=hash_encoder)
    assert encoding.get_cache(hash_encoder).n_encoded == 0  # a million values held once
    monkeypatch.setattr(encoding, "QUERY_CACHE_MAX", 100)
    small = cluster(values, model=hash_encoder)
    assert encoding.get_cache(hash_encoder).n_encoded == 4
    assert big.tolist() == small.tolist()


def test_a_table_with_a_repeated_column_name_is_a_clear_error(hash_encoder):
    # pandas gives a table for a repeated name: cluster failed with "'DataFrame' object has
    # no attribute 'tolist'"
    table = pd.DataFrame([["a", "b", "z"], ["a", "b", "z"]], columns=["x", "x", "w"])
    for tool in (cluster, deduplicate):
        with pytest.raises(ValueError, match=r"several columns named \['x'\]"):
            tool(table, model=hash_encoder)
        with pytest.raises(ValueError, match=r"several columns named \['x'\]"):
            tool(table[["x"]], model=hash_encoder)  # two columns, one name


def test_a_column_of_codes_is_grouped_by_its_values(hash_encoder):
    # phones and postcodes one digit apart are two lines and two places: the string
    # matcher linked them as a typo (0.95), and left a phone written another way apart
    phones = ["310-246-1501", "(310) 246 1501", "310.246.1501", "3102461502", None, "212-555-0199"]
    assert deduplicate(phones, model=hash_encoder).tolist() == [
        "310-246-1501",
        "310-246-1501",
        "310-246-1501",
        "3102461502",
        None,
        "212-555-0199",
    ]
    assert cluster(["02134", "02135", "02134", "90210"], model=hash_encoder).tolist() == [
        0,
        1,
        0,
        2,
    ]
    # numbers and dates by their values, whatever their spelling
    numbers = ["34", "34.0", "35", "35.00", "1000"]
    assert cluster(numbers, model=hash_encoder).tolist() == [0, 0, 1, 1, 2]
    dates = ["1975-03-12", "03/12/1975", "1975-03-13", ""]
    assert cluster(dates, model=hash_encoder).tolist() == [0, 0, 1, -1]
    with pytest.raises(ValueError, match="sample_weight"):
        cluster(["02134", "02135"], model=hash_encoder, sample_weight=[1])


def test_a_column_of_codes_needs_no_model():
    # the model is never loaded (a name that would not load proves it)
    assert cluster(["02134", "02135", "02134"], model="no-such-model").tolist() == [0, 1, 0]
