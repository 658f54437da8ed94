"""The node cache's overlay: after a few files changed (a start, a complete), the load writes only
what changed beside the base, and every cached load still equals a load with no cache at all.

The overlay is sealed over the base's seal: one written over another base, or planted, is never
read; a structural change (the index rebuilt) or too many changes write the base again."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leafwise.store import cache as cache_mod
from leafwise.store import load_plan
from leafwise.store.loader import LoadStats, cache_for
from leafwise.store.paths import PlanPaths
from testkit import node, write_plan


def _state(plan) -> dict:
    return {nid: (n.data, n.file, n.digest, n.children, n.depth, n.effective_release)
            for nid, n in plan.nodes.items()}


def _problems(plan) -> list:
    return sorted((p.code, p.node or "", p.file or "") for p in plan.problems)


def _same_as_uncached(paths: PlanPaths) -> None:
    cached = load_plan(paths)
    fresh = load_plan(paths, use_cache=False)
    assert _state(cached) == _state(fresh)
    assert _problems(cached) == _problems(fresh)


def _rewrite(root: Path, data: dict) -> None:
    path = root / ".leafwise" / "nodes" / f"{data['id']}.yaml"
    path.write_text("\n".join(f"{k}: {json.dumps(v)}" for k, v in data.items() if v not in (None, "")) + "\n")


def _files(paths: PlanPaths) -> tuple[Path, Path]:
    base = cache_for(paths).path
    return base, base.with_name(cache_mod.OVERLAY_NAME)


def _plan(root: Path, count: int = 6) -> PlanPaths:
    write_plan(root, [node("T-1", "epic", release="R1")] +
               [node(f"T-{i}", f"task {i}", parent="T-1") for i in range(2, count + 1)])
    return PlanPaths(root)


def test_a_status_change_writes_the_overlay_and_leaves_the_base(tmp_path: Path) -> None:
    paths = _plan(tmp_path)
    load_plan(paths)
    base, overlay = _files(paths)
    before = base.read_bytes()
    _rewrite(tmp_path, {**node("T-2", "task 2", "in-progress"), "parent": "T-1", "assignee": "a"})
    stats = LoadStats()
    plan = load_plan(paths, stats=stats)
    assert stats.parsed == 1 and plan.nodes["T-2"].status == "in-progress"
    assert base.read_bytes() == before and overlay.exists()
    assert overlay.stat().st_size < len(before) / 2
    again = LoadStats()
    load_plan(paths, stats=again)
    assert again.parsed == 0  # the overlay's entry is a hit now
    _same_as_uncached(paths)


def test_a_structural_change_writes_the_base_and_drops_the_overlay(tmp_path: Path) -> None:
    paths = _plan(tmp_path)
    load_plan(paths)
    base, overlay = _files(paths)
    _rewrite(tmp_path, {**node("T-2", "task 2", "done"), "parent": "T-1", "summary": "s"})
    load_plan(paths)
    assert overlay.exists()
    before = base.read_bytes()
    _rewrite(tmp_path, {**node("T-3", "task 3"), "parent": "T-2"})  # a new parent: the index is rebuilt
    load_plan(paths)
    assert base.read_bytes() != before and not overlay.exists()
    _same_as_uncached(paths)


def test_an_overlay_over_another_base_or_planted_is_not_read(tmp_path: Path) -> None:
    paths = _plan(tmp_path)
    load_plan(paths)
    base, overlay = _files(paths)
    _rewrite(tmp_path, {**node("T-2", "task 2", "in-progress"), "parent": "T-1"})
    load_plan(paths)
    kept = overlay.read_bytes()
    base.write_bytes(base.read_bytes())  # the same bytes: the same seal, the overlay still applies
    stats = LoadStats()
    load_plan(paths, stats=stats)
    assert stats.parsed == 0
    # another base (written again by a load that found everything changed) under the old overlay
    cache_for(paths).clear()
    load_plan(paths)
    overlay.write_bytes(kept)
    stats = LoadStats()
    plan = load_plan(paths, stats=stats)
    assert plan.nodes["T-2"].status == "in-progress"
    _same_as_uncached(paths)
    # planted bytes: a wrong seal, garbage, an empty file
    for planted in (kept[:-1] + bytes([kept[-1] ^ 1]), b"LWC1" + b"\0" * 40, b""):
        overlay.write_bytes(planted)
        _same_as_uncached(paths)


def test_an_overlay_forged_over_this_base_with_another_machine_key_is_not_read(tmp_path: Path) -> None:
    """Bytes laid out as this machine's overlay over the current base (the seal format of
    store/cache.py spelled out here), sealed with another key: never unmarshalled."""
    import hashlib
    import marshal

    paths = _plan(tmp_path)
    load_plan(paths)
    base, overlay = _files(paths)
    base_seal = base.read_bytes()[len(cache_mod.MAGIC):len(cache_mod.MAGIC) + cache_mod.MAC_BYTES]
    purpose = f"{cache_mod.cache_file(tmp_path, cache_mod.OVERLAY_NAME)[1]} over {base_seal.hex()}".encode()
    key_now = cache_mod.stat_key(os.stat(tmp_path / ".leafwise" / "nodes" / "T-2.yaml"))  # a hit if read
    forged = (key_now, {"id": "T-2", "title": "forged", "status": "done"}, "x" * 32, None)
    body = marshal.dumps((cache_mod.cache_version(), {"T-2.yaml": forged}))

    def sealed(key: bytes) -> bytes:
        mac = hashlib.blake2b(key=key, digest_size=cache_mod.MAC_BYTES)
        mac.update(len(purpose).to_bytes(4, "big") + purpose)
        mac.update(body)
        return cache_mod.MAGIC + mac.digest() + body

    for key in (os.urandom(32), b""):  # another machine's key; no key at all
        overlay.write_bytes(sealed(key))
        plan = load_plan(paths)
        assert plan.nodes["T-2"].title == "task 2"
        _same_as_uncached(paths)
    overlay.write_bytes(sealed(cache_mod.machine_key()))  # the control: this machine's seal is read
    assert load_plan(paths).nodes["T-2"].title == "forged"


def test_past_the_overlay_limit_the_base_is_written_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_mod, "OVERLAY_MAX", 2)
    paths = _plan(tmp_path)
    load_plan(paths)
    base, overlay = _files(paths)
    before = base.read_bytes()
    for i in (2, 3, 4):
        _rewrite(tmp_path, {**node(f"T-{i}", f"task {i}", "in-progress"), "parent": "T-1"})
    load_plan(paths)
    assert base.read_bytes() != before and not overlay.exists()
    _same_as_uncached(paths)


EDITS = st.sampled_from(["status", "summary", "parent", "title", "remove", "add", "broken"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(EDITS, st.integers(1, 9), st.integers(0, 9)), min_size=1, max_size=8))
def test_every_cached_load_after_any_edits_equals_an_uncached_one(tmp_path_factory, edits) -> None:
    root = tmp_path_factory.mktemp("plan")
    paths = _plan(root, 8)
    load_plan(paths)
    nodes_dir = root / ".leafwise" / "nodes"
    for kind, which, value in edits:
        nid = f"T-{which}"
        if kind == "remove":
            (nodes_dir / f"{nid}.yaml").unlink(missing_ok=True)
        elif kind == "broken":
            (nodes_dir / f"{nid}.yaml").write_text("id: [unclosed\n")
        else:
            data = {**node(nid, f"task {which}"), "parent": "T-1" if which > 1 else ""}
            if kind == "status":
                data["status"] = ["draft", "in-progress", "done", "cancelled"][value % 4]
            elif kind == "summary":
                data.update(status="done", summary=f"s{value}")
            elif kind == "parent":
                data["parent"] = f"T-{value % which}" if value % which else ""
            elif kind == "title":
                data["title"] = f"t{value}"
            _rewrite(root, data)
        _same_as_uncached(paths)  # after each edit: the cached load, then what it wrote, read back
        _same_as_uncached(paths)
