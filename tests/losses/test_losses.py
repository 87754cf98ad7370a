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


def test_multi_similarity_mines_and_weights_pairs():
    from pearl.losses import multi_similarity_loss

    labels = torch.tensor([0, 0, 1, 1])
    # well separated groups: every pair's locality is preserved, nothing is mined
    easy = torch.tensor([[1.0, 0.0], [0.99, 0.05], [0.0, 1.0], [0.05, 0.99]])
    assert multi_similarity_loss(easy, labels).item() == 0.0
    # a negative closer than a positive: mined, positive loss
    hard = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.9, 0.1], [0.1, 0.9]], requires_grad=True)
    loss = multi_similarity_loss(hard, labels)
    assert loss.item() > 0
    loss.backward()
    assert hard.grad.abs().sum() > 0
    # the loss falls as the groups are pulled together
    better = multi_similarity_loss(
        torch.tensor([[1.0, 0.0], [0.8, 0.3], [0.3, 0.8], [0.0, 1.0]]), labels
    )
    assert better < loss
    with pytest.raises(ValueError):
        multi_similarity_loss(easy, labels[:3])


def test_multi_similarity_matches_the_formula_on_one_anchor():
    from pearl.losses import multi_similarity_loss

    a, b, base = 2.0, 50.0, 0.5
    x = torch.tensor([[1.0, 0.0], [0.6, 0.8], [0.8, 0.6]])  # anchor 0: pos 1, neg 2
    labels = torch.tensor([0, 0, 1])
    got = multi_similarity_loss(x, labels, alpha=a, beta=b, base=base)

    # anchor 0: S_pos = 0.6, S_neg = 0.8 (both mined); anchor 1: S_pos = 0.6, S_neg = 0.96
    # anchor 2 has no positive and does not count
    def term(sp, sn):
        return (
            math.log(1 + math.exp(-a * (sp - base))) / a
            + math.log(1 + math.exp(b * (sn - base))) / b
        )

    expected = (term(0.6, 0.8) + term(0.6, 0.96)) / 2
    assert got.item() == pytest.approx(expected, rel=1e-4)


def _ms_by_the_equations(x, labels, alpha, beta, lam, eps):
    """A direct, loop-by-loop reading of SentPWNet eq. 8 with the mining of eq. 11-12."""
    x = torch.nn.functional.normalize(x, dim=-1)
    s = (x @ x.T).tolist()
    n = len(s)
    total, counted, mined = 0.0, 0, set()
    for i in range(n):
        pos = [k for k in range(n) if k != i and labels[k] == labels[i]]
        neg = [k for k in range(n) if labels[k] != labels[i]]
        if not pos or not neg:
            continue
        kept_neg = [j for j in neg if s[i][j] > min(s[i][k] for k in pos) - eps]
        kept_pos = [j for j in pos if s[i][j] < max(s[i][k] for k in neg) + eps]
        mined |= {(i, j, "+") for j in kept_pos} | {(i, j, "-") for j in kept_neg}
        if not kept_pos or not kept_neg:
            continue
        total += (
            math.log(1 + sum(math.exp(-alpha * (s[i][k] - lam)) for k in kept_pos)) / alpha
            + math.log(1 + sum(math.exp(beta * (s[i][k] - lam)) for k in kept_neg)) / beta
        )
        counted += 1
    return (total / counted if counted else 0.0), mined


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_multi_similarity_equals_the_equations(seed):
    from pearl.losses import mine_pairs, multi_similarity_loss

    g = torch.Generator().manual_seed(seed)
    x = torch.randn(12, 6, generator=g)
    labels = torch.randint(0, 4, (12,), generator=g)
    for alpha, beta, lam in ((2.0, 50.0, 0.5), (1.0, 10.0, 0.2)):
        expected, mined = _ms_by_the_equations(x, labels.tolist(), alpha, beta, lam, 0.1)
        got = multi_similarity_loss(x, labels, alpha=alpha, beta=beta, base=lam, epsilon=0.1)
        assert got.item() == pytest.approx(expected, rel=1e-4, abs=1e-6)
        xn = torch.nn.functional.normalize(x, dim=-1)
        keep_pos, keep_neg = mine_pairs(xn @ xn.T, labels, 0.1)
        # rows without a positive or a negative mine nothing in the equations
        has_both = [
            (labels == labels[i]).sum() > 1 and (labels != labels[i]).any() for i in range(12)
        ]
        ours = {(i, j, "+") for i, j in keep_pos.nonzero().tolist() if has_both[i]} | {
            (i, j, "-") for i, j in keep_neg.nonzero().tolist() if has_both[i]
        }
        assert ours == mined


