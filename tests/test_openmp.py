"""``import pearl`` shortens how long a waiting OpenMP thread spins (pearl._openmp), before
torch or faiss load their runtime, unless the user chose how OpenMP waits."""

import os
import subprocess
import sys

import pytest

SHOW = "import os, pearl; print(os.environ.get('GOMP_SPINCOUNT'))"


def _spin_after_import(**env: str) -> str:
    base = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    out = subprocess.run(
        [sys.executable, "-c", SHOW],
        env={**base, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def test_import_sets_a_short_spin_before_any_openmp_runtime_loads():
    assert _spin_after_import() == "1000"
    check = "import sys, pearl; print(sorted({'torch', 'faiss'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"  # so the runtimes loaded later read it


@pytest.mark.parametrize(
    ("env", "spin"),
    [({"GOMP_SPINCOUNT": "300000"}, "300000"), ({"OMP_WAIT_POLICY": "ACTIVE"}, "None")],
)
def test_a_user_s_own_openmp_wait_setting_is_kept(env, spin):
    assert _spin_after_import(**env) == spin
