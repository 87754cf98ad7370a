"""The strict loader's one dependency on a private sentence-transformers method is pinned
here: an upgrade that renames or reshapes it fails this test, not every model load."""

from __future__ import annotations

import inspect

import pytest


def test_the_private_loader_pearl_calls_still_has_its_shape():
    from sentence_transformers import SentenceTransformer

    loader = SentenceTransformer._load_with_module_classes
    params = inspect.signature(loader).parameters
    assert list(params)[:2] == ["model_name_or_path", "module_classes"]
    assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    # the keywords pearl passes reach SentenceTransformer's own constructor
    init = inspect.signature(SentenceTransformer.__init__).parameters
    for name in ("device", "local_files_only", "trust_remote_code", "model_kwargs"):
        assert name in init, name


def test_without_it_loading_is_a_clear_error(tiny_model_dir, monkeypatch):
    from sentence_transformers import SentenceTransformer

    from pearl import PhraseEncoder

    monkeypatch.setattr(SentenceTransformer, "_load_with_module_classes", None)  # renamed
    with pytest.raises(OSError, match="sentence-transformers 6"):
        PhraseEncoder(tiny_model_dir)


def test_a_folder_loads_without_transformers_weight_bar(tiny_model_dir, capfd):
    # transformers 5 draws a "Loading weights" bar for every load (under a second: noise
    # on each command and notebook cell); the strict loader turns it off, then back on
    from transformers.utils import logging as hf_logging

    from pearl.models.loading import open_model_folder

    assert hf_logging.is_progress_bar_enabled()
    model = open_model_folder(tiny_model_dir)
    assert model.encode(["a"]).shape[0] == 1
    assert "Loading weights" not in capfd.readouterr().err
    assert hf_logging.is_progress_bar_enabled()
