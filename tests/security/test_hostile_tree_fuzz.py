"""The hostile-tree fuzzer: hypothesis generates cloned repositories with links to devices and
outside files, FIFOs, huge and deeply nested files, a bare repository's files in plan folders,
planted caches, hostile names and values (tests/testkit/hostile.py), and every read-only command of
the registry runs on each as a real CLI process, then the MCP server and the canvas.

Whatever the tree: no marker file appears (nothing ran), no answer takes 5 s or 300 MB, no command
answers an internal error, and the canary secret (an environment variable and an outside file that
links point at) reaches no output and no file. `LW_FUZZ_EXAMPLES` sets the examples per test (a
bounded run here; `bench/hostile_fuzz.py` is the long run).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from testkit import hostile

EXAMPLES = int(os.environ.get("LW_FUZZ_EXAMPLES", "6"))
# No shrinking: one example costs seconds of real processes, and the failing trees are printed whole.
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None, phases=[Phase.explicit, Phase.generate],
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

def known_examples(test):
    """The issue's reproductions (`hostile.KNOWN`) before the generated trees."""
    for planted in hostile.KNOWN:
        test = example(planted=planted)(test)
    return test


command_lines = hostile.command_lines


def test_the_command_list_comes_from_the_registry():
    names = {" ".join(line) for line in command_lines()}
    assert {"next", "validate", "doctor", "diagnose", "list", "tree", "context", "progress"} <= names


def check_answer(label: str, code: int, out: str, err: str, seconds: float, rss_kib: int, as_json: bool) -> None:
    assert code != -9 and seconds < hostile.SECONDS, f"{label} took {seconds:.1f} s of CPU"
    assert rss_kib < hostile.PEAK_MIB * 1024, f"{label} peaked at {rss_kib // 1024} MB"
    hostile.no_canary(label, out, err)
    assert "Traceback" not in err and "internal_error" not in err, f"{label}: {err[-800:]}"
    if as_json:
        envelope = hostile.strict_json(label, out)
        assert (envelope.get("error") or {}).get("code") != "internal_error", (label, envelope.get("error"))
    else:
        hostile.check_text(label, out, err)


def run_everything(base: Path, planted: list[hostile.Plant]) -> None:
    root, marks = hostile.build(base, planted)
    env = hostile.environment(base)
    for line in command_lines():
        for as_json in (False, True) if line[0] in ("next", "validate", "show", "start") else (False,):
            args = [*line, "--json"] if as_json else line
            label = f"{' '.join(args)} on {[str(p) for p in planted]}"
            check_answer(label, *hostile.run_measured(args, root, env), as_json)
            hostile.nothing_ran(marks)
    hostile.files_hold_no_canary(root, base / "cache", base / "config")


@pytest.mark.slow
@FUZZ
@given(planted=hostile.plants())
@known_examples
def test_read_only_commands_on_generated_hostile_trees(planted):
    with tempfile.TemporaryDirectory(prefix="lw-fuzz-") as tmp:
        run_everything(Path(tmp), planted)


@contextmanager
def person_folders(env: dict[str, str]) -> Iterator[None]:
    """This process (the in-process MCP server, the canvas) with the run's canary and the person's folders."""
    saved = {k: os.environ.get(k) for k in (hostile.CANARY_ENV, "LEAFWISE_CONFIG_DIR", "LEAFWISE_CACHE_DIR")}
    os.environ.update({k: env[k] for k in saved})
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


MCP_CALLS = [("get_next_task", {}), ("validate_project", {}), ("get_project_context", {}), ("get_progress", {}),
             ("get_node", {"node_id": "T-2"}), ("get_doc", {"node_id": "T-2"}), ("reconcile", {}),
             ("trust_commands", {}), ("cycle_verify", {"name": "evil"}), ("doctor", {}), ("diagnose", {})]


def mcp_round(root: Path, env: dict[str, str]) -> list[tuple[str, dict, dict | None, str]]:
    from leafwise.commands.surfaces.mcp_server import build_server
    from mcp import Client

    async def go():
        seen = []
        async with Client(build_server(cwd=root)) as client:
            for tool, arguments in MCP_CALLS:
                with anyio.fail_after(hostile.HANG_SECONDS):
                    result = await client.call_tool(tool, arguments)
                text = " ".join(getattr(item, "text", "") for item in result.content)
                seen.append((tool, arguments, result.structured_content, text))
            resources = await client.list_resources()
            for resource in resources.resources[:20]:
                with anyio.fail_after(hostile.HANG_SECONDS):
                    read = await client.read_resource(resource.uri)
                seen.append(("resource", {"uri": str(resource.uri)}, None,
                             " ".join(getattr(c, "text", "") or "" for c in read.contents)))
        return seen

    with person_folders(env):
        return anyio.run(go)


@pytest.mark.slow
@settings(FUZZ, max_examples=max(2, EXAMPLES // 2))
@given(planted=hostile.plants())
@known_examples
def test_the_mcp_server_on_generated_hostile_trees(planted):
    with tempfile.TemporaryDirectory(prefix="lw-fuzz-") as tmp:
        base = Path(tmp)
        root, marks = hostile.build(base, planted)
        for tool, arguments, content, text in mcp_round(root, hostile.environment(base)):
            label = f"{tool} {arguments} on {[str(p) for p in planted]}"
            hostile.no_canary(label, text, json.dumps(content or {}))
            if tool != "resource":
                assert content is not None and content.get("schema") == "leafwise.v1.result", label
                assert (content.get("error") or {}).get("code") != "internal_error", (label, content.get("error"))
        hostile.nothing_ran(marks)
        hostile.files_hold_no_canary(root, base / "cache", base / "config")


@pytest.mark.slow
@settings(FUZZ, max_examples=max(2, EXAMPLES // 3))
@given(planted=hostile.plants())
@known_examples
def test_the_canvas_on_generated_hostile_trees(planted):
    from leafwise.canvas.screens.blocked import BlockedScreen
    from leafwise.canvas.screens.progress import ProgressScreen
    from testkit.canvas import canvas, idle, ready, tree, until

    async def drive(root: Path, base: Path) -> None:
        from leafwise.store.paths import PlanUnsafe

        try:
            app = canvas(root, base)
        except PlanUnsafe as exc:  # the CLI's own refusal: a planted link among the plan's own files
            assert exc.rel in str(exc)
            return
        async with app.run_test(size=(120, 36)) as pilot:
            await ready(app, pilot)
            for key in tree(app).visible_keys()[:12]:
                tree(app).move_cursor_to(key)
                await pilot.pause()
            for view, screen_type in (("b", BlockedScreen), ("p", ProgressScreen)):
                await pilot.press(view)
                await until(pilot, lambda: not app.is_running or isinstance(app.screen, screen_type),
                            timeout=hostile.HANG_SECONDS)
                await idle(pilot)
                assert app.is_running, f"the canvas exited on view {view} with {planted}"
                await pilot.press("escape")
                await pilot.pause()
            assert app.is_running
            hostile.no_canary(f"canvas on {planted}", app.export_screenshot())

    with tempfile.TemporaryDirectory(prefix="lw-fuzz-") as tmp:
        base = Path(tmp)
        root, marks = hostile.build(base, planted)
        env = hostile.environment(base)
        with person_folders(env):
            anyio.run(drive, root, base)
        hostile.nothing_ran(marks)
        hostile.files_hold_no_canary(root, base / "cache", base / "config")
