import json

import numpy as np
import pytest
import torch
from conftest import HashEncoder

from pearl.data.corpus import read_corpus
from pearl.losses import similarity_distillation
from pearl.training import Trainer, load_config
from pearl.training.teacher import MANIFEST, TeacherEmbeddings, encode_teacher


def test_teacher_embeddings_are_written_in_resumable_shards(training_files, tmp_path):
    enc = HashEncoder(dim=24)
    out = encode_teacher(
        training_files["corpus"], tmp_path / "t", model=enc, chunk_size=3, show_progress_bar=False
    )
    phrases = [r.phrase for r in read_corpus(training_files["corpus"])]
    shards = sorted((out / "embeddings").rglob("*.npy"))
    assert len(shards) == -(-len(set(phrases)) // 3)
    teacher = TeacherEmbeddings(out)
    np.testing.assert_allclose(teacher(phrases[:4]), enc.encode(phrases[:4]))
    assert json.loads((out / MANIFEST).read_text())["complete"] is True
    # an interrupted run: one shard lost; the re-run encodes only its phrases
    shards[0].unlink()
    shards[0].with_suffix(".json").unlink()
    again = HashEncoder(dim=24)
    encode_teacher(
        training_files["corpus"], out, model=again, chunk_size=3, show_progress_bar=False
    )
    assert again.calls == 3
    with pytest.raises(ValueError, match="another model"):
        encode_teacher(
            training_files["corpus"], out, model=HashEncoder(dim=8), show_progress_bar=False
        )
    with pytest.raises(KeyError, match="pearl teacher"):
        teacher(["a phrase that is not in the corpus"])
    teacher.require(phrases)
    with pytest.raises(KeyError, match="1 phrases have no teacher embedding"):
        teacher.require([*phrases, "a phrase that is not in the corpus"])


def test_an_incomplete_folder_is_refused(training_files, tmp_path):
    out = encode_teacher(
        training_files["corpus"], tmp_path / "t", model=HashEncoder(), show_progress_bar=False
    )
    info = json.loads((out / MANIFEST).read_text())
    (out / MANIFEST).write_text(json.dumps({**info, "complete": False}))
    with pytest.raises(ValueError, match="incomplete"):
        TeacherEmbeddings(out)


def test_similarity_distillation():
    torch.manual_seed(0)
    t = torch.randn(6, 10)
    same = similarity_distillation(t.clone().requires_grad_(), t)
    assert same.item() == pytest.approx(0.0, abs=1e-6)
    student = torch.randn(6, 4, requires_grad=True)  # another width: only similarities count
    loss = similarity_distillation(student, t)
    assert loss.item() > 0.01
    loss.backward()
    assert student.grad is not None and torch.isfinite(student.grad).all()
    with pytest.raises(ValueError):
        similarity_distillation(student, t[:5])


def test_training_with_a_teacher(training_files, tiny_model_dir, tmp_path):
    teacher = encode_teacher(
        training_files["corpus"], tmp_path / "t", model=HashEncoder(), show_progress_bar=False
    )
    opts = dict(
        training_files,
        backbone=str(tiny_model_dir),
        output=str(tmp_path / "m"),
        batch_size=4,
        max_steps=2,
        char_pretrain_steps=1,
        char_out_dim=8,
        teacher=str(teacher),
        distill_weight=0.5,
    )
    result = Trainer(load_config(None, opts), show_progress_bar=False).train()
    assert all(np.isfinite(r["distill"]) for r in result.history)
    assert "distill" in (tmp_path / "m" / "training" / "loss.tsv").read_text().split("\n")[0]


def test_teacher_command_places_the_model_on_the_asked_device(
    training_files, tiny_model_dir, tmp_path
):
    from pearl.cli import main

    out = tmp_path / "t"
    assert (
        main(
            [
                "teacher",
                str(training_files["corpus"]),
                "-o",
                str(out),
                "-m",
                str(tiny_model_dir),
                "--device",
                "cpu",
                "--limit",
                "4",
                "-q",
            ]
        )
        == 0
    )
    teacher = TeacherEmbeddings(out)
    assert len(teacher) == 4 and teacher.dim > 0
