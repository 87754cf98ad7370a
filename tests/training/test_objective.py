"""The objective is a sum of loss modules composed from the configuration (issue 34)."""

import math
from types import SimpleNamespace

import pytest
import torch

from pearl.losses import IGNORE_LABEL, info_nce, supervised_contrastive_loss, type_loss
from pearl.training import load_config
from pearl.training.objective import (
    ContextLoss,
    ContrastiveLoss,
    Objective,
    StepEmbeddings,
    TypeLoss,
    build_objective,
)


class Head(torch.nn.Module):
    def __init__(self, dim=8, labels=5):
        super().__init__()
        self.linear = torch.nn.Linear(dim, labels)

    def type_logits(self, x):
        return self.linear(x)


def _step(labels, types=None, b=4, dim=8, k=2, contexts_encode=None):
    g = torch.Generator().manual_seed(0)
    emb = torch.randn(2 * b + k, dim, generator=g)
    batch = SimpleNamespace(anchors=[f"a{i}" for i in range(b)], labels=labels, types=types)
    return StepEmbeddings(
        batch,
        anchors=emb[:b],
        positives=emb[b : 2 * b],
        negatives=emb[2 * b :],
        own_negatives=emb[:0],
        encode=contexts_encode or (lambda texts: None),
        fusion=Head(dim),
    )


def test_terms_follow_the_config():
    names = lambda cfg, **kw: [t.name for t in build_objective(cfg, **kw).terms]  # noqa: E731
    base = load_config(None, {})
    assert names(base) == ["contrastive", "type"]  # the PEARL recipe
    off = load_config(None, {"type_loss": False, "type_contrastive_weight": 0.2})
    assert names(off) == ["contrastive", "type_contrastive"]
    with_files = load_config(None, {"contexts": "contexts.tsv", "teacher": "teacher"})
    assert names(with_files, contexts={"a": "b"}, teacher=lambda x: x) == [
        "contrastive",
        "context",
        "distill",
        "type",
    ]
    assert (
        build_objective(load_config(None, {"objective": "triplet"})).terms[0].objective == "triplet"
    )
    with pytest.raises(ValueError, match="needs its contexts"):
        build_objective(with_files, teacher=lambda x: x)


def test_the_sum_is_the_weighted_formula():
    cfg = load_config(None, {"type_weight": 0.3, "type_contrastive_weight": 0.2})
    objective = build_objective(cfg)
    step = _step(labels=[0, 1, IGNORE_LABEL, 2], types=[1, 1, 2, 2])
    loss, record = objective(step)
    y = torch.tensor([0, 1, IGNORE_LABEL, 2])
    expected = (
        info_nce(step.anchors, step.positives, step.negatives, cfg.temperature)
        + 0.3
        * type_loss(
            step.fusion.type_logits(torch.cat([step.anchors, step.positives])), torch.cat([y, y])
        )
        + 0.2
        * supervised_contrastive_loss(step.anchors, [1, 1, 2, 2], cfg.type_contrastive_temperature)
    )
    torch.testing.assert_close(loss, expected)
    assert set(record) == {"contrastive", "type", "type_contrastive", "loss"}
    assert record["loss"] == pytest.approx(expected.item())


def test_a_term_without_data_is_left_out_and_reported_as_nan():
    objective = Objective([ContrastiveLoss(), TypeLoss(weight=1.0)])
    step = _step(labels=[IGNORE_LABEL] * 4)
    loss, record = objective(step)
    torch.testing.assert_close(loss, info_nce(step.anchors, step.positives, step.negatives))
    assert math.isnan(record["type"])


