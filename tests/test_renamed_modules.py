"""The old names of renamed modules keep working, with a warning, for one release."""

import subprocess
import sys


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-W", "error::FutureWarning", "-c", code],
        capture_output=True,
        text=True,
        check=False,
    )


def test_pearl_applications_warns_and_forwards_to_pearl_tables():
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sys.modules.pop("pearl.applications", None)
        from pearl.applications.join import fuzzy_join
        from pearl.applications.tables import column_cells

        import pearl.applications as old
    assert any(issubclass(w.category, FutureWarning) for w in caught)
    import pearl.tables
    from pearl.tables.frames import column_cells as new_cells
    from pearl.tables.join import fuzzy_join as new_join

    assert fuzzy_join is new_join and column_cells is new_cells
    assert old.EntityIndex is pearl.tables.EntityIndex


def test_the_warning_is_an_error_when_asked_and_new_names_never_warn():
    assert _run("import pearl.applications").returncode != 0
    assert _run("import pearl.tables.join, pearl.tables.frames").returncode == 0


def test_a_missing_old_module_is_still_missing():
    done = _run(
        "import warnings; warnings.simplefilter('ignore')\n"
        "try:\n import pearl.applications.nothing_here\n"
        "except ModuleNotFoundError: print('missing')"
    )
    assert done.stdout.strip() == "missing", done.stderr
