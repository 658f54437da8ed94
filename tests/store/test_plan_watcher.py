"""PlanWatcher: a synchronous "what changed since I last looked" with no write missed."""

from __future__ import annotations

import shutil
from pathlib import Path

from leafwise.store import find_root
from leafwise.store.watch import PlanWatcher
from testkit import node, write_plan


def test_a_write_finished_before_the_call_is_always_seen(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A")])
    paths = find_root(tmp_path, None)
    watcher = PlanWatcher(paths)
    try:
        node_file = paths.nodes / "T-1.yaml"
        text = node_file.read_bytes()
        assert not watcher.changes(), "nothing written yet"
        for _ in range(50):  # same bytes, in place: only the event tells
            with open(node_file, "r+b") as fh:
                fh.write(text)
            changes = watcher.changes()
            assert changes.nodes == {"T-1"} and changes.plan_stale
        paths.cache.mkdir(exist_ok=True)
        (paths.cache / "nodes.marshal").write_bytes(b"x")  # derived files do not count
        assert not watcher.changes() and not watcher.lost
        fences = watcher.fence.parent
        assert root_free_of_fences(paths.dir) and paths.dir not in fences.parents  # outside the work tree
    finally:
        watcher.close()
    assert not any(p.suffix == ".fence" for p in fences.iterdir())


def root_free_of_fences(folder: Path) -> bool:
    return not any(p.suffix == ".fence" for p in folder.rglob("*"))


def test_a_replaced_plan_folder_loses_the_watch(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A")])
    paths = find_root(tmp_path, None)
    spare = tmp_path.parent / f"{tmp_path.name}-spare"
    shutil.copytree(paths.dir, spare)
    watcher = PlanWatcher(paths)
    try:
        shutil.rmtree(paths.dir)
        shutil.copytree(spare, paths.dir)
        watcher.changes()
        assert watcher.lost
    finally:
        watcher.close()
