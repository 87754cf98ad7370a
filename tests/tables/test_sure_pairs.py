import numpy as np

from pearl.tables.sure_pairs import block_match_counts, patterns_above_chance


def test_a_fields_matches_are_its_levels_beside_equal_others_less_chance():
    # field 0 of 3 levels beside field 1 equal (its top level, chance 0.01 of a random
    # pair): 1,000 pairs of all pairs put 10 there by chance, spread as u of field 0;
    # the matches' levels are what is left
    u = [np.array([0.7, 0.2, 0.1]), np.array([0.99, 0.01])]
    gamma = np.array([[0, 1]] * 7 + [[1, 1]] * 12 + [[2, 1]] * 31 + [[0, 0]] * 50)
    counts = block_match_counts(gamma, 0, u, [3, 2], n_pairs=1000)
    np.testing.assert_allclose(counts, [0.0, 10.0, 30.0])
    # one field alone: no other field to block on
    assert block_match_counts(gamma[:, :1], 0, u[:1], [3], 1000).sum() == 0


def test_a_comparison_vector_is_sure_when_chance_explains_under_a_third_of_it():
    u = [np.array([0.9, 0.1]), np.array([0.9, 0.1])]
    patterns = np.array([[1, 1], [1, 0]])
    # (1, 1): 1,000 pairs by chance 10 against 40 seen; (1, 0): 90 against 100
    above = patterns_above_chance(patterns, np.array([40, 100]), u, np.array([True, True]), 1000)
    assert above.tolist() == [True, False]
