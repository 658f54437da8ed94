"""The agent contract: results, next actions, errors, and their one rendering.

Every command returns a `Result` or raises a `CommandError`; `envelope()` turns
either into the envelope (`envelope.schema.json`) and `render_text()` derives the text
lines from that same object, so the CLI, the MCP server and the canvas cannot
drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

# The text rules live in `text.py`; these names stay importable from here.
from leafwise.commands.text import (  # noqa: F401 - re-exported
    HIDDEN,
    MARKER_WORDS,
    UNTRUSTED_TAG,
    clean,
    cut,
    error_words,
    inert,
    inert_line,
    inert_lines,
    json_text,
    one_line,
    quote,
    reads_as_marker,
    shown,
    untrusted_block,
    visible,
)

SCHEMA = "leafwise.v1.result"

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_CONFLICT, EXIT_INVALID, EXIT_NOT_FOUND = 0, 1, 2, 3, 4, 5
EXIT_CODES = {
    EXIT_OK: "ok", EXIT_FAILURE: "failure", EXIT_USAGE: "usage", EXIT_CONFLICT: "conflict",
    EXIT_INVALID: "invalid plan", EXIT_NOT_FOUND: "not found",
}

Marker = Literal["next", "wait", "done", "fix"]

class Placeholder(str):
    """What the agent fills in (`<summary>`, `<agent>`, `<N>`) in a hint's command line.

    The hint builder writes it `"<summary>"` for a text argument (one word to a shell, and `<`
    is no redirection) and `<N>` for a number, and never quotes it twice.
    """

    __slots__ = ()

    @property
    def name(self) -> str:
        return self[1:-1]


def placeholder(name: str) -> Placeholder:
    return Placeholder(f"<{name}>")


class CommandLine(Protocol):
    """Builds a hint's full command line from a registry command's name and its typed arguments
    (`Ctx.cmd`, `registry.command_line`): what core code receives, since it cannot import the registry.

    `cmd("complete", node.id, summary=placeholder("summary"), agent=agent)`
    -> `leafwise complete SHOP-7 --summary "<summary>" --agent mcp-1`.
    """

    def __call__(self, name: str, /, *positional: Any, **args: Any) -> str: ...


@dataclass(frozen=True, slots=True)
class NextAction:
    marker: Marker
    command: str | None = None
    or_: str | None = None
    condition: str | None = None
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"marker": self.marker, "command": self.command, "or": self.or_,
                "condition": self.condition, "reason": self.reason}

    def lines(self) -> list[str]:
        head = {
            "next": f"Next: {self.command}",
            "fix": f"Fix: {self.command}",
            "wait": f"Wait: {self.condition}",
            "done": "Done.",
        }[self.marker]
        return [head] + ([f"Or: {self.or_}"] if self.or_ else [])


def next_(command: str, reason: str, or_: str | None = None) -> NextAction:
    return NextAction("next", command=command, or_=or_, reason=reason)


def wait(condition: str, reason: str, or_: str | None = None) -> NextAction:
    return NextAction("wait", condition=clean(condition, 300), or_=or_, reason=reason)


def done(reason: str) -> NextAction:
    return NextAction("done", reason=reason)


def fix(command: str, reason: str, or_: str | None = None) -> NextAction:
    return NextAction("fix", command=command, or_=or_, reason=reason)


@dataclass(slots=True)
class Mutation:
    tool: str
    operation: str
    applied: bool
    reason: str
    changes: list[dict[str, Any]] = field(default_factory=list)
    safe: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, "operation": self.operation, "safe": self.safe,
                "applied": self.applied, "reason": self.reason, "changes": self.changes}


@dataclass(slots=True)
class Result:
    result: Any
    next_action: NextAction
    text: list[str] = field(default_factory=list)
    mutation: Mutation | None = None


# Root-cause categories an error can fall in (used by diagnose too).
CATEGORIES = ("usage", "not_found", "conflict", "held_by_other_agent", "invalid_plan",
              "blocked", "dependency_open", "io", "internal", "refused")


class CommandError(Exception):
    """A failure an agent can act on: a code, an exit code and a fix (or a wait)."""

    def __init__(
        self,
        code: str,
        message: str,
        action: NextAction,
        *,
        exit_code: int = EXIT_FAILURE,
        category: str = "refused",
        retryable: bool = False,
        source: tuple[str, str | None] = ("plan", None),
        details: dict[str, Any] | None = None,
        severity: str = "error",
        repair: tuple[str, bool, str] | None = None,
        mutation: Mutation | None = None,
        text: list[str] | None = None,
    ):
        super().__init__(message)
        self.text = text or []
        assert action.marker in ("fix", "wait"), "an error carries Fix: or Wait:"
        self.code = code
        self.message = clean(message, 2000)
        self.action = action
        self.exit_code = exit_code
        self.category = category
        self.retryable = retryable or action.marker == "wait"
        self.source = source
        self.details = details or {}
        self.severity = severity
        self.repair = repair
        self.mutation = mutation

    def error_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "exit_code": self.exit_code,
                "retryable": self.retryable, "details": self.details}

    def root_cause(self) -> dict[str, Any]:
        kind, ident = self.source
        return {"category": self.category, "reason": self.message,
                "source": {"kind": kind, "id": ident}, "retryable": self.retryable,
                "severity": self.severity, "actionable": True}

    def remediation(self) -> dict[str, Any]:
        tool, allowed, why = self.repair or ("", False, "no automatic repair applies")
        steps = [c for c in (self.action.command, self.action.or_) if c]
        return {
            "classification": "retry_later" if self.action.marker == "wait" else "fix_then_retry",
            "summary": self.action.reason or self.message,
            "automatic_repair": {"tool": tool or None, "allowed": allowed, "reason": why},
            "next_actions": steps,
        }


def envelope(command: str, outcome: Result | CommandError) -> dict[str, Any]:
    if isinstance(outcome, CommandError):
        return {
            "schema": SCHEMA, "status": "error", "command": command, "result": None,
            "mutation": outcome.mutation.as_dict() if outcome.mutation else None,
            "error": outcome.error_dict(), "root_cause": outcome.root_cause(),
            "remediation": outcome.remediation(),
            "_next_action": outcome.action.as_dict(),
        }
    return {
        "schema": SCHEMA, "status": "ok", "command": command, "result": outcome.result,
        "mutation": outcome.mutation.as_dict() if outcome.mutation else None,
        "_next_action": outcome.next_action.as_dict(),
    }


def action_lines(env: dict[str, Any]) -> list[str]:
    a = env["_next_action"]
    return NextAction(a["marker"], a["command"], a["or"], a["condition"], a["reason"]).lines()


def render_text(env: dict[str, Any], body: list[str], *, for_agent: bool = False) -> tuple[str, str]:
    """(stdout, stderr) for one envelope: body first, the markers last.

    `for_agent` (the MCP text content): the body, which carries the plan's text, inside one
    `untrusted_block` labelled with the command, so only the marker lines after it are Leafwise's.
    """
    markers = [inert(line) for line in action_lines(env)]
    body = [inert_line(line) for line in body]
    if for_agent:
        body = untrusted_block(body, env["command"])
    if env["status"] == "error":
        err = [f"Error: {error_words(env['error']['message'])}", *markers]
        return ("\n".join(body) + "\n" if body else ""), "\n".join(err) + "\n"
    return "\n".join([*body, *markers]) + "\n", ""


# The most items one answer lists, whatever limit the caller asks: 20,000 rows were 14 MB and 8.8 s.
MAX_ITEMS = 1000


def bounded(items: list[Any], limit: int | None) -> dict[str, Any]:
    """An array an agent can never be flooded by: at most `limit` items, never more than MAX_ITEMS
    (no limit, or one of 0 or less, asks for all: MAX_ITEMS)."""
    total = len(items)
    limit = MAX_ITEMS if limit is None or limit <= 0 else min(limit, MAX_ITEMS)
    shown = items[:limit]
    return {"items": shown, "total": total, "limit": limit, "truncated": len(shown) < total}
