"""The layers hold: import-linter checks the contracts in pyproject.toml ([tool.importlinter])."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from testkit import REPO


def test_import_contracts_are_kept() -> None:
    lint = shutil.which("lint-imports")
    if lint is None:
        pytest.fail("import-linter is not installed (it is in the [test] extra)")
    proc = subprocess.run([lint, "--no-cache"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout
