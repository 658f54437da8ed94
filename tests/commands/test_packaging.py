"""The wheel installs one namespace, `leafwise.*`, with its data files; no bare top-level packages."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from testkit import REPO


def test_wheel_has_only_the_leafwise_namespace_and_its_data(tmp_path: Path) -> None:
    # The build a user's pip runs (pyproject's backend and its `setuptools>=77`), with the setuptools
    # the test extra installs instead of a fresh copy in an isolated environment (20-30 s saved).
    subprocess.run([sys.executable, "-P", "-m", "pip", "wheel", str(REPO), "--no-deps", "--no-build-isolation",
                    "-w", str(tmp_path), "-q"], check=True, capture_output=True)
    wheel = next(tmp_path.glob("leafwise-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"leafwise", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info"}
    for package in ("store", "commands", "canvas", "themes"):
        assert f"leafwise/{package}/__init__.py" in names
    assert "leafwise/commands/envelope.schema.json" in names
    assert any(n.startswith("leafwise/themes/") and n.endswith(".tcss") for n in names)
    demo = [n for n in names if n.startswith("leafwise/canvas/demo/shop/.leafwise/")]
    assert "leafwise/canvas/demo/shop/.leafwise/project.yaml" in demo
    assert sum(n.endswith(".yaml") and "/nodes/" in n for n in demo) > 50
