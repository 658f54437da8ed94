"""`leafwise setup CLIENT`: the client's MCP entry for this plan, a marked block of instructions,
and (Claude Code) a SessionStart hook that runs `leafwise context`.

Idempotent: a second run changes nothing. `--dry-run` shows the diff and writes nothing. `--remove`
takes out what setup wrote and nothing else. A file setup cannot edit safely (malformed, a link,
another program's entry where ours goes) is refused with its name and line; nothing is written
unless every file can be.
"""

from __future__ import annotations

import difflib
import json
import os
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leafwise.commands.contract import (
    EXIT_CONFLICT,
    EXIT_FAILURE,
    CommandError,
    Mutation,
    Result,
    clean,
    done,
    fix,
    next_,
)
from leafwise.commands.domain import setup_blocks, setup_json, setup_ledger
from leafwise.commands.domain.agent_clients import CLIENTS, SERVER, Client, entry, hook_group
from leafwise.commands.domain.guide import GUIDE
from leafwise.commands.domain.nodes import record
from leafwise.commands.registry import Ctx
from leafwise.store import reader
from leafwise.store.writer import write_text

FORMAT = "v1"  # the blocks' format: a later setup knows what it reads
TEXT = setup_blocks.Markers("<!-- leafwise:begin", "<!-- leafwise:end -->")
TOML = setup_blocks.Markers("# >>> leafwise setup", "# <<< leafwise setup")
CLI_MODULE = "leafwise.commands.surfaces.cli"
EXECUTABLES = ("leafwise", "leafwise.exe")


class Refusal(Exception):
    """A file setup will not edit: `code`, the file, the line, and why."""

    def __init__(self, code: str, file: str, line: int | None, why: str):
        super().__init__(why)
        self.code, self.file, self.line, self.why = code, file, line, why


@dataclass(slots=True)
class Edit:
    path: Path
    label: str  # the path as the person reads it (relative to the project when inside it)
    before: str | None  # None: no such file
    after: str | None  # None: the file goes
    created: list[tuple[str, ...]] = field(default_factory=list)  # JSON keys this edit makes

    @property
    def action(self) -> str:
        if self.before == self.after:
            return "unchanged"
        return "create" if self.before is None else "remove" if self.after is None else "update"

    def diff(self) -> list[str]:
        old = (self.before or "").splitlines(keepends=True)
        new = (self.after or "").splitlines(keepends=True)
        return [line.rstrip("\n") for line in difflib.unified_diff(
            old, new, "/dev/null" if self.before is None else f"a/{self.label}",
            "/dev/null" if self.after is None else f"b/{self.label}")]


def leafwise_command() -> list[str]:
    """The command that runs this Leafwise from anywhere: the `leafwise` being run, else the one
    beside this Python (its virtualenv's), else this Python running the CLI module."""
    here = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if here is not None and here.name in EXECUTABLES and here.is_file():
        return [str(here.absolute())]
    for name in EXECUTABLES:
        beside = Path(sys.executable).parent / name
        if beside.is_file() and os.access(beside, os.X_OK):
            return [str(beside.absolute())]
    return [str(Path(sys.executable).absolute()), "-P", "-m", CLI_MODULE]


def is_ours(value: Any) -> bool:
    """An MCP entry that runs `leafwise mcp` (this setup's, another install's, or one written by hand)."""
    if not isinstance(value, dict) or not isinstance(value.get("args"), list):
        return False
    command = Path(str(value.get("command") or "")).name
    args = [str(a) for a in value["args"]]
    return "mcp" in args and (command in EXECUTABLES or CLI_MODULE in args)


def is_our_hook(value: Any) -> bool:
    hooks = value.get("hooks") if isinstance(value, dict) else None
    return isinstance(hooks, list) and any(
        isinstance(h, dict) and " context" in str(h.get("command", "")) and "leafwise" in str(h.get("command", ""))
        for h in hooks)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("leafwise")
    except PackageNotFoundError:  # pragma: no cover - a source tree without metadata
        return "source"


def _label(path: Path, repo: Path) -> str:
    try:
        return path.relative_to(repo).as_posix()
    except ValueError:
        return str(path)


