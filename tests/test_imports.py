"""`import pearl` and `pearl --help` stay light (issue 37): the heavy libraries load on
first use of a name that needs them. Timing targets live in benchmarks/speed/startup.py."""

import subprocess
import sys

import pytest

HEAVY = (
    "torch",
    "transformers",
    "sentence_transformers",
    "pandas",
    "sklearn",
    "spacy",
    "nltk",
    "dask",
    "faiss",
)


def _loaded(code: str) -> list[str]:
    probe = code + f"\nimport sys\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = (
        subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
        )
        .stdout.strip()
        .splitlines()
    )
    return [m for m in out[-1].split(",") if m] if out else []


@pytest.mark.parametrize(
    "code",
    [
        "import pearl",
        "import pearl; pearl.__version__; pearl.DEFAULT_MODEL",
        "from pearl.cli import build_parser; build_parser().format_help()",
    ],
)
def test_start_up_imports_no_heavy_library(code):
    assert _loaded(code) == []


def test_a_small_static_encoding_loads_no_progress_bar_library(capsys):
    probe = (
        "import sys, pearl\n"
        "pearl.PhraseEncoder('pearl-static').encode(['New York', 'NY'])\n"
        "print('tqdm' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip().splitlines()[-1] == "False"
    import pearl

    pearl.PhraseEncoder("pearl-static").encode(["New York", "NY"], show_progress_bar=True)
    assert "encode pearl-static" in capsys.readouterr().err  # asked for: a tqdm bar


def test_names_load_on_first_use():
    assert "pandas" in _loaded("import pearl; pearl.fuzzy_join")
    import pearl

    assert callable(pearl.deduplicate) and "deduplicate" in dir(pearl)
    with pytest.raises(AttributeError, match="no_such_name"):
        pearl.no_such_name  # noqa: B018


def test_no_public_name_is_shadowed_by_a_submodule():
    """A lazy name equal to a submodule's name would turn into the module once that
    submodule is imported (as ``fuzzy_join`` did): every public name stays the object."""
    import importlib
    import pkgutil
    import types

    import pearl

    packages = [
        "pearl",
        *(f"pearl.{m.name}" for m in pkgutil.iter_modules(pearl.__path__) if m.ispkg),
    ]
    for name in packages:  # import every submodule first
        pkg = importlib.import_module(name)
        for m in pkgutil.iter_modules(pkg.__path__):
            full = f"{name}.{m.name}"
            if not m.name.startswith("_") and name != "pearl.distributed":
                importlib.import_module(full)
    for name in packages:
        pkg = importlib.import_module(name)
        for public in getattr(pkg, "__all__", []):
            assert not isinstance(getattr(pkg, public), types.ModuleType), f"{name}.{public}"


def test_models_never_import_encoders():
    """Data flows one way: ``pearl.models`` (architectures, loading) is below
    ``pearl.encoders`` (what users call); no module of models imports encoders."""
    import ast
    from pathlib import Path

    import pearl

    offenders = []
    for path in (Path(pearl.__file__).parent / "models").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "pearl.encoders"
            ):
                offenders.append(f"{path.name}: {node.module}")
    assert offenders == []


def _modules():
    """Every module of the package, found without importing the shim at collection (as
    pkgutil.walk_packages does, which printed its FutureWarning in every test run)."""
    import importlib
    import pkgutil

    import pearl

    names, todo = [], [(pearl.__path__, "pearl.")]
    while todo:
        path, prefix = todo.pop()
        for m in pkgutil.iter_modules(path, prefix):
            names.append(m.name)
            if m.ispkg:
                todo.append((importlib.import_module(m.name).__path__, m.name + "."))
    return sorted(names)


@pytest.mark.parametrize("name", _modules())
def test_every_public_name_resolves_and_star_imports_work(name):
    # pearl.dask's hand-kept re-export list once missed `deduplicate`, documented in
    # docs/distributed.md: `pearl.dask.deduplicate` raised AttributeError, and so did
    # `from pearl.dask import *`
    import importlib
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no module of the package warns on import
        module = importlib.import_module(name)
    missing = [n for n in getattr(module, "__all__", []) if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names {missing}, which it does not define"
    namespace: dict = {}
    exec(f"from {name} import *", namespace)  # our own module names


def test_pearl_dask_offers_what_docs_distributed_names():
    import pearl.dask
    from pearl.distributed import dask as source

    assert pearl.dask.__all__ == source.__all__
    assert pearl.dask.deduplicate is source.deduplicate


def test_a_topics_option_error_comes_before_torch():
    """`pearl topics --min-df` too high is reported without importing torch (6 s here)."""
    code = (
        "from pearl.tables.topics import document_vocabulary\n"
        "try:\n    document_vocabulary(['a b', 'c d'], min_df=5)\n"
        "except ValueError:\n    pass"
    )
    assert "torch" not in _loaded(code)
