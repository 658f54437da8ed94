"""Actions a person takes on one task, from any view: each one is a registry command.

Unblock (with an optional note for the agent), edit the blocked reason, answer a
decision (by `a` or the option's number), block, cancel with a reason, reassign,
comment. A screen mixes this in and says which node is the target; the app runs
the command in a worker and reports errors with their `Fix:`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from leafwise.canvas.bridge import Request
from leafwise.canvas.look import plan_text
from leafwise.canvas.screens.dialogs import ChoicePrompt, ConfirmPrompt, TextPrompt, whole
from leafwise.commands.core.lifecycle import transition
from leafwise.commands.core.readiness import holder
from leafwise.commands.text import one_line
from leafwise.store import CLOSED, Node, Status
from leafwise.store.model import open_decision
from leafwise.store.node_files import read_node_file
from leafwise.store.schema import decision_options
from textual.binding import Binding
from textual.content import Content

if TYPE_CHECKING:
    from leafwise.canvas.app import CanvasApp

TRIAGE_ACTIONS = ("unblock", "edit_reason", "answer", "block_task", "cancel_task", "reassign", "comment")
AGENT_NOTE = "a note for the agent (optional)"

TRIAGE_BINDINGS = [
    Binding("u", "unblock", "Unblock", id="task.unblock", tooltip="Restore the status it had before"),
    Binding("e", "edit_reason", "Edit reason", id="task.edit_reason", tooltip="Rewrite why it is blocked"),
    Binding("a", "answer", "Answer", id="task.answer", tooltip="Answer the open decision by option"),
    Binding("x", "cancel_task", "Cancel…", id="task.cancel",
            tooltip="Cancel the task (and its open children) with a reason"),
    Binding("w", "reassign", "Reassign", id="task.reassign", tooltip="Give the task to another agent or person"),
    Binding("B", "block_task", "Block…", id="task.block", show=False, tooltip="Block the task with a reason"),
    Binding("C", "comment", "Comment…", id="task.comment", show=False,
            tooltip="Leave a word on the node: shown with it and carried to its agent until it is done"),
]


def held_by_other(app: CanvasApp, node: Node) -> str | None:
    """Who else holds the node now (a live lease, or an in-progress assignment), if not the person."""
    state = app.state
    held = holder(node, state.claims) if state is not None else None
    return held if held != app.me else None


def unblock_prompt(node: Node) -> ConfirmPrompt:
    """Confirm an unblock, with an optional note for the agent (answers the note, "" for none; None: Esc)."""
    lines = [plan_text(one_line(node.title, 300), "bold"),
             plan_text(f"Blocked: {one_line(node.blocked_reason or 'no reason given', 300)}", "$text-muted"),
             Content(""), Content.styled("Unblocking restores the status it had before the block; the note "
                                         "rides along to the agent that takes it.", "$text-muted")]
    return ConfirmPrompt(f"Unblock {node.id}?", lines, note_placeholder=AGENT_NOTE, confirm="Enter to unblock")


def unblock_request(node: Node, note: str) -> Request:
    """`unblock ID [--note TEXT]`: the note is the command's own, carried to the agent that takes the task."""
    args: dict[str, object] = {"node_id": node.id}
    if note:
        args["note"] = note
    return Request("unblock", args, f"Unblock {node.id}", node.id)


