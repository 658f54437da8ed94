"""Every command, defined once: its parameters, its nature and its handler.

The CLI (`cli.py`), the MCP server (`mcp_server.py`), `leafwise commands` and
the contract tests are all generated from `REGISTRY`.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from leafwise.commands.contract import EXIT_NOT_FOUND, CommandError, Placeholder, Result, clean, fix, quote
from leafwise.store import Plan, PlanNotFound, PlanPaths, find_root, load_plan
from leafwise.store.paths import PlanUnsafe
from leafwise.store.writer import utc_now


@dataclass(frozen=True, slots=True)
class Param:
    name: str  # the handler's keyword
    help: str
    type: type = str  # str | int | float | bool
    positional: bool = False
    required: bool = False
    multiple: bool = False
    default: Any = None
    choices: tuple[str, ...] = ()
    flag: str | None = None  # CLI spelling when not --name-with-dashes
    cli_only: bool = False  # reads a file or stdin: not offered as an MCP tool argument
    mcp_only: bool = False  # inline data that the CLI takes from a file instead
    person_only: bool = False  # a person's own act (trust's approving): no hint ever spells it
    pairs: bool = False  # takes FIELD=VALUE words: a bare FIELD=VALUE word on the CLI was meant for it


    @property
    def cli_flag(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")


# The `agent` of a mutating command that does not otherwise use the name: it is journaled as the
# actor and carried in the answer's hints through `Ctx.caller` (`Ctx.who`, `Ctx.cmd`).
ACTING = Param("agent", "an agent's name")


@dataclass(frozen=True, slots=True)
class Command:
    name: str  # "next", "release add"
    summary: str
    handler: Callable[..., Result]
    params: tuple[Param, ...]
    mutating: bool
    tool: str | None  # its MCP tool name; None: a person's own command (setup, import), CLI only
    destructive: bool = False
    idempotent: bool = False
    needs_plan: bool = True
    listing: bool = False  # `--bare` / `--jsonl` print its items as a plain array
    document: bool = False  # its text is a document to save (`agent-guide > AGENTS.md`): markers on stderr
    example: str = ""  # a full invocation for the docs and the contract tests

    @property
    def full(self) -> str:
        return f"leafwise {self.name}"

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name, "summary": self.summary,
            "kind": "mutating" if self.mutating else "read-only",
            "mcp_tool": self.tool, "destructive": self.destructive, "idempotent": self.idempotent,
            "arguments": [
                {"name": p.name, "flag": None if p.positional else p.cli_flag,
                 "type": p.type.__name__, "required": p.required, "multiple": p.multiple,
                 "choices": list(p.choices) or None, "help": p.help}
                for p in self.params
            ],
        }


REGISTRY: dict[str, Command] = {}

# Handler modules (commands/handlers/), imported on first use of the registry, each with the first
# words of the commands it defines: the one declaration `load_all` and `load_word` read (a `start`
# imports agent_loop alone, not the modules before it). `command` refuses a word registered from any
# other module, so this table and the decorators cannot drift apart.
MODULES: dict[str, tuple[str, ...]] = {
    "plan": ("init", "add", "edit"),
    "releases": ("project", "release"),
    "agent_loop": ("next", "start", "complete", "block", "unblock", "cancel"),
    "discovery": ("show", "list", "tree", "commands"),
    "validation": ("validate",),
    "progress": ("progress",),
    "context": ("context",),
    "docs": ("doc", "write-doc"),
    "decisions": ("ask", "decide"),
    "bulk": ("bulk",),
    "leases": ("heartbeat", "unclaim"),
    "renumber": ("renumber",),
    "diagnose": ("diagnose", "doctor", "repair"),
    "guide": ("agent-guide",),
    "reconcile": ("reconcile",),
    "cycles": ("cycle",),
    "comments": ("comment",),
    "trust": ("trust",),
    "team": ("team",),
    "merging": ("merge-driver",),
    "adoption": ("import", "export"),
    "setup": ("setup",),
    "verify": ("verify",),
}
_HOMES = {word: module for module, words in MODULES.items() for word in words}
_HANDLERS = "leafwise.commands.handlers"


@dataclass(frozen=True, slots=True)
class Launcher:
    """A command that opens a program instead of answering with an envelope.

    `target` ("module:function") is imported only when the launcher runs, so the
    command layer never imports the canvas it can open (canvas → commands → store).
    """

    name: str
    summary: str
    target: str

    def load(self) -> Callable[..., Any]:
        module, _, function = self.target.partition(":")
        return getattr(importlib.import_module(module), function)


LAUNCHERS = {launcher.name: launcher for launcher in (
    Launcher("canvas", "Open the canvas on the plan found from here (also: leafwise with no arguments).",
             "leafwise.canvas.launch:run_canvas"),
    Launcher("demo", "Copy the demo plan to a temporary folder, start a simulated agent, open the canvas.",
             "leafwise.canvas.demo.launch:run_demo"),
    Launcher("mcp", "Serve the registry as MCP tools on stdio (or streamable HTTP with --http).",
             "leafwise.commands.surfaces.mcp_server:serve"),
    Launcher("serve", "Serve the canvas to a browser on 127.0.0.1, behind a one-time token.",
             "leafwise.canvas.serve:run_serve"),
)}


def command(name: str, summary: str, *, params: tuple[Param, ...] = (), mutating: bool,
            tool: str | None, **extra: Any) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
    def register(fn: Callable[..., Result]) -> Callable[..., Result]:
        if name in REGISTRY:
            raise ValueError(f"command {name!r} registered twice")
        home = _HOMES.get(name.split()[0])
        if fn.__module__ != f"{_HANDLERS}.{home}":
            raise ValueError(f"command {name!r} defined in {fn.__module__}: registry.MODULES declares its "
                             f"word in {home or 'no module'}")
        REGISTRY[name] = Command(name, summary, _answering(fn, any(p.name == "agent" for p in params)),
                                 params, mutating, tool, **extra)
        return fn

    return register


def _answering(fn: Callable[..., Result], takes_agent: bool) -> Callable[..., Result]:
    """The registry's handler: `fn` with `Ctx.caller` set to the agent the call names (the rule of
    `Ctx.answers`) while it runs, so every hint it builds carries that agent. A command run inside an
    agent's call (bulk's updates) is that agent's unless it names another."""

    @functools.wraps(fn)
    def run(ctx: Ctx, /, **arguments: Any) -> Result:
        outer = ctx.caller
        if takes_agent and outer and not arguments.get("agent"):
            arguments["agent"] = outer
        ctx.caller = ctx.answers(arguments.get("agent") if takes_agent else None) or outer
        try:
            return fn(ctx, **arguments)
        finally:
            ctx.caller = outer

    return run


