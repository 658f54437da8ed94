"""One check of a command's arguments, built from its `Param` specs, for every surface.

The CLI (its words), the MCP server (JSON values), `bulk` and the canvas (Python values) all reach
a handler through `runner.execute`, which calls `check`: one rule for what a command takes, and one
message for each mistake whichever surface made it. A usage error's Fix is the call again
(`again`): what was right as given, a placeholder where something is missing or wrong.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from leafwise.commands.contract import EXIT_USAGE, CommandError, CommandLine, clean, fix, placeholder
from leafwise.commands.registry import Command, Param
from leafwise.store.ids import agent_problem

# Where the arguments come from: "cli" (words: numbers are converted), "mcp" (JSON values; no
# CLI-only argument), "call" (Python values: bulk, the canvas).
Surface = Literal["cli", "mcp", "call"]
TYPE_WORDS = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}
NOT_GIVEN = (None, "", (), [])
AGENT_PLACEHOLDER = str(placeholder("agent"))


@dataclass(frozen=True, slots=True)
class Mistake:
    code: str  # unknown_argument | missing_argument | bad_argument | extra_argument
    what: str  # the message after "<command>: "
    param: str | None = None  # the argument to fill in again
    meant: tuple[str, str] | None = None  # (argument, word): where the Fix puts a misplaced word of the user's


def offered(command: Command, surface: Surface) -> list[Param]:
    """The arguments a command takes on a surface: MCP leaves out the CLI-only ones (files, stdin)."""
    return [p for p in command.params if not (surface == "mcp" and p.cli_only)]


def spelled(p: Param) -> str:
    """An argument by its name and, for a flag, its CLI spelling: the same words on every surface."""
    return f"'{p.name}'" if p.positional else f"'{p.name}' ({p.cli_flag})"


def _shown(value: Any) -> str:
    return clean(json.dumps(value, ensure_ascii=False, default=str), 60)


def missing(p: Param) -> Mistake:
    return Mistake("missing_argument", f"missing {spelled(p)}: {p.help}", p.name)


def unknown(command: Command, name: str, surface: Surface) -> Mistake:
    name = clean(name, 60)
    takes = ", ".join(p.name for p in offered(command, surface)) or "nothing"
    return Mistake("unknown_argument", f"unknown argument {name!r} (--{name.replace('_', '-')}); it takes: {takes}")


def _one(p: Param, value: Any, surface: Surface) -> Any:
    """`value` as the handler takes it, or the Mistake it is."""
    if surface == "cli" and isinstance(value, str) and p.type in (int, float):
        try:
            return p.type(value)
        except ValueError:
            pass
    elif isinstance(value, p.type) and not (isinstance(value, bool) and p.type is not bool):
        # the one rule of a name (store/ids.py); a hint's `<agent>` placeholder still reads back as written
        if p.name == "agent" and value != AGENT_PLACEHOLDER and (problem := agent_problem(value)):
            return Mistake("bad_argument", f"{spelled(p)}: {problem}", p.name)
        if not p.choices or value in p.choices:
            return value
        return Mistake("bad_argument", f"{spelled(p)} must be one of {', '.join(p.choices)}, not {_shown(value)}",
                       p.name)
    elif p.type is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return Mistake("bad_argument", f"{spelled(p)} must be {_kind(p)}, not {_shown(value)}", p.name)


def _kind(p: Param) -> str:
    return f"a list of {TYPE_WORDS[p.type].split(' ', 1)[-1]}s" if p.multiple else TYPE_WORDS[p.type]


def value(p: Param, raw: Any, surface: Surface) -> Any:
    """A given argument as the handler takes it (a tuple for a list), or the Mistake it is."""
    if not p.multiple:
        return _one(p, raw, surface) if not isinstance(raw, (list, tuple)) else _one(p, list(raw), surface)
    if not isinstance(raw, (list, tuple)):
        return Mistake("bad_argument", f"{spelled(p)} must be {_kind(p)}, not {_shown(raw)}", p.name)
    values = [_one(p, v, surface) for v in raw]
    wrong = next((v for v in values if isinstance(v, Mistake)), None)
    return wrong if wrong is not None else tuple(values)


def leftovers(words: Sequence[str]) -> tuple[list[str], list[str]]:
    """The words the CLI could not place, as (unknown option names, extra words)."""
    names = [w.lstrip("-").split("=", 1)[0].replace("-", "_") for w in words if w.startswith("-") and len(w) > 1]
    return names, [w for w in words if not (w.startswith("-") and len(w) > 1)]


def _extra(word: str, params: list[Param], surface: Surface) -> Mistake:
    """A word no argument takes; a FIELD=VALUE word is shown where it belongs (`edit … --set F=V`)."""
    pairs = next((p for p in params if p.pairs), None)
    if pairs is not None and surface == "cli" and "=" in word.strip("="):
        return Mistake("extra_argument", f"unexpected word {_shown(word)}; a FIELD=VALUE word goes after "
                       f"{pairs.cli_flag}", meant=(pairs.name, word))
    return Mistake("extra_argument", f"unexpected word {_shown(word)}; it takes: "
                   f"{', '.join(p.name for p in params)}")


def mistakes(command: Command, given: dict[str, Any], surface: Surface,
             extra: Sequence[str] = (), actor: str | None = None) -> tuple[dict[str, Any], list[Mistake]]:
    """(the arguments that are right, as the handler takes them; every mistake, the first to report first).
    `actor`: the person at the keyboard (the canvas's), whose own name may be any name git gives."""
    params = {p.name: p for p in offered(command, surface)}
    names, words = leftovers(extra)
    found = [unknown(command, name, surface) for name in [*(n for n in given if n not in params), *names]]
    found += [_extra(w, list(params.values()), surface) for w in words]
    right: dict[str, Any] = {}
    for p in params.values():
        raw = given.get(p.name)
        if raw in NOT_GIVEN:
            found += [missing(p)] if p.required else []
            continue
        checked = raw if p.name == "agent" and actor and raw == actor else value(p, raw, surface)
        if isinstance(checked, Mistake):
            found.append(checked)
        else:
            right[p.name] = checked
    return right, found


def again(command: Command, cmd: CommandLine, right: dict[str, Any], wrong: Collection[str] = ()) -> str:
    """The call again: the arguments that were right (but those in `wrong`), and a placeholder for each
    required one that is missing and each in `wrong`; never a person's own act (`Param.person_only`:
    trust's approving), which the person types again themselves."""
    args: dict[str, Any] = {}
    for p in command.params:
        if p.person_only:
            continue
        if p.name in right and p.name not in wrong:
            args[p.name] = right[p.name]
        elif (p.required or p.name in wrong) and p.type is not bool:
            args[p.name] = placeholder(p.name)
    return cmd(command.name, **args)


def refusal(command: Command, mistake: Mistake, right: dict[str, Any], cmd: CommandLine,
            moved: Sequence[tuple[str, str]] = ()) -> CommandError:
    """The usage error for `mistake`: the same code, message and Fix on every surface."""
    wrong = {mistake.param} if mistake.param else set()
    for name, word in moved or ([mistake.meant] if mistake.meant else []):
        right = {**right, name: (*right.get(name, ()), word)}  # the user's own words, where they belong
    way = fix(again(command, cmd, right, wrong), f"fill in {mistake.param}" if mistake.param
              else f"the word after {mistake.meant[0]}" if mistake.meant else "only the arguments it takes")
    return CommandError(mistake.code, f"{command.name}: {mistake.what}", way, exit_code=EXIT_USAGE,
                        category="usage", source=("command", command.name))


def check(command: Command, given: dict[str, Any], cmd: CommandLine, surface: Surface = "call",
          extra: Sequence[str] = (), actor: str | None = None) -> dict[str, Any]:
    """The arguments as the handler takes them; raises the usage error of the first mistake.

    `extra`: the words a CLI line had that match no argument (unknown options, extra words)."""
    right, found = mistakes(command, given, surface, extra, actor)
    if found:
        raise refusal(command, found[0], right, cmd, [m.meant for m in found if m.meant])
    return right
