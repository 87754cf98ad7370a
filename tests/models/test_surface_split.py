import json

import numpy as np
import pytest

from pearl import PhraseEncoder
from pearl.models.loading import open_model_folder
from pearl.models.surface_split import SurfaceSplitTransformer, add_surface_split, split_surface
from pearl.training.saving import save_model

VOCAB = frozenset({"ny", "times", "new", "york", "post", "dog", "food", "washington", "the"})


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("nytimes.com", "ny times"),
        ("https://www.nytimes.com/", "ny times"),
        ("news.bbc.co.uk", "bbc"),
        ("NYTimes", "NY Times"),
        ("WashingtonPost", "Washington Post"),
        ("washingtonpost.com", "washington post"),
        ("acmecorp.com", "acmecorp"),  # no two-word split in this vocabulary
        ("dogfood", "dogfood"),  # only a web address's host is split into words
        ("dogfood.com", "dog food"),
        ("Kinyarwanda", "Kinyarwanda"),
        ("The New York Times", "The New York Times"),  # untouched, whitespace and all
        ("The  New York   Times", "The  New York   Times"),
        ("iPhone", "iPhone"),
        ("eBay", "eBay"),
        ("NASA", "NASA"),
        ("Times", "Times"),  # a vocabulary word is never split
        ("café 🙂 naïve", "café 🙂 naïve"),
        ("", ""),
        ("a.b", "a.b"),
        ("St.Louis", "St.Louis"),  # not web addresses
        ("J.Smith", "J.Smith"),
        ("Node.js", "Node.js"),
        ("ASP.NET", "ASP.NET"),
        ("U.S.", "U.S."),
    ],
)
def test_split_surface(text, want):
    assert split_surface(text, VOCAB) == want


def test_without_a_vocabulary_only_addresses_and_case_changes_are_split():
    assert split_surface("nytimes.com") == "nytimes"
    assert split_surface("NYTimes dogfood") == "NY Times dogfood"
    assert split_surface("NYTimes.com") == "NY Times"


def test_a_split_model_reads_the_joined_forms_as_their_words(tiny_pearl_dir, tmp_path):
    base = open_model_folder(tiny_pearl_dir)
    model = add_surface_split(base)
    assert isinstance(model[0], SurfaceSplitTransformer)
    assert not isinstance(base[0], SurfaceSplitTransformer)  # the input model is unchanged
    save_model(model, tmp_path / "split")
    types = [m["type"] for m in json.loads((tmp_path / "split" / "modules.json").read_text())]
    assert types[0] == "pearl.models.surface_split.SurfaceSplitTransformer"
    split = PhraseEncoder(tmp_path / "split")
    plain = PhraseEncoder(tiny_pearl_dir)
    got = split.encode(["NYTimes", "nytimes.com", "The New York Times", ""])
    want = plain.encode(["NY Times", "ny times", "The New York Times", ""])
    np.testing.assert_allclose(got, want, atol=1e-6)
    # the tiny model's vocabulary is BERT's: "nytimes" is not a word of it, "ny" and "times" are
    assert not np.allclose(got[0], plain.encode(["NYTimes"])[0], atol=1e-4)


def test_add_surface_split_refuses_a_model_it_cannot_front(tiny_pearl_dir):
    split = add_surface_split(open_model_folder(tiny_pearl_dir))
    with pytest.raises(ValueError, match="plain Transformer"):
        add_surface_split(split)


def test_add_split_command(tiny_pearl_dir, tmp_path, capsys):
    from pearl.cli import main

    out = tmp_path / "out"
    assert main(["add-split", "-m", str(tiny_pearl_dir), "-o", str(out)]) == 0
    got = PhraseEncoder(str(out)).encode(["NYTimes"])
    np.testing.assert_allclose(got, PhraseEncoder(tiny_pearl_dir).encode(["NY Times"]), atol=1e-3)
    # the model folder it read is never the one it writes
    before = sorted(p.name for p in tiny_pearl_dir.iterdir())
    assert main(["add-split", "-m", str(tiny_pearl_dir), "-o", str(tiny_pearl_dir)]) != 0
    assert "would overwrite the input" in capsys.readouterr().err
    assert sorted(p.name for p in tiny_pearl_dir.iterdir()) == before


def test_add_split_keeps_the_start_s_training_record_and_card(tiny_pearl_dir, tmp_path):
    """The folder it writes tells how its weights were made: the start's ``training/``
    record, copied, the splitter's own record, and pearl's card with both."""
    import shutil

    from pearl.cli import main

    start = tmp_path / "start"
    shutil.copytree(tiny_pearl_dir, start)
    stage = {
        "start": "all-MiniLM-L6-v2",
        "loss": "ms",
        "groups": 10,
        "strings": 30,
        "batch_size": 8,
        "per_group": 2,
        "lr": 2e-5,
        "validation": 0.1,
        "epochs_run": 1,
        "best_epoch": 1,
        "average_weight": 0.5,
        "seconds": 1.0,
    }
    (start / "training").mkdir()
    (start / "training" / "finetune.json").write_text(json.dumps(stage))
    out = tmp_path / "split"
    assert main(["add-split", "-m", str(start), "-o", str(out)]) == 0
    assert json.loads((out / "training" / "finetune.json").read_text()) == stage
    record = json.loads((out / "training" / "surface_split.json").read_text())
    assert record == {"start": str(start), "command": f"pearl add-split -m {start} -o {out}"}
    card = (out / "README.md").read_text()
    assert "fine-tuned on labelled groups" in card and "behind a surface splitter" in card
    assert "pearl add-split -m" in card
    assert not (start / "training" / "surface_split.json").exists()  # the start unchanged


def test_add_split_of_a_folder_without_a_record_writes_only_its_own(tiny_pearl_dir, tmp_path):
    from pearl.cli import main

    out = tmp_path / "split"
    assert main(["add-split", "-m", str(tiny_pearl_dir), "-o", str(out)]) == 0
    assert sorted(p.name for p in (out / "training").iterdir()) == ["surface_split.json"]
