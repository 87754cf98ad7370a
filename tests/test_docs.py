"""The user's documentation: relative links resolve, and the README stays short."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "results" / "README.md",
    ROOT / "experiments" / "README.md",
    ROOT / "experiments" / "results" / "README.md",
    *sorted((ROOT / "benchmarks").rglob("README.md")),
]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(doc):
    broken = []
    for target in LINK.findall(doc.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+://|mailto:|#", target):
            continue
        path = (doc.parent / target.split("#")[0]).resolve()
        if not path.exists():
            broken.append(target)
    assert not broken, f"{doc.name}: broken links {broken}"


def test_readme_is_a_short_guide():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.encode()) <= 12_000
    assert "make benchmark" in text and "make test" in text


def test_every_benchmark_script_is_in_its_folder_readme():
    folders = [ROOT / "benchmarks" / f for f in ("speed", "quality", "data")]
    for folder in [*folders, ROOT / "experiments"]:
        readme = (folder / "README.md").read_text(encoding="utf-8")
        for script in folder.glob("*.py"):
            assert f"`{script.name}`" in readme, (folder.name, script.name)


def test_the_documented_shapes_are_the_default_models():
    # docs/usage.md and docs/distributed.md print the default model's vectors
    from pearl import DEFAULT_MODEL, PhraseEncoder

    dim = PhraseEncoder(DEFAULT_MODEL).get_sentence_embedding_dimension()
    for name in ("usage.md", "distributed.md"):
        text = (ROOT / "docs" / name).read_text(encoding="utf-8")
        shapes = re.findall(r"# (?:float32 |dask array )?\((?:\d+|n), (\d+)\)", text)
        assert shapes and {int(s) for s in shapes} == {dim}, (name, shapes, dim)


def test_the_readme_commands_name_their_data():
    # pearl eval has no default data folder: the README's command says where it is
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line.startswith("pearl eval"):
            assert "--data" in line or "PEARL_DATA=" in line.split("#")[0], line


def test_the_api_reference_is_the_docstrings_of_the_public_names():
    import subprocess
    import sys

    pytest.importorskip("dask")  # pearl.dask is one of the public namespaces
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "make_api.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    page = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    for name in ("pearl.fuzzy_join", "pearl.Joiner", "pearl.Reference", "pearl.dask.fuzzy_join"):
        assert f"### `{name}" in page