def load_all() -> dict[str, Command]:
    for module in MODULES:
        importlib.import_module(f"{_HANDLERS}.{module}")
    return REGISTRY


def load_word(word: str) -> dict[str, Command]:
    """The commands whose first word is `word`, importing only the module `MODULES` declares for it
    (the CLI's fast path); an unknown word loads them all (click then names the commands there are).

    A command group (`cycle start`, `cycle tick`, …) lives in one module, so the module of the word
    defines all of its commands.
    """
    home = _HOMES.get(word)
    if home is None:
        load_all()
    else:
        importlib.import_module(f"{_HANDLERS}.{home}")
    return {name: spec for name, spec in REGISTRY.items() if name.split()[0] == word}


def _hint_params(name: str) -> tuple[Param, ...]:
    """The params of command `name`: its registry entry when its module is loaded, else the generated
    table (`command_params.PARAMS`, proved equal to the registry by tests/contract/test_command_params.py),
    so a hint naming a command of another module imports nothing on `leafwise next`'s path."""
    spec = REGISTRY.get(name)
    if spec is not None:
        return spec.params
    from leafwise.commands.command_params import PARAMS

    if name not in PARAMS:
        raise ValueError(f"no command {name!r} in the registry")
    kinds = {"str": str, "int": int, "float": float, "bool": bool}
    return tuple(Param(p, "", kinds[kind], positional=flag is None, multiple=multiple, flag=flag)
                 for p, kind, flag, multiple in PARAMS[name])


def _unnamed(agent: Any) -> bool:
    return agent is None or agent == "" or (isinstance(agent, Placeholder) and agent.name == "agent")


def _is_command(name: str) -> bool:
    from leafwise.commands.command_params import PARAMS

    return name in REGISTRY or name in PARAMS


def _hint_word(p: Param, value: Any) -> str:
    if isinstance(value, Placeholder):
        return f'"{value}"' if p.type is str else str(value)
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(f"{p.name}: {type(value).__name__} is not a {p.type.__name__}")
    return quote(value)


