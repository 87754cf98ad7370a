from pathlib import Path

import pytest

from pearl import paths


def test_environment_moves_every_path(monkeypatch, tmp_path):
    monkeypatch.setenv("PEARL_DATA", str(tmp_path / "d"))
    monkeypatch.setenv("PEARL_CACHE", str(tmp_path / "c"))
    monkeypatch.setenv("PEARL_RESULTS", str(tmp_path / "r"))
    assert paths.data_root() == tmp_path / "d"
    assert paths.benchmark_dir() == tmp_path / "d" / "benchmark"
    assert paths.short_text_dir() == tmp_path / "d" / "short_text"
    assert paths.wordnet_dir() == tmp_path / "d" / "lexicon" / "wordnet"
    assert paths.cache_dir() == tmp_path / "c"
    assert paths.results_dir() == tmp_path / "r"


def test_defaults(monkeypatch, tmp_path):
    for var in ("PEARL_DATA", "PEARL_CACHE", "PEARL_RESULTS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    # no default data folder: the variable or --data, never a guess beside the working dir
    (tmp_path.parent / "shared" / "data").mkdir(parents=True, exist_ok=True)
    with pytest.raises(FileNotFoundError, match="PEARL_DATA"):
        paths.data_root()
    with pytest.raises(FileNotFoundError, match="--data"):
        paths.benchmark_dir()
    assert paths.cache_dir() == Path.home() / ".cache" / "pearl"
    assert paths.results_dir() == Path("pearl-results")
