"""Shared fixtures. Helper functions live in `testkit` (on pytest's `pythonpath`, see pyproject.toml)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from testkit import DEMO_PLAN

# A shell with PYTHONDONTWRITEBYTECODE (this machine's, maybe CI's) makes every interpreter the tests start
# (the CLI fresh, MCP servers, reconcile's child, pytest's workers) compile Leafwise from source again:
# 0.37 s instead of 0.20 s for the CLI's imports. Bytecode is a cache Python checks against the source.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False


@pytest.fixture
def demo_plan(tmp_path: Path) -> Path:
    """A copy of the bundled demo plan (a web shop mid-project)."""
    shutil.copytree(DEMO_PLAN, tmp_path / "shop")
    return tmp_path / "shop"


@pytest.fixture
def anyio_backend() -> str:
    """Textual runs on asyncio; never parametrize the canvas tests over trio when it happens to be installed."""
    return "asyncio"


# Variables of the shell that started pytest that would steer a test: the plan folder, the agent, the
# person, the settings file, the reconcile cache and workers. Every test starts without them; a test
# that needs one sets it.
STEERING = ("LEAFWISE_ROOT", "LEAFWISE_AGENT", "LEAFWISE_USER", "LEAFWISE_SETTINGS", "LEAFWISE_RECONCILE_CACHE",
            "LEAFWISE_RECONCILE_WORKERS")


@pytest.fixture(autouse=True)
def own_config_dir(tmp_path_factory, monkeypatch) -> Path:
    """Every test gets its own user config and cache folders (trust approvals, canvas settings, caches),
    never ~/.config or ~/.cache, and none of the shell's LEAFWISE_* variables (STEERING)."""
    for name in STEERING:
        monkeypatch.delenv(name, raising=False)
    folder = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("LEAFWISE_CONFIG_DIR", str(folder))
    monkeypatch.setenv("LEAFWISE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    # No loop server behind the CLI calls of a test: each would start one per plan folder; the server's
    # own tests (tests/commands/test_loop_server.py) turn it on and compare it with a call's own run.
    monkeypatch.setenv("LEAFWISE_SERVER", "0")
    return folder