def test_context_loss_needs_two_contexts():
    calls = []

    def encode(texts):
        calls.append(texts)
        return torch.randn(len(texts), 8)

    term = ContextLoss({"a1": "x [MASK]"}, weight=0.5)
    assert term(_step(labels=[0] * 4, contexts_encode=encode)) is None and calls == []
    term = ContextLoss({"a1": "x [MASK]", "a3": "y [MASK]"}, weight=0.5)
    assert term(_step(labels=[0] * 4, contexts_encode=encode)).dim() == 0
    assert calls == [["x [MASK]", "y [MASK]"]]
    _, record = Objective([ContrastiveLoss(), ContextLoss({}, weight=1.0)])(_step(labels=[0] * 4))
    assert "context" not in record  # absent, not NaN


def test_unknown_objective_and_empty_objective_are_refused():
    with pytest.raises(ValueError, match="objective"):
        ContrastiveLoss("cosine")
    with pytest.raises(ValueError, match="at least one"):
        Objective([])


def test_group_objectives_are_the_fine_tuning_losses_by_name():
    from pearl.losses import batch_hard_triplet_loss, info_nce, multi_similarity_loss
    from pearl.training.objective import GROUP_LOSSES, StepEmbeddings, group_objective

    torch.manual_seed(0)
    emb = torch.nn.functional.normalize(torch.randn(8, 6), dim=1)
    groups = torch.tensor([0, 0, 1, 1, 2, 2, 2, 3])
    step = StepEmbeddings.of_groups(emb, groups)
    options = dict(alpha=2.0, beta=40.0, base=0.4, epsilon=0.2, temperature=0.1, margin=0.5)
    a, p = emb[[0, 2, 4]], emb[[1, 3, 5]]  # the first two members of each group of two+
    expected = {
        "ms": multi_similarity_loss(emb, groups, alpha=2.0, beta=40.0, base=0.4, epsilon=0.2),
        "infonce": info_nce(a, p, temperature=0.1),
        "triplet": batch_hard_triplet_loss(a, p, margin=0.5),
    }
    assert set(GROUP_LOSSES) == set(expected)
    for name, value in expected.items():
        loss, record = group_objective(name, **options)(step)
        assert torch.equal(loss, value) and record == {name: value.item(), "loss": value.item()}
    with pytest.raises(ValueError, match="unknown loss"):
        group_objective("contrastive")


def test_word_negatives_push_each_anchor_from_its_own_negatives_only(tmp_path):
    from pearl.losses import own_negatives_nce
    from pearl.training.objective import WordNegativeLoss

    table = {f"v{i}": torch.randn(8, generator=torch.Generator().manual_seed(i)) for i in range(3)}
    seen = []

    def encode(texts):
        seen.append(list(texts))
        return torch.stack([table[t] for t in texts])

    step = _step([0, 1, 2, 3], contexts_encode=encode)
    negatives = {"a1": ["v0", "v1"], "a3": ["v2"], "zz": ["v0"]}
    term = WordNegativeLoss(negatives, weight=0.3, temperature=0.1)
    got = term(step)
    assert seen == [["v0", "v1", "v2", "v2"]]  # a3's list padded, the pad not counted
    negs = torch.stack([torch.stack([table["v0"], table["v1"]]), table["v2"].repeat(2, 1)])
    valid = torch.tensor([[True, True], [True, False]])
    rows = [1, 3]
    want = own_negatives_nce(step.anchors[rows], step.positives[rows], negs, valid, 0.1)
    torch.testing.assert_close(got, want)
    assert WordNegativeLoss({"zz": ["v0"]}, 1.0)(step) is None  # nothing in this batch

    cfg = load_config(
        None,
        {
            "word_negatives": str(tmp_path / "w.tsv"),
            "word_negative_weight": 0.3,
            "type_loss": False,
        },
    )
    objective = build_objective(cfg, word_negatives=negatives)
    assert [t.name for t in objective.terms] == ["contrastive", "word_negatives"]
    assert objective.terms[1].weight == 0.3
    with pytest.raises(ValueError, match="needs its word_negatives"):
        build_objective(cfg)
    with pytest.raises(ValueError, match="needs word_negatives"):
        load_config(None, {"word_negative_weight": 0.3})
