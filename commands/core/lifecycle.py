"""The lifecycle: which command moves a node from which status to which, who may run it, and
the command that takes the move back.

The one home of the transition rules. The agent loop (`start`, `complete`, `block`, `unblock`,
`cancel`), `ask`/`decide`, `edit --set status=…`, the canvas's board moves and its undo all read
this table, so a move allowed in one place is allowed in every other.

A command run on a node already at its target changes nothing (every lifecycle command is
idempotent); `transition` answers for a real move only.
"""

from __future__ import annotations

from dataclasses import dataclass

from leafwise.store import OPEN, Status

DRAFT, IN_PROGRESS, BLOCKED, DONE, CANCELLED = (Status.DRAFT, Status.IN_PROGRESS, Status.BLOCKED, Status.DONE,
                                                Status.CANCELLED)
RESTORED = frozenset({DRAFT, IN_PROGRESS})  # what unblocking may give back (which one: `unblocked_status`)


@dataclass(frozen=True, slots=True)
class Transition:
    command: str  # "start", "complete", "block", "unblock", "cancel", "ask", "decide", "edit status=draft" …
    sources: frozenset[Status]  # statuses it may leave
    target: Status | None  # None: where the block ends, by `unblocked_status` (draft or in progress)
    who: str  # "agent" (it names the agent), "person" (it acts as the person), "any"
    inverse: str | None  # the command undo runs to take it back (None: nothing takes it back)


# In order of preference: `board_command` takes the first row that makes a board move.
TRANSITIONS: tuple[Transition, ...] = (
    # an agent claims a task (a lease); undo gives the lease up and the task back to draft
    Transition("start", frozenset({DRAFT, IN_PROGRESS}), IN_PROGRESS, "agent", "unclaim"),
    # blocked work may be finished (the block ends with it); a cancelled task is reopened first
    Transition("complete", frozenset({DRAFT, IN_PROGRESS, BLOCKED}), DONE, "any", "edit status"),
    # blocking again only changes the reason; undo of a first block is unblock
    Transition("block", frozenset(OPEN), BLOCKED, "any", "unblock"),
    Transition("unblock", frozenset({BLOCKED}), None, "any", "block"),
    # done work is not cancelled; undo reopens to the old status
    Transition("cancel", frozenset(OPEN), CANCELLED, "any", "edit status"),
    # a question for a person blocks the node; the canvas never asks, so no undo takes it back
    Transition("ask", frozenset(OPEN), BLOCKED, "any", None),
    # the answer unblocks, as unblock does; undo blocks again with the question open
    Transition("decide", frozenset({BLOCKED}), None, "person", "block"),
    # by hand: back to draft, or reopened. A blocked node is unblocked (that clears its reason), never edited
    Transition("edit status=draft", frozenset({IN_PROGRESS, DONE, CANCELLED}), DRAFT, "any", "edit status"),
    Transition("edit status=in-progress", frozenset({DRAFT, DONE, CANCELLED}), IN_PROGRESS, "any", "edit status"),
    # an agent gives its task back to the picker (a draft with a lease only loses the lease)
    Transition("unclaim", frozenset({IN_PROGRESS}), DRAFT, "any", "start"),
)

# The moves a command makes on other nodes than the one it names (the ancestors), never a board move.
CASCADES: tuple[Transition, ...] = (
    # start: the draft ancestors of a started task are under way too
    Transition("start: draft ancestors", frozenset({DRAFT}), IN_PROGRESS, "any", "edit status"),
    # add under done work: it is not done any more (undo cancels the new node, and the cascade closes it again)
    Transition("add: done ancestors", frozenset({DONE}), IN_PROGRESS, "any", "cancel"),
    # complete, cancel, repair: a parent closes when its children are (the rule of core/cascade.py)
    Transition("cascade: done", frozenset(OPEN), DONE, "any", "edit status"),
    Transition("cascade: cancelled", frozenset(OPEN), CANCELLED, "any", "edit status"),
)

_BY_COMMAND = {t.command: t for t in TRANSITIONS + CASCADES}
# The command that moves a node to each status where `edit --set status=` may not (it cascades, records why).
OWN_COMMAND = {DONE: "complete", BLOCKED: "block", CANCELLED: "cancel"}


def transition(command: str, status: Status | str | None) -> Transition | None:
    """The row that lets `command` move a node out of `status`; None: not allowed from there.

    `command` is a row's name ("start", "edit status=draft" …); an unknown command raises KeyError
    (a programming error: every status change goes through the table).
    """
    row = _BY_COMMAND[command]
    return row if status in row.sources else None


def inverse(command: str, status: Status | str | None) -> str | None:
    """The command that takes back `command`'s move out of `status`; None: the move is not allowed from
    there, or nothing takes it back."""
    row = transition(command, status)
    return row.inverse if row is not None else None


def unblocked_status(before: Status | str | None, holder_at_work: bool) -> Status:
    """Where `unblock` and `decide` (which unblocks) return a task: back in progress to its assignee
    when it was in progress before the block and that agent is still at work (it holds a live lease
    on some task: it asked, then took other work), else draft, for whichever agent takes it next.

    Never in progress for an agent that is gone: the person's answer would wait on a lease of
    nobody's until it ran out."""
    return IN_PROGRESS if before == IN_PROGRESS and holder_at_work else DRAFT


def edit_command(target: Status | str) -> str:
    """The table's name for `edit --set status=<target>`."""
    return f"edit status={target}"


def board_command(source: Status | str, target: Status | str) -> str | None:
    """The command a board move from `source` to `target` stands for (None: no command makes it)."""
    if source == target:
        return None
    for row in TRANSITIONS:
        if source not in row.sources or row.command == "decide":  # deciding needs an answer: not a move
            continue
        if row.target == target or (row.target is None and target in RESTORED):
            return row.command
    return None