def command_line(name: str, /, *positional: Any, root: str | None = None, **args: Any) -> str:
    """The full command line of a hint: `leafwise`, the command's words, its positional arguments in
    order, its flags in param order (bools bare when True, lists as repeated flags, None left out),
    then `--root` when one is given. A positional value that starts with `-` goes after `--`, so
    the CLI cannot read it as an option. Raises ValueError for an unknown command or keyword."""
    params = _hint_params(name)
    given = dict(args)
    slots = [p for p in params if p.positional]
    if len(positional) > len(slots):
        raise ValueError(f"{name} takes {len(slots)} positional argument(s), got {len(positional)}")
    for p, value in zip(slots, positional):
        if p.name in given:
            raise ValueError(f"{name}: {p.name} given twice")
        given[p.name] = value
    unknown = sorted(set(given) - {p.name for p in params})
    if unknown:
        raise ValueError(f"{name} has no argument {unknown[0]!r}")
    own = [p.name for p in params if p.person_only and given.get(p.name) not in (None, False, (), [])]
    if own:  # a hint is followed by agents: a person's own act is never spelled for them
        raise ValueError(f"{name}: {own[0]} is a person's own act, never a hint")
    heads: list[str] = []
    flags: list[str] = []
    dashed = False
    for p in params:
        value = given.get(p.name)
        if value is None:
            continue
        if p.type is bool:
            if not isinstance(value, bool):
                raise ValueError(f"{p.name}: a flag is True or False")
            flags += [p.cli_flag] if value else []
            continue
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        if len(values) != 1 and not (p.multiple and not p.positional):
            raise ValueError(f"{name}: {p.name} takes one value")
        for v in values:
            heads += [_hint_word(p, v)] if p.positional else []
            flags += [] if p.positional else [p.cli_flag, _hint_word(p, v)]
            # the shell drops the quotes: the CLI sees the value itself ("--tag=a b" in quotes is an option)
            dashed = dashed or (p.positional and clean(str(v)).startswith("-"))
    tail = ["--root", quote(str(root))] if root else []
    if dashed:
        return " ".join(["leafwise", name, *flags, *tail, "--", *heads])
    return " ".join(["leafwise", name, *heads, *flags, *tail])


# Commands a hint names as a person's step ("after a person runs leafwise unblock X"): the calling
# agent is not written into them, it is not the one to run them.
_AGENT_SURFACE: ContextVar[bool] = ContextVar("leafwise_agent_surface", default=False)


@contextmanager
def agent_surface() -> Iterator[None]:
    """Calls made inside are an agent's, named or not: the MCP server wraps every tool call in it
    (its client is an agent's model; a server run in-process, as tests do, may sit on a terminal)."""
    token = _AGENT_SURFACE.set(True)
    try:
        yield
    finally:
        _AGENT_SURFACE.reset(token)


def on_agent_surface() -> bool:
    """Whether this call comes through an agent's surface (MCP): never a person's, with or without
    an agent's name (`trust.person_here`, `Ctx.overrides`)."""
    return _AGENT_SURFACE.get()


PERSON_STEPS = frozenset({"decide", "unblock", "trust"})
# What `Ctx.cmd` gives for a `--force` line in an answer to an agent: words, not a command line, so a
# message still reads ("a person may complete it anyway (a person's override)") and one put in a
# Next/Or/Fix slot fails the hint-line contract tests (tests/contract/test_agent_in_hints.py).
PERSON_OVERRIDE = "a person's override"


def help_line(name: str, /, *, root: str | None = None) -> str:
    """The help line of command `name` (`leafwise <name> [--root ...] --help`): --help is click's, no
    registry param, so it follows the line the builder makes."""
    return command_line(name, root=root) + " --help"


def person_name(cwd: Path | None = None) -> str:
    """A person's name: the rule's one home is `store/git.py` `person_name` (git through the one runner)."""
    from leafwise.store import git

    return git.person_name(cwd)


