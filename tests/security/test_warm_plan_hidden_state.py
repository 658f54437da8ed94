"""Files the validator reads that the watcher dropped (h22g, issue 22): a served `complete` must refuse
what its own run refuses.

- `.leafwise/.locks/import.json`, an import's write-ahead manifest: every command's validation reads it
  (an interrupted import, or a manifest nothing acts on, is an error that refuses `complete`), but the
  watch dropped all of `.locks/`. A manifest left after the loop server was warm: the served `complete`
  finished the task (exit 0), its own run refused (exit 4, "the plan has errors"). The other way too: a
  manifest removed (repair's last step) kept the served calls refusing.
- a doc a node links named like an atomic writer's temp (`docs/.lw-notes.md`), deleted after the server
  was warm: served exit 0, own run exit 4 ("doc docs/.lw-notes.md does not exist").

Two `git clone`s of one plan, the same steps on each, one served and one in its own process (the real
console script; tests/commands/test_loop_server.py's probe says which); the MCP server's
`validate_project` against `leafwise validate` too."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import time
from pathlib import Path

import anyio
import pytest
from testkit import node, write_plan
from testkit.mcp_stdio import mcp_session

_spec = importlib.util.spec_from_file_location(
    "loop_server_tests_for_hidden_state", Path(__file__).parents[1] / "commands" / "test_loop_server.py")
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)
runtime = base.runtime
call, serving = base.call, base.serving

_hostile = importlib.util.spec_from_file_location(
    "loop_server_hostile_for_hidden_state", Path(__file__).with_name("test_loop_server_hostile.py"))
hostile = importlib.util.module_from_spec(_hostile)
_hostile.loader.exec_module(hostile)

pytestmark = pytest.mark.slow

MANIFEST = ".leafwise/.locks/import.json"
TEMP_DOC = ".leafwise/docs/.lw-notes.md"


def source(tmp_path: Path) -> Path:
    src = write_plan(tmp_path / "src", [node("T-1", "Epic", release="R1"),
                                        node("T-2", "Bravo", parent="T-1", docs=["docs/.lw-notes.md"]),
                                        node("T-3", "Alpha", parent="T-1")])
    (src / TEMP_DOC).write_text("notes\n")
    return src


def add_manifest(root: Path) -> None:
    (root / ".leafwise/.locks").mkdir(exist_ok=True)
    (root / MANIFEST).write_text("junk\n")  # a manifest nothing acts on: an error of the plan


def remove_manifest(root: Path) -> None:
    (root / MANIFEST).unlink()


def remove_temp_named_doc(root: Path) -> None:
    (root / TEMP_DOC).unlink()


# (the change, whether each clone holds a manifest before it, the task completed after it)
CASES = [(add_manifest, False, "T-3"), (remove_manifest, True, "T-3"), (remove_temp_named_doc, False, "T-2")]


@pytest.mark.parametrize("change, manifest, task", CASES, ids=[c[0].__name__ for c in CASES])
def test_a_served_complete_refuses_what_its_own_run_refuses(tmp_path, runtime, change, manifest, task):
    served = hostile.cloned(source(tmp_path), tmp_path / "served")
    own = tmp_path / "own"
    subprocess.run(["git", "clone", "-q", str(served), str(own)], check=True)
    for root in (served, own):
        if manifest:  # .locks/ is local state: an import killed midway leaves it in each clone
            add_manifest(root)
    serving(served)
    for root, by_server in ((served, True), (own, False)):
        assert call(root, "start", task, "--agent", "a", served=by_server)[2] == 0
        if manifest:  # the warm plan's problems now hold the manifest's error
            assert call(root, "complete", task, "--summary", "s", "--agent", "a", served=by_server)[2] == 4
    time.sleep(1)  # the server has settled (derived the problems) after its last call
    for root in (served, own):
        change(root)
    a = call(served, "complete", task, "--summary", "did it", "--agent", "a")
    b = call(own, "complete", task, "--summary", "did it", "--agent", "a", served=False)
    assert (a[3], b[3]) == ("served", "ran")
    assert (a[2], base.same(a[0]), base.same(a[1])) == (b[2], base.same(b[0]), base.same(b[1]))


def test_the_mcp_servers_validate_sees_an_import_manifest(tmp_path):
    root = write_plan(tmp_path / "plan", [node("T-1", "Epic", release="R1"), node("T-2", "Bravo", parent="T-1")])

    async def go() -> tuple[dict, dict]:
        async with mcp_session(root) as session:
            first = (await session.call_tool("validate_project", {})).structured_content
            add_manifest(root)
            return first, (await session.call_tool("validate_project", {})).structured_content

    first, after = anyio.run(go)
    own = json.loads(call(root, "validate", "--json", served=False)[0])
    assert first["status"] == "ok" and first["result"]["valid"] is True
    assert after["status"] == own["status"] == "error"
    assert after["error"]["details"]["errors"] == own["error"]["details"]["errors"] == 1
