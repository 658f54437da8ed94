"""The canvas's own reads of files by the one reader: the person's settings file and a node's doc before
and after the person's editor. A link to /dev/zero, a FIFO, an oversized or a malformed file is that
file's problem, named with its path (the settings: the defaults, and why), never a hang or a crash.
The settings reads that would hang run in a subprocess with a deadline."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from leafwise.canvas.settings import Settings
from testkit import journal, node, write_plan
from testkit.canvas import canvas, ready, until

DEADLINE = 30
HOW = ["dev-zero", "fifo", "oversized", "not-json", "deep"]


def plant(path: Path, how: str) -> None:
    if how == "dev-zero":
        if not Path("/dev/zero").exists():
            pytest.skip("needs /dev/zero")
        os.symlink("/dev/zero", path)
    elif how == "fifo":
        os.mkfifo(path)
    elif how == "oversized":
        path.write_text('{"theme": "' + "x" * (5 * 1024 * 1024) + '"}')
    elif how == "not-json":
        path.write_text('{"theme": ')
    else:
        path.write_text("[" * 3000 + "]" * 3000)


READ = "import sys; from leafwise.canvas.settings import Settings; s = Settings.read(sys.argv[1]); " \
       "print(s.theme, s.hide_closed, s.attention); print(s.problem)"


@pytest.mark.parametrize("how", HOW)
def test_a_bad_settings_file_gives_the_defaults_and_names_itself(tmp_path, how):
    path = tmp_path / "settings.json"
    plant(path, how)
    proc = subprocess.run([sys.executable, "-c", READ, str(path)], capture_output=True, text=True,
                          timeout=DEADLINE)
    assert proc.returncode == 0, proc.stderr
    defaults, problem = proc.stdout.splitlines()
    assert defaults == "None False True"
    assert problem.startswith(f"{path}: ") and "defaults" in problem, problem


def test_a_good_settings_file_is_read_and_saved_without_its_problem(tmp_path):
    path = tmp_path / "settings.json"
    assert Settings.read(path) == Settings() and Settings.read(path).problem is None  # none yet: no problem
    path.write_text('{"theme": "leafwise-light", "hide_closed": true}')
    read = Settings.read(path)
    assert (read.theme, read.hide_closed, read.problem) == ("leafwise-light", True, None)
    path.write_text("[1]")
    assert "not a JSON object" in Settings.read(path).problem
    assert Settings(theme="t").write(path) and "problem" not in path.read_text()




async def open_doc(app, pilot, node_id: str, editor: str, monkeypatch) -> str:
    """`E` on `node_id` with `editor`; the doc notice it gives."""
    monkeypatch.setenv("EDITOR", editor)
    monkeypatch.delenv("VISUAL", raising=False)
    app.suspend = contextlib.nullcontext  # the headless test has no terminal to hand over
    app.screen.reveal(node_id)
    await pilot.pause()
    before = len(app.notices)
    await pilot.press("E")
    await until(pilot, lambda: any(n.title == f"Doc of {node_id}" for n in app.notices[before:]))
    await app.workers.wait_for_complete()
    return next(n.message for n in app.notices[before:] if n.title == f"Doc of {node_id}")


@pytest.mark.anyio
@pytest.mark.parametrize("how", ["dev-zero", "fifo", "oversized"])
async def test_a_doc_the_reader_refuses_is_named_and_never_overwritten(tmp_path, monkeypatch, how):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = write_plan(tmp_path / "repo", [node("T-9", "Nine", release="R1")])
    doc = root / ".leafwise" / "docs" / "T-9.md"
    plant(doc, how)
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        message = await open_doc(app, pilot, "T-9", "sh -c 'echo More. >> \"$0\"'", monkeypatch)
    assert "docs/T-9.md cannot be read" in message, message
    assert journal(root) == [] and (doc.is_symlink() or doc.is_fifo() or doc.stat().st_size > 1024 * 1024)


@pytest.mark.anyio
@pytest.mark.parametrize("editor", ["sh -c 'head -c 2000000 /dev/zero | tr \"\\0\" x >> \"$0\"'",
                                    "sh -c 'rm \"$0\"; ln -s /dev/zero \"$0\"'",
                                    "sh -c 'rm \"$0\"; mkfifo \"$0\"'"])
async def test_what_the_editor_leaves_is_read_within_the_doc_cap(tmp_path, monkeypatch, editor):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = write_plan(tmp_path / "repo", [node("T-9", "Nine", release="R1")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        message = await open_doc(app, pilot, "T-9", editor, monkeypatch)
    assert message.startswith("Not written: the edited doc cannot be read") and "docs/T-9.md is as it was" \
        in message, message
    assert journal(root) == [] and not (root / ".leafwise" / "docs" / "T-9.md").exists()