def _read(path: Path, repo: Path, label: str) -> str | None:
    """The file's text, None when there is none; never through a link, never past the settings cap."""
    try:
        inside = path.is_relative_to(repo)
        for folder in [p for p in path.parents if inside and p != repo and p.is_relative_to(repo)]:
            if folder.is_symlink():
                raise Refusal("linked_folder", label, None, f"{_label(folder, repo)} is a symbolic link; "
                              "setup never writes through links")
        raw = reader.read_bytes(path, reader.SETTINGS, under=repo if inside else None)
        reader.check_cap(raw, reader.SETTINGS)
        return reader.decode(raw, strict=True)
    except FileNotFoundError:
        return None
    except reader.Refused as exc:
        raise Refusal(exc.code, label, exc.line, str(exc)) from exc


def _json_error(label: str, exc: Exception) -> Refusal:
    code = "foreign_entry" if isinstance(exc, setup_json.Foreign) else "config_malformed"
    why = str(exc).replace(f"the {reader.SETTINGS.name} is ", "", 1)  # "not valid JSON: …"
    return Refusal(code, label, getattr(exc, "line", None), why)


def mcp_edit(client: Client, path: Path, label: str, text: str | None, server: dict[str, Any],
             remove: bool) -> Edit:
    """The client's MCP config with (or, removing, without) the `leafwise` entry (JSON unless the
    client's is TOML: `generic --config FILE` writes an `mcpServers` JSON file)."""
    if client.format == "toml":
        return _toml_edit(client, path, label, text, server, remove)
    try:
        setup_json.parse(text or "")
        if remove:
            if text is None:
                return Edit(path, label, None, None)
            return Edit(path, label, text, setup_json.drop(text, (client.servers,),
                                                           lambda key, v: key == SERVER and is_ours(v),
                                                           _made(path)))
        base = text if text and text.strip() else "{}\n"
        made = setup_json.missing(text, (client.servers,))
        return Edit(path, label, text, setup_json.set_entry(base, (client.servers,), SERVER, server, is_ours), made)
    except (reader.Refused, setup_json.NotAnObject) as exc:
        raise _json_error(label, exc) from exc


def _made(path: Path):
    """Whether setup made the key at a path in this file (no record: an empty key may go)."""
    found = setup_ledger.record(path)
    if found is None:
        return lambda _key: True
    made = set(found.get("created") or [])
    return lambda key: ".".join(key) in made


