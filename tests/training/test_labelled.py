import random

import pandas as pd
import pytest

from pearl.training.labelled import LabelledGroups, epoch_batches

PAIRS = pd.DataFrame(
    {
        "left": ["Acme Inc", "ACME Incorporated", "Globex Corp", "Initech", "Hooli", "Acme Inc"],
        "right": [
            "ACME Incorporated",
            "Acme Corporation",
            "Globex Corporation",
            "Initech LLC",
            "Hooli Inc",
            "Globex Corp",
        ],
        "label": [1, 1, 1, 1, 1, 0],
    }
)


def test_groups_are_the_components_of_the_matches():
    data = LabelledGroups.from_frame(PAIRS)
    gid = dict(zip(data.texts, data.groups.tolist(), strict=True))
    assert gid["Acme Inc"] == gid["ACME Incorporated"] == gid["Acme Corporation"]
    assert gid["Acme Inc"] != gid["Globex Corp"]
    assert tuple(sorted((gid["Acme Inc"], gid["Globex Corp"]))) in data.different
    assert len(set(data.groups.tolist())) == 4
    groups = LabelledGroups.from_frame(
        pd.DataFrame({"text": ["a", "b", "c"], "group": ["x", "x", "y"]})
    )
    assert groups.groups.tolist() == [0, 0, 1]
    with pytest.raises(ValueError, match="columns"):
        LabelledGroups.from_frame(pd.DataFrame({"a": [1]}))
    with pytest.raises(ValueError, match="0 or 1"):
        LabelledGroups.from_frame(PAIRS.assign(label=[1, 1, 1, 1, 1, 2]))
    train, val = data.split(0.3, seed=0)
    assert len(train) + len(val) == len(data)
    assert not set(train.groups.tolist()) & set(val.groups.tolist())


def test_epoch_batches_are_a_function_of_the_rng_and_pull_in_known_differences():
    data = LabelledGroups.from_frame(PAIRS)
    first = list(epoch_batches(data, 4, 2, random.Random(3)))
    assert first == list(epoch_batches(data, 4, 2, random.Random(3)))
    assert all(len(set(data.groups[b].tolist())) >= 2 for b in first)
    gid = dict(zip(data.texts, data.groups.tolist(), strict=True))
    acme, globex = gid["Acme Inc"], gid["Globex Corp"]
    for seed in range(20):  # a batch opened by either of the two groups labelled
        for b in epoch_batches(data, 4, 2, random.Random(seed)):  # different holds both
            if data.groups[b[0]] in (acme, globex):
                assert {acme, globex} <= set(data.groups[b].tolist())


def test_fingerprint_changes_with_texts_groups_and_differences():
    data = LabelledGroups.from_frame(PAIRS)
    assert data.fingerprint() == LabelledGroups.from_frame(PAIRS).fingerprint()
    other = LabelledGroups(data.texts, data.groups, set())
    assert other.fingerprint() != data.fingerprint()
    renamed = LabelledGroups(["x", *data.texts[1:]], data.groups, data.different)
    assert renamed.fingerprint() != data.fingerprint()


def test_groups_are_the_connected_components_numbered_by_first_appearance():
    from pearl.training.labelled import LabelledGroups

    left = ["a", "x", "b", "c", "y", "a", "z"]
    right = ["b", "y", "c", "d", "x", "x", "z"]
    labels = [1, 1, 1, 0, 1, 0, 1]
    g = LabelledGroups.from_pairs(left, right, labels)
    assert g.texts == ["a", "b", "x", "y", "c", "d", "z"]
    # a-b-c chained; x-y; d alone (only in a non-match); z with itself
    assert g.groups.tolist() == [0, 0, 1, 1, 0, 2, 3]
    assert g.different == {(0, 2), (0, 1)}


def test_read_labelled_names_a_missing_or_undecodable_file(tmp_path):
    from pearl.training.labelled import read_labelled

    with pytest.raises(FileNotFoundError, match="labelled matches not found"):
        read_labelled(tmp_path / "nope.csv")
    f = tmp_path / "pairs.csv"
    f.write_bytes("text,group\nJosé,1\nJose,1\n".encode("latin-1"))
    with pytest.raises(ValueError, match="pairs.csv is not utf-8 text"):
        read_labelled(f)
    f.write_text("text,group\nJosé,1\nJose,1\n", encoding="utf-8")
    assert len(read_labelled(f).texts) == 2