class Triage:
    """Mixed into a Screen: `triage_target()` names the node the keys act on."""

    app: CanvasApp

    def triage_target(self) -> Node | None:
        raise NotImplementedError

    def triage_allowed(self, action: str) -> bool | None:
        """For check_action: None greys a key out when it does not apply to the target."""
        if action not in TRIAGE_ACTIONS:
            return True
        node = self.triage_target()
        if node is None:
            return None
        blocked = node.status == Status.BLOCKED
        allowed = {
            "unblock": transition("unblock", node.status) is not None,
            "edit_reason": blocked,
            "answer": node.open_decision is not None,
            "block_task": transition("block", node.status) is not None and not blocked,  # blocked: edit its reason
            "cancel_task": transition("cancel", node.status) is not None,
            "reassign": node.status not in CLOSED,
            "comment": True,
        }[action]
        return True if allowed else None

    def action_unblock(self) -> None:
        node = self.triage_target()
        if node is None:
            return
        if node.open_decision is not None:
            # Unblocking would leave the question unanswered and the agent without its answer.
            self.app.notify(f"{node.id} waits for a decision: press a (or the option's number) to answer it; "
                            "answering unblocks it.", title="Not unblocked", severity="warning", timeout=8)
            return
        self.app.push_screen(unblock_prompt(node), lambda note: self._unblock(node, note))

    def _unblock(self, node: Node, note: str | None) -> None:
        if note is not None:
            self.app.run_request(unblock_request(node, note))

    def _with_reason(self, node: Node, command: str, label: str, prompt: TextPrompt,
                     unchanged: str | None = None, force: bool = False) -> None:
        """Ask for a reason, then run `command` on the node with it (nothing if empty or unchanged)."""
        def done(reason: str | None) -> None:
            if reason and reason != unchanged:
                args: dict[str, object] = {"node_id": node.id, "reason": reason}
                if force:
                    args["force"] = True
                self.app.run_request(Request(command, args, label, node.id))

        self.app.push_screen(prompt, done)

    def action_edit_reason(self) -> None:
        node = self.triage_target()
        if node is not None:
            self._with_reason(node, "block", f"New reason for {node.id}",
                              TextPrompt(f"Blocked reason of {node.id}", node.title, value=node.blocked_reason or ""),
                              unchanged=node.blocked_reason)

    def action_block_task(self) -> None:
        node = self.triage_target()
        if node is None:
            return
        holder = held_by_other(self.app, node)
        taking = (f"\nHeld by {holder}: blocking it ends {holder}'s hold (journaled as you)." if holder else "")
        self._with_reason(node, "block", f"Block {node.id}",
                          TextPrompt(f"Block {node.id}", f"{node.title}{taking}\nWhat is it waiting for?",
                                     placeholder="e.g. waiting for the staging keys from ops"),
                          force=bool(holder))

    def action_answer(self) -> None:
        node = self.triage_target()
        if node is None or node.open_decision is None:
            return
        decision = node.data["decision"]

        def done(option: int | None) -> None:
            if option:
                self.answer(node, option)

        self.app.push_screen(ChoicePrompt(f"Decision on {node.id} · {node.title}", str(decision["question"]),
                                          list(decision_options(decision) or [])), done)

    def answer(self, node: Node, option: int) -> None:
        """Show the chosen option and ask to confirm, with an optional note for the agent."""
        decision = node.data.get("decision") or {}
        options = list(decision_options(decision) or [])
        if not 1 <= option <= len(options):
            return
        # the option first: what the person confirms is never below the question's lines
        lines = [Content.assemble((f" {option} ", "reverse $status-decision"), " ",
                                  whole(options[option - 1])), Content(""),
                 plan_text(one_line(decision.get("question"), 300), "bold"), Content(""),
                 Content.styled("Answering records it and unblocks the task for its agent.", "$text-muted")]

        def confirmed(note: str | None) -> None:
            if note is None:
                return
            if not self.decision_unchanged(node, decision):
                self.app.notify(f"{node.id}'s decision changed since it was shown (a pull, an agent asking "
                                "again): read it again, then answer", title="Not answered", severity="warning",
                                timeout=8)
                return
            # the text the person confirmed: decide records nothing if the file says otherwise when it writes
            args: dict[str, object] = {"node_id": node.id, "option": option, "expect": options[option - 1]}
            if note:
                args["note"] = note
            self.app.run_request(Request("decide", args, f"Answer {option} on {node.id}", node.id))

        self.app.push_screen(ConfirmPrompt(f"Answer {node.id} with option {option}?", lines,
                                           note_placeholder=AGENT_NOTE,
                                           confirm="Enter to answer"), confirmed)

    def decision_unchanged(self, node: Node, shown: dict) -> bool:
        """Whether the node file still asks what the person was shown: `decide` records the option of
        the file as it is then, so a question or options rewritten while the dialog was open (a pull, the
        asking agent) would record a choice the person never saw."""
        now = open_decision(read_node_file(self.app.paths.nodes / f"{node.id}.yaml").data or {})
        return now is not None and now.get("question") == shown.get("question") and \
            decision_options(now) == decision_options(shown)

    def action_answer_option(self, number: int) -> None:
        """A digit: answer the target's open decision with that option (confirmed next, with a note)."""
        node = self.triage_target()
        if node is None:
            return
        if node.open_decision is None:  # a number key that does nothing would leave the person guessing
            hint = "u unblocks it" if node.status == Status.BLOCKED else "b lists the decisions waiting for you"
            self.app.notify(f"{node.id} has no open decision to answer; {hint}", severity="warning", timeout=4)
            return
        options = decision_options(node.data["decision"]) or []
        if 1 <= number <= len(options):
            self.answer(node, number)
        else:
            self.app.notify(f"{node.id}'s decision has {len(options)} options", severity="warning")

    def action_comment(self) -> None:
        """Ask for a comment and leave it on the node (`comment`): the agent reads it with the task."""
        node = self.triage_target()
        if node is None:
            return
        carried = ("It is shown with the node and carried to its agent until the node is done."
                   if node.status not in CLOSED else f"{node.id} is {node.status}: the comment is kept for the record.")

        def done(text: str | None) -> None:
            if text:
                self.app.run_request(Request("comment", {"node_id": node.id, "text": text},
                                             f"Comment on {node.id}", node.id))

        self.app.push_screen(TextPrompt(f"Comment on {node.id}", f"{node.title}\n{carried}",
                                        placeholder="e.g. use the sandbox keys, not production"), done)

    def action_cancel_task(self) -> None:
        node = self.triage_target()
        if node is not None:
            kids = " and its open children" if node.children else ""
            self._with_reason(node, "cancel", f"Cancel {node.id}",
                              TextPrompt(f"Cancel {node.id}{kids}?", f"{node.title}\nWhy is the work dropped?",
                                         placeholder="e.g. out of scope for the MVP"))

    def action_reassign(self) -> None:
        node = self.triage_target()
        if node is None:
            return

        def done(who: str | None) -> None:
            if who is not None and who != (node.assignee or ""):
                value = who if who else "null"
                self.app.run_request(Request("edit", {"node_id": node.id, "set": (f"assignee={value}",)},
                                             f"Reassign {node.id}", node.id))

        self.app.push_screen(TextPrompt(f"Reassign {node.id}", f"{node.title}\nWho takes it? (empty: nobody)",
                                        value=node.assignee or "", required=False), done)
