"""The person's changes: run a registry command for them, say what it did, and take it back (ctrl+z).

Every command runs in a worker thread through `bridge.run` (the registry and the runner, as the CLI
runs it) and its files are absorbed at once. What undo will run is decided by `model.undo`: this
only keeps the stack, asks for the plan, runs its steps one by one and says how it went.
"""

from __future__ import annotations

from typing import Any, Callable

from leafwise.canvas import bridge
from leafwise.canvas.bridge import Outcome, Request
from leafwise.canvas.model.undo import Action, UndoPlan, involved, plan_undo, record_of
from leafwise.store.watch import PlanChanges
from textual import work
from textual.signal import Signal


class PersonChanges:
    """The part of `CanvasApp` that runs and takes back the person's commands (a mixin: `self` is the app)."""

    def _init_changes(self) -> None:
        self.me = bridge.person(str(self.paths.repo))  # the person at the keyboard, the actor of every action
        self.undo_stack: list[Action] = []  # the changes made in this session, the latest last (ctrl+z)
        self._undoing = False
        self.undone: Signal[list[str]] = Signal(self, "undone")  # node ids an undo restored

    # --- running a command -------------------------------------------------------------

    def run_request(self, request: Request, on_done: Callable[[Outcome], object] | None = None) -> None:
        """Run a registry command for the person at the keyboard, in a worker thread."""
        node = self.state.nodes.get(request.node or "") if self.state is not None else None
        before = dict(node.data) if node is not None else {}  # what undo may need that the answer does not say
        self._run_request(request, on_done, before)

    @work(thread=True, group="commands")
    def _run_request(self, request: Request, on_done: Callable[[Outcome], object] | None,
                     before: dict[str, Any] | None = None) -> None:
        outcome = bridge.run(self.paths.repo, request, actor=self.me)
        self.call_from_thread(self._request_done, request, outcome, on_done, before)

    async def _request_done(self, request: Request, outcome: Outcome,
                            on_done: Callable[[Outcome], object] | None, before: dict[str, Any] | None = None
                            ) -> None:
        if outcome.exit_code:
            self.notify(bridge.error_text(outcome, self.paths.repo), title=f"{request.label}: refused", severity="error",
                        timeout=12)
        else:
            self._remember(request, outcome, before)
        # The watcher would see these writes too; reading them now makes the answer instant.
        await self.absorb(PlanChanges(nodes=bridge.touched_ids(outcome), journal=True, claims=True))
        if on_done is not None:
            on_done(outcome)

    def _remember(self, request: Request, outcome: Outcome, before: dict[str, Any] | None = None) -> None:
        """Say what the command did, and keep how to take it back (or say at once that it cannot be)."""
        said = outcome.text[0] if outcome.text else "done"
        action = record_of(request.name, request.args, outcome.envelope, request.label,
                           doc_before=request.doc_before, before=before)
        if isinstance(action, str):
            self.notify(f"{said}\nThis cannot be undone: {action}.", title=request.label, severity="warning",
                        timeout=10)
            return
        if action is not None:
            self.undo_stack.append(action)
            said += "\nctrl+z takes it back"
        self.notify(said, title=request.label, timeout=4)

    # --- taking it back ----------------------------------------------------------------

    def action_undo(self) -> None:
        """Take back the last change made in this session, through the commands that restore it."""
        if self._undoing:
            self.notify("Still taking back the previous change…", timeout=3)
            return
        if not self.undo_stack:
            self.notify("Nothing to undo: no change was made in this canvas session", timeout=3)
            return
        if self.state is None:
            return
        self._undoing = True
        self.call_later(self._undo, self.undo_stack.pop())

    async def _undo(self, action: Action) -> None:
        state = self.state
        if state is None:
            self._undoing = False
            return
        # The files as they are now, not as the watcher last reported them: an agent may have just written.
        await self.absorb(PlanChanges(nodes=involved(state.nodes, action), journal=True, claims=True))
        plan = plan_undo(state.nodes, action, self.me)
        if plan.refused or not plan.steps:
            self._undoing = False
        if plan.refused:
            more = " ctrl+z again takes back the change before it." if self.undo_stack else ""
            self.notify(f"Not undone: {plan.refused}.{more}", title=f"Undo “{action.label}”", severity="warning",
                        timeout=12)
            return
        if not plan.steps:
            self.notify(f"Nothing left to take back for “{action.label}”." + "".join(f"\n{c}" for c in plan.caveats),
                        title="Undo", timeout=6)
            return
        self._run_undo(action, plan)

    @work(thread=True, group="commands")
    def _run_undo(self, action: Action, plan: UndoPlan) -> None:
        outcomes: list[Outcome] = []
        for step in plan.steps:
            outcome = bridge.run(self.paths.repo, Request(step.command, step.args, f"Undo: {action.label}"),
                                 actor=self.me)
            outcomes.append(outcome)
            if outcome.exit_code:
                break
        self.call_from_thread(self._undo_done, action, plan, outcomes)

    async def _undo_done(self, action: Action, plan: UndoPlan, outcomes: list[Outcome]) -> None:
        self._undoing = False
        done = [step.says for step, outcome in zip(plan.steps, outcomes) if not outcome.exit_code]
        failed = outcomes[-1] if outcomes and outcomes[-1].exit_code else None
        if failed is None:
            lines = [f"Took back “{action.label}”:", *[f"  {line}" for line in done], *plan.caveats]
            self.notify("\n".join(lines), title="Undone", timeout=8)
        else:
            step = plan.steps[len(outcomes) - 1]
            lines = [f"Stopped at: {step.says}", bridge.error_text(failed, self.paths.repo)]
            lines += ["Taken back before it:", *[f"  {line}" for line in done]] if done else ["Nothing was changed."]
            self.notify("\n".join(lines), title=f"Undo “{action.label}”: refused", severity="error", timeout=15)
        touched: set[str] = set()
        for outcome in outcomes:
            touched |= bridge.touched_ids(outcome)
        await self.absorb(PlanChanges(nodes=touched, journal=True, claims=True))
        self.undone.publish(list(plan.touched))
