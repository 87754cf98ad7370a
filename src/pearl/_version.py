"""The version of pearl, read from the installed package's metadata (single source:
``pyproject.toml``)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("pearl")
except PackageNotFoundError:  # a source tree that is not installed
    __version__ = "0.0.0+unknown"