def test_supervised_contrastive_loss_pulls_one_type_together():
    from pearl.losses import IGNORE_LABEL, supervised_contrastive_loss

    labels = torch.tensor([0, 0, 1, 1])
    apart = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 0.1], [0.1, 1.0]])  # types mixed
    together = torch.tensor([[1.0, 0.0], [1.0, 0.1], [0.0, 1.0], [0.1, 1.0]])
    assert supervised_contrastive_loss(together, labels) < supervised_contrastive_loss(
        apart, labels
    )
    # no row with a positive: nothing to learn, not a NaN
    assert supervised_contrastive_loss(apart, torch.tensor([0, 1, 2, IGNORE_LABEL])) is None
    assert supervised_contrastive_loss(apart, torch.full((4,), IGNORE_LABEL)) is None
    # an unlabelled row is never a positive but is a negative in every denominator
    base = torch.tensor([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]])
    near = torch.tensor([[1.0, 0.0], [0.9, 0.1], [1.0, 0.05]])
    unlabelled = torch.tensor([0, 0, IGNORE_LABEL])
    assert supervised_contrastive_loss(near, unlabelled) > supervised_contrastive_loss(
        base, unlabelled
    )
    x = torch.randn(6, 3, requires_grad=True)
    loss = supervised_contrastive_loss(x, torch.tensor([0, 0, 0, 1, 1, 1]), temperature=0.5)
    loss.backward()
    assert torch.isfinite(x.grad).all()
    with pytest.raises(ValueError, match="labels"):
        supervised_contrastive_loss(x, torch.tensor([0, 1]))
    with pytest.raises(ValueError, match="temperature"):
        supervised_contrastive_loss(x, torch.zeros(6, dtype=torch.long), temperature=0)


def test_own_negatives_nce_is_a_softmax_over_each_anchors_own_candidates():
    import torch.nn.functional as F

    from pearl.losses import own_negatives_nce

    g = torch.Generator().manual_seed(0)
    a, p = torch.randn(3, 8, generator=g), torch.randn(3, 8, generator=g)
    n = torch.randn(3, 2, 8, generator=g)
    valid = torch.tensor([[True, True], [True, False], [True, True]])
    got = own_negatives_nce(a, p, n, valid, temperature=0.5)
    want = []
    for i in range(3):
        cands = [p[i]] + [n[i, j] for j in range(2) if valid[i, j]]
        sims = torch.stack([F.cosine_similarity(a[i], c, dim=0) for c in cands]) / 0.5
        want.append(-torch.log_softmax(sims, dim=0)[0])
    torch.testing.assert_close(got, torch.stack(want).mean())
    # a negative moved onto the positive's direction raises the loss; others do not matter
    far = own_negatives_nce(a, p, -a[:, None, :].repeat(1, 2, 1))
    near = own_negatives_nce(a, p, a[:, None, :].repeat(1, 2, 1))
    assert near > far
    with pytest.raises(ValueError, match="valid negative"):
        own_negatives_nce(a, p, n, torch.zeros(3, 2, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"\(n, k, dim\)"):
        own_negatives_nce(a, p, n[:2])
