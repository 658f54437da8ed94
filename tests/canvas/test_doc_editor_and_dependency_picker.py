"""`E` writes a doc only when the editor changed it; `+` offers only nodes the task may wait on.

Real app (Pilot), real plan files in tmp, a real editor process ($EDITOR). Only the terminal handover
(`App.suspend`, which a headless test has no terminal for) is replaced by a plain context.
"""

from __future__ import annotations

import contextlib

import pytest
from leafwise.canvas.screens.dialogs import PickPrompt
from testkit import journal, node, write_plan
from testkit.canvas import canvas, ready, until
from textual.widgets import OptionList

pytestmark = pytest.mark.anyio


def plan(tmp_path):
    return write_plan(tmp_path / "repo", [
        node("T-1", "Epic", "in-progress", release="R1"),
        node("T-8", "Eight", parent="T-1", depends_on=["T-4"]),
        node("T-10", "Under eight", parent="T-8"),
        node("T-11", "Under ten", parent="T-10"),
        node("T-4", "Four", release="R1"),
        node("T-5", "Five", release="R1"),
        node("T-6", "Six", parent="T-1"),
        node("T-9", "Nine", release="R1"),
    ])


async def edit_doc(app, pilot, node_id: str, editor: str, monkeypatch) -> None:
    monkeypatch.setenv("EDITOR", editor)
    monkeypatch.delenv("VISUAL", raising=False)
    app.suspend = contextlib.nullcontext  # the headless test has no terminal to hand over
    app.screen.reveal(node_id)
    await pilot.pause()
    before = len(app.notices)
    await pilot.press("E")
    await until(pilot, lambda: any(n.title == f"Doc of {node_id}" for n in app.notices[before:]))
    await app.workers.wait_for_complete()


async def test_a_discarded_doc_is_neither_written_nor_linked(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = plan(tmp_path)
    doc = root / ".leafwise" / "docs" / "T-9.md"
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await edit_doc(app, pilot, "T-9", "true", monkeypatch)  # the editor leaves the template as it was
        assert not doc.exists()
        assert "docs" not in (root / ".leafwise" / "nodes" / "T-9.yaml").read_text()
        assert journal(root) == []
        assert app.notices[-1].message.startswith("No changes")
        assert "cannot be undone" not in app.notices[-1].message

        await edit_doc(app, pilot, "T-9", "sh -c 'echo More. >> \"$0\"'", monkeypatch)  # a real change
        await until(pilot, lambda: doc.exists())
        assert doc.read_text() == "# Nine\n\nMore.\n"

        await edit_doc(app, pilot, "T-9", "true", monkeypatch)  # an existing doc, unchanged
        assert doc.read_text() == "# Nine\n\nMore.\n"
        assert len(journal(root)) == 1  # the one real change
        assert app.notices[-1].message.startswith("No changes")


async def test_the_dependency_picker_offers_no_ancestor_descendant_itself_or_existing_dependency(
        tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = plan(tmp_path)
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        app.screen.reveal("T-8")
        await pilot.pause()
        await pilot.press("plus")
        await until(pilot, lambda: isinstance(app.screen, PickPrompt))
        await pilot.pause()
        listing = app.screen.query_one("#pick-list", OptionList)
        offered = {str(listing.get_option_at_index(i).prompt).split(" ", 1)[0] for i in range(listing.option_count)}
        assert offered == {"T-5", "T-6", "T-9"}  # not T-8, T-1 (parent), T-10/T-11 (below), T-4 (already)


async def test_the_editor_named_by_name_is_never_the_clones_own(tmp_path, monkeypatch):
    """`$EDITOR` by name is found on PATH without the repository's folders (`git.outside_path`): a committed
    executable `node_modules/.bin/vi` (JavaScript projects and direnv put that folder on PATH) would have
    been what the canvas opened (session 19, b19s)."""
    import os
    import subprocess

    root = plan(tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    planted = root / "node_modules" / ".bin"
    planted.mkdir(parents=True)
    mark = tmp_path / "ran"
    (planted / "vi").write_text(f"#!/bin/sh\ntouch {mark}\n")
    (planted / "vi").chmod(0o755)
    honest = tmp_path / "bin"
    honest.mkdir()
    (honest / "vi").write_text('#!/bin/sh\necho "More." >> "$1"\n')
    (honest / "vi").chmod(0o755)
    monkeypatch.setenv("PATH", f"{planted}{os.pathsep}{honest}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(root)
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await edit_doc(app, pilot, "T-9", "vi", monkeypatch)
        doc = root / ".leafwise" / "docs" / "T-9.md"
        await until(pilot, lambda: doc.exists())
        assert not mark.exists(), "the clone's vi ran"
        assert doc.read_text() == "# Nine\n\nMore.\n"
