"""Editing the plan from the keyboard: every action is a registry command, run as the person.

Add a child or a sibling, rename, describe, set priority, move to another
parent or release (with a picker), add or remove a dependency, open the node's
doc in $EDITOR. Every change is remembered by the app for ctrl+z (see
`canvas/model/undo.py`), from the core's own report of what it changed.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from leafwise.canvas.bridge import Outcome, Request
from leafwise.canvas.screens.dialogs import PickPrompt, TextPrompt
from leafwise.commands.domain.assignments import format_assignment
from leafwise.commands.text import one_line
from leafwise.store import CLOSED, Node, reader
from leafwise.store.git import outside_path
from textual.binding import Binding

if TYPE_CHECKING:
    from leafwise.canvas.app import CanvasApp

EDIT_BINDINGS = [
    Binding("c", "add_child", "Add child", show=False, id="edit.add_child", tooltip="Add a task under this one"),
    Binding("s", "add_sibling", "Add sibling", show=False, id="edit.add_sibling",
            tooltip="Add a task beside this one"),
    Binding("R", "rename", "Rename", show=False, id="edit.rename", tooltip="Change the title"),
    Binding("D", "describe", "Describe", show=False, id="edit.describe", tooltip="Write the description"),
    Binding("P", "priority", "Priority", show=False, id="edit.priority", tooltip="High, normal or low"),
    Binding("m", "move_parent", "Move", show=False, id="edit.move", tooltip="Move under another parent"),
    Binding("M", "move_release", "Release", show=False, id="edit.release", tooltip="Move to another release"),
    Binding("plus", "add_dependency", "Add dependency", show=False, id="edit.add_dep",
            tooltip="It waits on another node"),
    Binding("minus", "remove_dependency", "Remove dependency", show=False, id="edit.remove_dep",
            tooltip="It no longer waits on a node"),
    Binding("E", "open_doc", "Edit doc", show=False, id="edit.doc", tooltip="Open the node's doc in $EDITOR"),
]
EDIT_ACTIONS = ("add_child", "add_sibling", "rename", "describe", "priority", "move_parent", "move_release",
                "add_dependency", "remove_dependency", "open_doc")
PRIORITIES = ("high", "normal", "low")
NEAR_DUPLICATE = "near_duplicate"  # the error code of an add refused for a title near an open node's


class Editing:
    """Mixed into a Screen: `edit_target()` names the node the keys act on."""

    app: CanvasApp

    def edit_target(self) -> Node | None:
        raise NotImplementedError

    def edit_allowed(self, action: str) -> bool | None:
        if action not in EDIT_ACTIONS:
            return True
        return True if self.edit_target() is not None else None

    # --- helpers ----------------------------------------------------------------------

    def _edit(self, node: Node, fields: dict[str, Any], label: str) -> None:
        """Run `edit ID --set f=v…` (the app keeps the old values for undo, from the core's answer)."""
        sets = tuple(filter(None, (format_assignment(key, value) for key, value in fields.items())))
        self.app.run_request(Request("edit", {"node_id": node.id, "set": sets}, label, node.id))

    def _ask_text(self, title: str, prompt: str, value: str, then, *, required: bool = True) -> None:
        def done(text: str | None) -> None:
            if text is not None and (text or not required) and text != value:
                then(text)
        self.app.push_screen(TextPrompt(title, prompt, value=value, required=required), done)

    # --- the actions --------------------------------------------------------------------

    def _add(self, parent: str | None, release: str | None, where: str) -> None:
        self._ask_text(f"Add {where}", "The new task's title", "",
                       lambda title: self._run_add(parent, release, where, title))

    def _run_add(self, parent: str | None, release: str | None, where: str, title: str, force: bool = False) -> None:
        """`add` the title; refused as a near-duplicate, ask again with the typed title kept (`_add_anyway`)."""
        args: dict[str, Any] = {"title": title}
        if parent:
            args["parent"] = parent
        elif release:
            args["release"] = release
        if force:
            args["force"] = True

        def added(outcome: Outcome) -> None:
            result = outcome.envelope.get("result")
            new_id = result.get("id") if isinstance(result, dict) else None
            if not outcome.exit_code and new_id:
                self.app.open_node(new_id)
            error = outcome.envelope.get("error") or {}
            if outcome.exit_code and error.get("code") == NEAR_DUPLICATE:
                self._add_anyway(parent, release, where, title, error.get("details") or {})

        self.app.run_request(Request("add", args, f"Add {where}", parent), added)

    def _add_anyway(self, parent: str | None, release: str | None, where: str, title: str,
                    details: dict[str, Any]) -> None:
        """The person's override of the near-duplicate check: Enter on the title as typed adds it anyway
        (`add --force`, journaled as them); a changed title is checked again; Esc drops it."""
        same = f"{details.get('duplicate') or 'An open node'} “{one_line(details.get('title') or '', 120)}”"
        why = f" ({one_line(details['why'], 120)})" if details.get("why") else ""

        def then(text: str | None) -> None:
            if text:
                self._run_add(parent, release, where, text, force=text == title)

        self.app.push_screen(TextPrompt(
            f"Add {where}: a near-duplicate?",
            f"{same} names the same work{why}.\nEnter as it is: add anyway (your override, journaled as you). "
            "Or change the title to say what sets it apart (checked again).", value=title,
            hint="Enter to add anyway · Esc to drop it"), then)

    def action_add_child(self) -> None:
        node = self.edit_target()
        if node is not None:
            self._add(node.id, None, f"a task under {node.id}")

    def action_add_sibling(self) -> None:
        node = self.edit_target()
        if node is not None:
            self._add(node.parent, node.effective_release, f"a task beside {node.id}")

    def action_rename(self) -> None:
        node = self.edit_target()
        if node is not None:
            self._ask_text(f"Rename {node.id}", "The new title", node.title,
                           lambda title: self._edit(node, {"title": title}, f"Rename {node.id}"))

    def action_describe(self) -> None:
        node = self.edit_target()
        if node is not None:
            self._ask_text(f"Describe {node.id}", f"{node.title}\nWhat is it, in a sentence or two?",
                           str(node.data.get("description") or ""),
                           lambda text: self._edit(node, {"description": text or None}, f"Describe {node.id}"),
                           required=False)

    def action_priority(self) -> None:
        node = self.edit_target()
        if node is None:
            return
        current = str(node.data.get("priority") or "normal")

        def chosen(value: str | None) -> None:
            if value and value != current:
                self._edit(node, {"priority": None if value == "normal" else value}, f"Priority of {node.id}")

        self.app.push_screen(PickPrompt(f"Priority of {node.id} (now {current})",
                                        [(p, f"{p}{'  (now)' if p == current else ''}") for p in PRIORITIES],
                                        narrow="↑↓ to pick, or type to narrow: " + ", ".join(PRIORITIES)),
                             chosen)

    def action_move_parent(self) -> None:
        node = self.edit_target()
        state = self.app.state
        if node is None or state is None:
            return
        below = {d.id for d in state.plan.descendants(node.id)} | {node.id}
        items: list[tuple[str, str]] = [("", "(top level: no parent)")]
        items += [(n.id, f"{n.id} {one_line(n.title, 100)}") for n in state.nodes.values()
                  if n.id not in below and n.status not in CLOSED]

        def chosen(parent: str | None) -> None:
            if parent is not None and parent != (node.parent or ""):
                self._edit(node, {"parent": parent or None}, f"Move {node.id}")

        self.app.push_screen(PickPrompt(f"Move {node.id} under…", items, prompt=node.title), chosen)

    def action_move_release(self) -> None:
        node = self.edit_target()
        state = self.app.state
        if node is None or state is None:
            return
        items = [("", "(no release of its own: inherit the parent's)")]
        items += [(r.id, f"{r.id} {one_line(r.title, 80)}") for r in state.plan.project.releases]

        def chosen(release: str | None) -> None:
            if release is not None and release != (node.release or ""):
                self._edit(node, {"release": release or None}, f"Release of {node.id}")

        self.app.push_screen(PickPrompt(f"Move {node.id} to release…", items, prompt=node.title), chosen)

    def action_add_dependency(self) -> None:
        node = self.edit_target()
        state = self.app.state
        if node is None or state is None:
            return
        # Not itself, nor what it already waits on, nor its ancestors or descendants: a parent is done only
        # when its children are, so a child waiting on its ancestor (or a parent on its child) never moves.
        have = (set(node.depends_on) | {node.id} | {a.id for a in state.plan.ancestors(node.id)}
                | {d.id for d in state.plan.descendants(node.id)})
        items = [(n.id, f"{n.id} {one_line(n.title, 100)}") for n in state.nodes.values()
                 if n.id not in have and n.status not in CLOSED]

        def chosen(dep: str | None) -> None:
            if dep:
                self._edit(node, {"depends_on": [*node.depends_on, dep]}, f"{node.id} waits on {dep}")

        self.app.push_screen(PickPrompt(f"{node.id} waits on…", items, prompt=node.title), chosen)

    def action_remove_dependency(self) -> None:
        node = self.edit_target()
        state = self.app.state
        if node is None or state is None:
            return
        if not node.depends_on:
            self.app.notify(f"{node.id} depends on nothing", timeout=3)
            return
        items = [(d, f"{d} {one_line(state.nodes[d].title, 100) if d in state.nodes else '(missing)'}")
                 for d in node.depends_on]

        def chosen(dep: str | None) -> None:
            if dep:
                self._edit(node, {"depends_on": [d for d in node.depends_on if d != dep] or None},
                           f"{node.id} no longer waits on {dep}")

        self.app.push_screen(PickPrompt(f"{node.id} no longer waits on…", items, prompt=node.title), chosen)

    def action_open_doc(self) -> None:
        """Suspend the canvas, edit the node's doc in $EDITOR, and save it through `write-doc`."""
        node = self.edit_target()
        state = self.app.state
        if node is None or state is None:
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        rel = node.docs[0] if node.docs else f"docs/{node.id}.md"
        try:
            path = state.plan.paths.inside(rel)
            before = _read_doc(path)
        except (OSError, ValueError) as exc:  # reader.Refused too: a link, a FIFO, over the doc cap
            self.app.notify(f"{node.id}'s doc {rel} cannot be read: {exc}", title=f"Doc of {node.id}",
                            severity="error")
            return
        start = before or f"# {one_line(node.title, 200)}\n\n"  # a new doc starts from its title
        with tempfile.TemporaryDirectory(prefix="leafwise-doc-") as folder:
            scratch = Path(folder) / f"{node.id}.md"
            scratch.write_text(start)
            try:
                words = shlex.split(editor)
                # by name, from PATH without the clone's folders (`git.outside_path`): a committed
                # `node_modules/.bin/vi` must not be what opens
                program = words[0] if os.path.isabs(words[0]) else shutil.which(words[0], path=outside_path())
                if program is None:
                    raise FileNotFoundError(f"{words[0]} is in no folder of PATH outside the repository")
                with self.app.suspend():
                    subprocess.run([program, *words[1:], str(scratch)], check=False)
            except Exception as exc:  # noqa: BLE001 - no terminal to hand over (a test, the web), no editor
                self.app.notify(f"Could not open {editor}: {exc}", severity="error")
                return
            try:
                after = reader.read_text(scratch, reader.DOC)
            except (OSError, ValueError) as exc:  # over the doc cap, or the editor left no regular file
                self.app.notify(f"Not written: the edited doc cannot be read ({exc}); {rel} is as it was",
                                title=f"Doc of {node.id}", severity="error")
                return
        if after == start:  # discarded (`:q!`, an editor that fails), or saved as it was: nothing is written
            self.app.notify(f"No changes: {node.id}'s doc " + ("was not created" if not before else "is as it was"),
                            title=f"Doc of {node.id}", timeout=4)
            return
        if not after.strip():
            self.app.notify(f"Not written: the doc was left empty; {node.id}'s doc "
                            + ("was not created" if not before else "is as it was"),
                            title=f"Doc of {node.id}", severity="warning", timeout=6)
            return
        self.app.run_request(Request("write-doc", {"node_id": node.id, "content": after},
                                     f"Doc of {node.id}", node.id, doc_before=before))


def _read_doc(path: Path) -> str:
    """A doc's text by the one reader ("" when it does not exist yet)."""
    try:
        return reader.read_text(path, reader.DOC)
    except FileNotFoundError:
        return ""
