import numpy as np
import pytest

from pearl.data.labels import LABEL_TO_ID
from pearl.training import TrainingData

PAIRS = [
    ("a b", "a c", "char_swap"),
    ("New York", "NY", "acronym"),
    ("grown man", "adult male", "wordnet_paraphrase"),
    ("red car", "car red", "token_swap"),
    ("x", "x", "identity"),
    ("", "y", "char_drop"),
]
LABELS = {"New York": "NP-GPE", "a b": "NP-OTHER"}


def test_levels_filter_pairs():
    data = TrainingData(PAIRS, LABELS, {}, levels={"char"})
    assert data.anchors == ["a b"]
    data = TrainingData(PAIRS, LABELS, {}, levels={"char", "token", "phrase"})
    assert sorted(data.anchors) == ["New York", "a b", "grown man", "red car"]


def test_no_level_makes_each_phrase_its_own_positive():
    data = TrainingData(PAIRS, LABELS, {}, levels=())
    assert data.anchors == data.positives and "" not in data.anchors


def test_weight_zero_drops_an_augmenter_and_labels_are_ids():
    data = TrainingData(PAIRS, LABELS, {}, augmenter_weights={"acronym": 0.0})
    assert "New York" not in data.anchors
    assert data.labels[data.anchors.index("a b")] == LABEL_TO_ID["NP-OTHER"]
    assert data.labels[data.anchors.index("grown man")] == -100  # unlabelled: ignored


def test_nothing_left_is_an_error():
    with pytest.raises(ValueError, match="no training pairs"):
        TrainingData(PAIRS, LABELS, {}, levels={"char"}, augmenter_weights={"char_swap": 0})


def test_batches_are_a_function_of_seed_and_step(training_files):
    data = TrainingData.from_files(**training_files, seed=3)
    b1, b2 = data.batch(5, 4, hard_negatives=2), data.batch(5, 4, hard_negatives=2)
    assert b1.anchors == b2.anchors and b1.negatives == b2.negatives
    assert len(b1.anchors) == 4 and len(b1.negatives) == 2
    epoch = [a for s in range(data.steps_per_epoch(4)) for a in data.batch(s, 4).anchors]
    assert len(set(epoch)) == len(epoch)  # no phrase twice in an epoch
    assert (
        data.batch(0, 4).anchors
        != TrainingData.from_files(**training_files, seed=4).batch(0, 4).anchors
        or len(data) <= 4
    )


def test_max_examples(training_files):
    assert len(TrainingData.from_files(**training_files, max_examples=3)) == 3


def test_missing_files_are_named(training_files, tmp_path):
    with pytest.raises(FileNotFoundError, match="augmented"):
        TrainingData.from_files(training_files["corpus"], tmp_path / "nope.tsv")
    with pytest.raises(FileNotFoundError, match="corpus"):
        TrainingData.from_files(tmp_path / "nope.tsv", training_files["augmented"])


def test_entity_types_drop_the_lexical_class_and_other():
    from pearl.training.dataset import entity_types

    ids = np.array(
        [
            LABEL_TO_ID["NP-ORG"],
            LABEL_TO_ID["ADJP-ORG"],
            LABEL_TO_ID["NP-GPE"],
            LABEL_TO_ID["NP-OTHER"],
            -100,
        ]
    )
    t = entity_types(ids)
    assert t[0] == t[1] != t[2] and t[0] >= 0 and t[2] >= 0
    assert t[3] == -100 and t[4] == -100


def test_typed_rows_come_in_groups_of_one_type(training_files):
    data = TrainingData.from_files(**training_files, seed=1)
    b = data.batch(3, 6, typed=4, group_size=2)
    assert len(b.anchors) == 6 and len(b.types) == 6
    groups = b.types[2:].reshape(2, 2)
    assert (groups >= 0).all() and (groups[:, 0] == groups[:, 1]).all()
    again = data.batch(3, 6, typed=4, group_size=2)
    assert again.anchors == b.anchors  # a function of seed and step, as every batch
    # the permutation part walks the epoch: batch_size - typed new pairs per step
    assert data.steps_per_epoch(6, typed=4) == len(data) // 2
    epoch = [
        a
        for s in range(data.steps_per_epoch(6, 4))
        for a in data.batch(s, 6, typed=4, group_size=2).anchors[:2]
    ]
    assert len(set(epoch)) == len(epoch)
    # no type with a full group: the batch is the permutation part alone
    assert not data.eligible_types(5)
    assert len(data.batch(0, 6, typed=5, group_size=5).anchors) == 1
    # typed rows are whole groups: 3 rows in groups of 2 are one group, the permutation
    # part takes the rest of the batch
    odd = data.batch(0, 6, typed=3, group_size=2)
    assert len(odd.anchors) == 6 and odd.types[-1] == odd.types[-2] >= 0


@pytest.mark.parametrize(
    "which, row, message",
    [
        ("augmented", "New York\tNYC\n", r"augmented\.tsv, line 2: expected 3"),
        ("corpus", "New York\tNP-GPE\tmany\ttest\n", r"corpus\.tsv, line 2: frequency 'many'"),
        ("corpus", "New York\tNP-GPE\n", r"corpus\.tsv, line 2: expected 4"),
    ],
)
def test_a_malformed_training_row_names_its_file_and_line(training_files, which, row, message):
    from pearl.training.dataset import TrainingData

    path = training_files[which]
    header = open(path, encoding="utf-8").readline()
    with open(path, "w", encoding="utf-8") as f:
        f.write(header + row)
    with pytest.raises(ValueError, match=message):
        TrainingData.from_files(**training_files)
