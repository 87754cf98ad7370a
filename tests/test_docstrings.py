"""The public API's docstrings have numpydoc sections (issue 51): every callable that the
documented packages export says what it takes, returns or holds."""

import importlib
import inspect

import pytest

PUBLIC = [
    "pearl",
    "pearl.tables",
    "pearl.training",
    "pearl.evaluation",
    "pearl.losses",
    "pearl.encoders",
    "pearl.models",
    "pearl.dask",
]
SECTIONS = ("Parameters\n----------", "Returns\n-------", "Attributes\n----------")


@pytest.mark.parametrize("package", PUBLIC)
def test_every_public_callable_has_numpydoc_sections(package):
    module = importlib.import_module(package)
    missing = [
        name
        for name in module.__all__
        if callable(obj := getattr(module, name))
        and not any(s in (inspect.getdoc(obj) or "") for s in SECTIONS)
    ]
    assert not missing, f"{package}: {missing}"