@dataclass
class Ctx:
    """What a handler needs from its surface: where the plan is, who acts, the time.

    `_paths` and `_plan` are its own: others set them with `use_paths` and `use`, and read them
    with `found_paths` and `loaded_plan`.
    """

    root: str | None = None
    cwd: Path = field(default_factory=Path.cwd)
    actor: str | None = None  # the surface's actor: the person in the canvas
    client: str | None = None  # an agent's surface's client (MCP: "mcp:<its name>"): who acts when no agent is named
    caller: str | None = None  # the agent this call's answer is for (set by the registry); None: a person
    clock: Callable[[], datetime] = utc_now
    # where a fresh plan comes from: None, the loader; a long-lived surface passes its warm plan, kept
    # in step with the files by a watcher (store/live_plan.py)
    source: Callable[[], Plan] | None = None
    _paths: PlanPaths | None = None
    _plan: Plan | None = None

    def paths(self) -> PlanPaths:
        if self._paths is None:
            try:
                self._paths = find_root(self.cwd, self.root)
            except PlanUnsafe as exc:  # a link or a FIFO where the plan keeps its own files
                from leafwise.commands.unsafe_plan import unsafe_plan_error

                raise unsafe_plan_error(exc, self.cmd) from exc
            except PlanNotFound as exc:
                raise CommandError(
                    "plan_not_found", str(exc), fix(self.cmd("init"), "create a plan here"),
                    exit_code=EXIT_NOT_FOUND, category="not_found", source=("plan", None),
                ) from exc
        return self._paths

    def plan(self, *, fresh: bool = False) -> Plan:
        if self._plan is None or fresh:
            self._plan = self.source() if self.source is not None else load_plan(self.paths())
        return self._plan

    def forget(self) -> None:
        """Drop the loaded plan after a write, so the next read sees it."""
        self._plan = None

    def use_paths(self, paths: PlanPaths | None) -> None:
        """Work on the plan at `paths`, found already (init just made it; doctor found it itself; the
        MCP session keeps it); None: find it from `root` and `cwd` on first need."""
        self._paths = paths

    def use(self, plan: Plan | None) -> None:
        """Start from a plan loaded already (the MCP session's warm plan); None: load it on first need."""
        self._plan = plan

    @property
    def found_paths(self) -> PlanPaths | None:
        """The plan's paths if found already, without looking for them."""
        return self._paths

    @property
    def loaded_plan(self) -> Plan | None:
        """The plan if loaded already, without loading it."""
        return self._plan

    def who(self, agent: str | None = None) -> str:
        """Who acts: the agent named, else the agent of the call, else the surface's actor, else LEAFWISE_AGENT,
        else the agent surface's client (an MCP call naming no agent is its client's, never the person's),
        else the person."""
        return agent or self.caller or self.actor or os.environ.get("LEAFWISE_AGENT") or self.client \
            or person_name(self.cwd)

    def answers(self, agent: str | None) -> str | None:
        """The agent a call naming `agent` answers (None: a person): the agent named, else the one in
        LEAFWISE_AGENT; never the surface's own actor (the canvas names the person there)."""
        named = clean(agent, 80) if agent else (os.environ.get("LEAFWISE_AGENT") or "").strip() or None
        return named if named and named != self.actor else None

    @property
    def for_agent(self) -> bool:
        """Whether this call's answer is an agent's: an agent named (`caller`), or any call on an agent's
        surface (MCP), named or not. Only the rest, a person's calls, get a person's overrides and lines."""
        return self.caller is not None or on_agent_surface()

    def overrides(self, force: bool) -> bool:
        """Whether `--force` overrides (another's hold, an open decision or dependency, a near-duplicate):
        in a person's call only; an agent's --force is as if it were not given."""
        return bool(force) and not self.for_agent

    def person(self) -> str:
        """The person at the keyboard (for --force, decide, comment…): see `person_name`."""
        return person_name(self.cwd)

    def cmd(self, name: str, /, *positional: Any, **args: Any) -> str:
        """A hint's full command line (`contract.CommandLine`), built by `command_line` from the
        registry entry of command `name`, carrying --root when the caller gave it.

        In an answer to an agent (`caller`) the line is the agent's: a command that takes an agent
        carries the caller where the hint names none (or only `<agent>`), but a person's step
        (`PERSON_STEPS`); a hint that names another agent (a task's holder) keeps it. A `--force` line
        is a person's: to an agent it is `PERSON_OVERRIDE`, never the line.

        The one-string form (`ctx.cmd("complete SHOP-7 --summary ...")`, no arguments) is still read
        as the words after `leafwise`, until every caller passes typed arguments."""
        if positional or args or _is_command(name):
            if self.for_agent and args.get("force") is True:
                return PERSON_OVERRIDE
            if self.caller and name not in PERSON_STEPS and _unnamed(args.get("agent")) \
                    and any(p.name == "agent" for p in _hint_params(name)):
                args["agent"] = self.caller
            return command_line(name, *positional, root=self.root, **args)
        line = f"leafwise {name}"
        if self.root:
            head, sep, tail = line.partition(" -- ")  # options go before the end-of-options mark
            line = f"{head} --root {quote(str(self.root))}" + (f"{sep}{tail}" if sep else "")
        return line
