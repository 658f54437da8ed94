"""What the canvas tests share: the display time zone pinned for snapshots, when a test asks for it."""

from __future__ import annotations

import time

import pytest


@pytest.fixture
def utc(monkeypatch):
    """TZ=UTC for the test (the snapshots show local times)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()
