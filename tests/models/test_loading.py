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
