import numpy as np

from pearl.encoders.base import normalize_rows


def test_normalize_rows_copies_unless_told_and_keeps_zero_rows():
    x = np.array([[3.0, 4.0], [0.0, 0.0]], dtype=np.float32)
    out = normalize_rows(x)
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 0.0]])
    assert out is not x and x[0, 0] == 3.0  # the input is left as it was
    same = normalize_rows(x, copy=False)
    assert same is x  # divided in place: a million rows held once
    np.testing.assert_allclose(x, [[0.6, 0.8], [0.0, 0.0]])
    ints = np.array([[0, 2]])
    np.testing.assert_allclose(normalize_rows(ints, copy=False), [[0.0, 1.0]])  # converted
    assert ints.tolist() == [[0, 2]]