def _toml_edit(client: Client, path: Path, label: str, text: str | None, server: dict[str, Any],
               remove: bool) -> Edit:
    import json
    import tomllib

    try:
        rest = setup_blocks.take(text, TOML) if text else ""
        theirs = tomllib.loads(rest)
    except setup_blocks.Damaged as exc:
        raise Refusal("config_malformed", label, exc.line, str(exc)) from exc
    except tomllib.TOMLDecodeError as exc:
        raise Refusal("config_malformed", label, _toml_line(str(exc)), f"not valid TOML: {exc}") from exc
    if remove:
        if text is None:
            return Edit(path, label, None, None)
        return Edit(path, label, text, None if rest == "" and _created(path) else rest)
    servers = theirs.get(client.servers)
    if isinstance(servers, dict) and SERVER in servers:
        raise Refusal("foreign_entry", label, None,
                      f"[{client.servers}.{SERVER}] is already there, outside setup's block")
    body = "\n".join([f"[{client.servers}.{SERVER}]", f"command = {json.dumps(server['command'])}",
                      "args = [" + ", ".join(json.dumps(a) for a in server["args"]) + "]",
                      "env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in server["env"].items()) + " }"])
    block = TOML.wrap(f" {FORMAT} (leafwise {_version()}): `leafwise setup {client.name} --remove` takes it out",
                      body)
    after = setup_blocks.put(text, TOML, block)
    try:
        tomllib.loads(after)
    except tomllib.TOMLDecodeError as exc:  # e.g. an inline `mcp_servers = {…}` a table cannot extend
        raise Refusal("config_malformed", label, _toml_line(str(exc)),
                      f"the entry cannot be added to it: {exc}") from exc
    return Edit(path, label, text, after)


def _toml_line(message: str) -> int | None:
    _, found, tail = message.partition("at line ")
    digits = "".join(c for c in tail[:8] if c.isdigit()) if found else ""
    return int(digits) if digits else None


def _created(path: Path) -> bool:
    found = setup_ledger.record(path)
    return True if found is None else bool(found.get("created_file"))


def text_edit(client: Client, path: Path, label: str, text: str | None, remove: bool) -> Edit:
    """The instruction file with (or without) setup's marked block of the agent guide."""
    try:
        if remove:
            if text is None or TEXT.find(text) is None:
                return Edit(path, label, text, text)
            rest = setup_blocks.take(text, TEXT)
            gone = rest.strip() == client.fresh.strip() and _created(path)
            return Edit(path, label, text, None if gone else rest)
        if client.fresh and text is not None and TEXT.find(text) is None:
            raise Refusal("foreign_file", label, None, "the file is there and setup did not write it")
        header = (f" {FORMAT} (leafwise {_version()}): managed by `leafwise setup`, which `--remove` "
                  "takes out; edit outside these lines -->")
        return Edit(path, label, text, setup_blocks.put(text, TEXT, TEXT.wrap(header, GUIDE), client.fresh))
    except setup_blocks.Damaged as exc:
        raise Refusal("markers_damaged", label, exc.line, str(exc)) from exc


def hook_edit(path: Path, label: str, text: str | None, line: str, remove: bool) -> Edit:
    """Claude Code's settings with (or without) the SessionStart hook that runs `leafwise context`."""
    where = ("hooks", "SessionStart")
    try:
        setup_json.parse(text or "")
        if remove:
            if text is None:
                return Edit(path, label, None, None)
            return Edit(path, label, text, setup_json.drop(text, where, lambda _k, v: is_our_hook(v), _made(path)))
        base = text if text and text.strip() else "{}\n"
        return Edit(path, label, text, setup_json.add_element(base, where, hook_group(line), is_our_hook),
                    setup_json.missing(text, where))
    except (reader.Refused, setup_json.NotAnObject) as exc:
        raise _json_error(label, exc) from exc


def _emptied(edit: Edit) -> Edit:
    """A JSON config that removing left as `{}` goes, when setup created it."""
    if edit.after is not None and edit.before is not None and edit.after != edit.before \
            and edit.path.suffix == ".json" and setup_json.parse(edit.after) == {} and _created(edit.path):
        edit.after = None
    return edit


def plan_edits(ctx: Ctx, client: Client, repo: Path, remove: bool, config: str | None) -> tuple[list[Edit], dict]:
    """Every file setup would change, and the server entry (command and args)."""
    command = leafwise_command()
    server = entry(client, command[0], command[1:] + ["mcp"], str(repo))
    edits: list[Edit] = []
    target = Path(config).expanduser() if config else (repo / client.config if client.config else None)
    if target is not None:
        target = target if target.is_absolute() else (ctx.cwd / target)
        label = _label(target, repo)
        edits.append(_emptied(mcp_edit(client, target, label, _read(target, repo, label), server, remove)))
    path = repo / client.instructions
    edits.append(text_edit(client, path, client.instructions, _read(path, repo, client.instructions), remove))
    if client.hook:
        path = repo / client.hook
        line = shlex.join(command + ["context", "--root", str(repo)])
        edits.append(_emptied(hook_edit(path, client.hook, _read(path, repo, client.hook), line, remove)))
    return edits, server


def apply(edits: list[Edit], remove: bool) -> None:
    """Write (or delete) each changed file, and note what setup made (the file, its keys, its folders)
    for a later --remove, which deletes the folders it made once they are empty."""
    for edit in edits:
        if edit.action == "unchanged":
            if remove:
                setup_ledger.forget(edit.path)
            continue
        if edit.after is None:
            made = (setup_ledger.record(edit.path) or {}).get("folders") or []
            edit.path.unlink()
            setup_ledger.forget(edit.path)
            for folder in sorted(made, key=len, reverse=True):
                if Path(folder).is_dir() and not any(Path(folder).iterdir()):
                    Path(folder).rmdir()
            continue
        folders = [p for p in reversed(edit.path.parents) if not p.exists()]
        edit.path.parent.mkdir(parents=True, exist_ok=True)
        write_text(edit.path, edit.after)
        if remove:
            setup_ledger.forget(edit.path)
        else:
            setup_ledger.note(edit.path, edit.before is None, edit.created, folders)


def setup(ctx: Ctx, client_name: str, dry_run: bool = False, remove: bool = False,
          config: str | None = None, agent: str | None = None) -> Result:
    """Set up (or, `remove`, take out) `client` for this plan; journaled as `agent` (or the person)
    when a file changed."""
    client = CLIENTS[client_name]
    repo = ctx.paths().repo.absolute()
    try:
        edits, server = plan_edits(ctx, client, repo, remove, config)
    except Refusal as exc:
        raise _refused(ctx, client, exc, remove) from exc
    changed = [{"file": e.label, "op": e.action} for e in edits if e.action != "unchanged"]
    if not dry_run and changed:
        apply(edits, remove)
        record(ctx, "setup", None, {}, actor=agent, client=client.name, removed=remove or None, files=changed)
    return _answer(ctx, client, edits, server, dry_run, remove)


def _refused(ctx: Ctx, client: Client, exc: Refusal, remove: bool) -> CommandError:
    where = f"{exc.file}" + (f" line {exc.line}" if exc.line else "")
    conflict = exc.code in ("foreign_file", "foreign_entry")
    what = "move it aside or edit it by hand" if conflict else "fix it"
    return CommandError(
        exc.code, f"setup {client.name}: {where}: {exc.why}; nothing was written",
        fix(ctx.cmd("setup", client.name, dry_run=True, remove=remove or None),
            f"{what} ({where}), then run setup again"),
        exit_code=EXIT_CONFLICT if conflict else EXIT_FAILURE, category="conflict" if conflict else "io",
        source=("file", None), details={"file": exc.file, "line": exc.line},
        mutation=Mutation("setup", "remove" if remove else "setup", False, exc.why))


SHOWN_SERVERS = 20  # names the line shows; how many more it says (20 harmless names hid the 21st)


def _server_name(name: str) -> str:
    """A server's name as the line shows it: bare when it is a plain name, else quoted (a name holding
    `, ` read as two servers on the line)."""
    shown = clean(name, 60)
    plain = shown and all(c.isascii() and (c.isalnum() or c in "_.-@/:") for c in shown)
    return shown if plain else json.dumps(shown, ensure_ascii=False)


def other_servers(client: Client, edits: list[Edit]) -> list[str]:
    """The MCP servers other than Leafwise's that the client's JSON config names once setup is done."""
    names: list[str] = []
    for edit in edits:
        if client.format == "toml" or edit.after is None or not edit.label.endswith(".json"):
            continue
        try:
            data = setup_json.parse(edit.after)
        except reader.Refused:
            continue
        servers = data.get(client.servers) if isinstance(data, dict) else None
        if isinstance(servers, dict):
            names += [str(k) for k in servers if k != SERVER and str(k) not in names]
    return names


def _answer(ctx: Ctx, client: Client, edits: list[Edit], server: dict[str, Any], dry_run: bool,
            remove: bool) -> Result:
    changed = [e for e in edits if e.action != "unchanged"]
    verb = {"create": "created", "update": "updated", "remove": "removed", "unchanged": "unchanged"}
    lines = [f"{'Would change' if dry_run else 'Setup for'} {client.title}"
             + (" (dry run: nothing written)" if dry_run else "")]
    files = []
    for edit in edits:
        lines.append(f"  {(edit.action if dry_run else verb[edit.action]):10} {edit.label}")
        diff = edit.diff() if dry_run else []
        lines += ["    " + d for d in diff]
        files.append({"path": edit.label, "action": edit.action, "diff": diff or None})
    others = other_servers(client, edits)
    if others:  # a cloned project's own config may name servers the person never chose: say so
        more = f" and {len(others) - SHOWN_SERVERS:,} more (setup --json lists them)" if len(others) > SHOWN_SERVERS else ""
        lines.append(f"  other MCP servers these files name, kept as they are (check you trust each): "
                     f"{', '.join(_server_name(name) for name in others[:SHOWN_SERVERS])}{more}")
    snippet = {client.servers: {SERVER: server}}
    if not client.config and not remove:
        import json

        lines += ["  the MCP entry for your client's config:", *("    " + s for s in json.dumps(
            snippet, indent=2).splitlines())]
    result = {"client": client.name, "dry_run": dry_run, "removed": remove, "server": server,
              "mcp_json": snippet, "files": files, "other_servers": others}
    mutation = Mutation("setup", "remove" if remove else "setup", bool(changed) and not dry_run,
                        "nothing to change" if not changed else "dry run" if dry_run else "files written",
                        [{"file": e.label, "op": e.action} for e in changed])
    if dry_run and changed:
        hint = next_(ctx.cmd("setup", client.name, remove=remove or None), "write these changes")
    elif remove:
        hint = done("setup's entries are gone; the rest of each file is as it was")
    else:
        hint = next_(ctx.cmd("context"), f"restart {client.title} to load the server; its session starts here")
    return Result(result, hint, lines, mutation)
