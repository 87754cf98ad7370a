import math

import pytest
import torch

from pearl.losses import info_nce, triplet_loss


def test_info_nce_prefers_aligned_pairs():
    torch.manual_seed(0)
    a = torch.randn(8, 16)
    good = info_nce(a, a + 0.01 * torch.randn(8, 16))
    bad = info_nce(a, torch.randn(8, 16))
    assert good < bad
    assert good < 0.1


def test_info_nce_matches_a_hand_computation():
    a = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    p = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    n = torch.tensor([[1.0, 1.0]])
    t = 0.5
    got = info_nce(a, p, n, temperature=t)
    c = 1 / math.sqrt(2)
    row = -math.log(math.exp(1 / t) / (math.exp(1 / t) + math.exp(0) + math.exp(c / t)))
    assert got.item() == pytest.approx(row, rel=1e-5)


def test_hard_negatives_raise_the_loss_and_errors():
    torch.manual_seed(1)
    a = torch.randn(4, 8)
    p = a + 0.1 * torch.randn(4, 8)
    assert info_nce(a, p, a[:2] + 0.05) > info_nce(a, p)
    with pytest.raises(ValueError):
        info_nce(a, p[:3])
    with pytest.raises(ValueError):
        info_nce(a, p, temperature=0)


def test_triplet():
    a = torch.zeros(2, 3)
    assert triplet_loss(a, a, a + 10, margin=1.0).item() == 0.0
    assert triplet_loss(a, a + 1, a, margin=1.0).item() == pytest.approx(1 + math.sqrt(3), rel=1e-4)
    with pytest.raises(ValueError):
        triplet_loss(a, a[:1], a)


def test_batch_hard_triplet_picks_the_closest_other_candidate():
    from pearl.losses import batch_hard_triplet_loss

    a = torch.tensor([[0.0, 0.0], [10.0, 0.0]])
    p = torch.tensor([[0.0, 0.5], [10.0, 0.5]])
    far = batch_hard_triplet_loss(a, p, margin=1.0)  # the other positive is 10 away
    assert far.item() == 0.0
    near = torch.tensor([[0.0, 0.2]])  # a shared hard negative closer than the positive
    got = batch_hard_triplet_loss(a, p, near, margin=1.0)
    # anchor 0: 0.5 - 0.2 + 1; anchor 1: its closest negative is near (dist ~10.002)
    assert got.item() == pytest.approx((0.5 - 0.2 + 1.0) / 2, rel=1e-4)
    with pytest.raises(ValueError):
        batch_hard_triplet_loss(a[:1], p[:1])


def test_type_loss_ignores_untyped_phrases():
    from pearl.losses import IGNORE_LABEL, type_loss

    logits = torch.tensor([[5.0, 0.0], [0.0, 5.0], [9.0, -9.0]])
    labels = torch.tensor([0, 1, IGNORE_LABEL])
    got = type_loss(logits, labels)
    expected = torch.nn.functional.cross_entropy(logits[:2], labels[:2])
    assert got.item() == pytest.approx(expected.item())
    assert type_loss(logits, torch.full((3,), IGNORE_LABEL)) is None  # nothing typed
    with pytest.raises(ValueError):
        type_loss(logits, labels[:2])
