"""The lock of the team folder's records (rewound and retired claims, offline claims, the sightings in
observed.json, branch mode's rewound.json): any process of the clone reads one, changes it and writes
it back, so two at once lost entries. Not re-entrant (store.locks.hold): no holder calls another."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from leafwise.store.locks import LOCK_TIMEOUT, hold


@contextmanager
def records_locked(folder: Path) -> Iterator[None]:
    """One writer at a time of the records in `folder` (the clone's team folder)."""
    with hold(folder / "records.lock", "this clone's team records", LOCK_TIMEOUT):
        yield
