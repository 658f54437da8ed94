"""Shared fixtures. Helper functions live in `testkit` (on pytest's `pythonpath`, see pyproject.toml)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from testkit import DEMO_PLAN


@pytest.fixture
def demo_plan(tmp_path: Path) -> Path:
    """A copy of the bundled demo plan (a web shop mid-project)."""
    shutil.copytree(DEMO_PLAN, tmp_path / "shop")
    return tmp_path / "shop"


@pytest.fixture
def anyio_backend() -> str:
    """Textual runs on asyncio; never parametrize the canvas tests over trio when it happens to be installed."""
    return "asyncio"


@pytest.fixture(autouse=True)
def own_config_dir(tmp_path_factory, monkeypatch) -> Path:
    """Every test gets its own user config folder (trust approvals, canvas settings), never ~/.config."""
    folder = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("LEAFWISE_CONFIG_DIR", str(folder))
    return folder
