"""`doctor`: is the installation healthy, and the plan folder it finds?

Versions, the envelope schema this version ships, the plan's root, schema,
cache, journal, claims, symbolic links and stray temporary files: one check
each, with a fix (a leafwise command where one exists).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leafwise.commands.adoption.interrupted import problems as interrupted_import
from leafwise.commands.contract import Result, next_, quote
from leafwise.commands.plan_files import find_problems
from leafwise.commands.registry import Ctx
from leafwise.store import PlanNotFound, find_root
from leafwise.store import claims as leases
from leafwise.store import reader
from leafwise.store.cache import stat_key
from leafwise.store.loader import PROJECT_KEY, cache_for
from leafwise.store.paths import PLAN_DIR, RECREATED, PlanPaths, confinement_problem
from leafwise.store.writer import sweep_temp_files

SCHEMA_FILE = Path(__file__).parent.parent / "envelope.schema.json"  # commands/envelope.schema.json
SUPPORTED_SCHEMA = 1  # the project.yaml `schema:` this version reads and writes


def envelope_schema_text() -> str:
    """The JSON Schema of the result envelope as shipped in commands/ (read by the one reader)."""
    return reader.read_text(SCHEMA_FILE, reader.SCHEMA, strict=True)


def envelope_schema() -> dict[str, Any]:
    """The JSON Schema of the result envelope, parsed."""
    return reader.load_json(envelope_schema_text(), reader.SCHEMA)


@dataclass(slots=True)
class Check:
    name: str
    severity: str  # ok | info | warning | error
    message: str
    fix: str | None = None  # a command (a leafwise one where one exists)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "severity": self.severity, "message": self.message, "fix": self.fix}


def _version(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _install_checks() -> list[Check]:
    import yaml

    checks = [Check("python", "ok" if sys.version_info >= (3, 11) else "error",
                    f"Python {sys.version.split()[0]}", None if sys.version_info >= (3, 11) else "install Python 3.11+")]
    leafwise = _version("leafwise")
    checks.append(Check("leafwise", "ok" if leafwise else "warning",
                        f"leafwise {leafwise}" if leafwise else "leafwise runs from source, not installed",
                        None if leafwise else "pip install -e ."))
    checks.append(Check("yaml_c_loader", "ok" if getattr(yaml, "__with_libyaml__", False) else "warning",
                        "PyYAML with libyaml (fast reads)" if getattr(yaml, "__with_libyaml__", False)
                        else "PyYAML without libyaml: plan reads are several times slower",
                        None if getattr(yaml, "__with_libyaml__", False) else "pip install --force-reinstall pyyaml"))
    for dist, minimum, purpose in (("mcp", (2, 3), "leafwise mcp"), ("textual", (8, 0), "the canvas")):
        found = _version(dist)
        major_minor = tuple(int(x) for x in found.split(".")[:2] if x.isdigit()) if found else ()
        good = bool(found) and major_minor >= minimum
        checks.append(Check(dist, "ok" if good else "warning",
                            f"{dist} {found}" if good else f"{dist} {found or 'missing'}: {purpose} needs "
                            f">={minimum[0]}.{minimum[1]}", None if good else f"pip install '{dist}>={minimum[0]}.{minimum[1]}'"))
    checks.append(_watcher_check())
    try:
        schema = envelope_schema()
        ok = schema.get("$schema", "").endswith("2020-12/schema")
        checks.append(Check("envelope_schema", "ok" if ok else "error", f"{SCHEMA_FILE.name} shipped"
                            if ok else f"{SCHEMA_FILE.name} is not a draft 2020-12 schema", None if ok else
                            "pip install --force-reinstall leafwise"))
    except (OSError, ValueError) as exc:
        checks.append(Check("envelope_schema", "error", f"{SCHEMA_FILE.name} unreadable: {exc}",
                            "pip install --force-reinstall leafwise"))
    return checks


def _watcher_check() -> Check:
    from importlib.util import find_spec

    if find_spec("watchfiles") is None:
        return Check("watcher", "warning", "watchfiles missing: the canvas cannot follow agents' writes live",
                     "pip install watchfiles")
    limit = Path("/proc/sys/fs/inotify/max_user_watches")
    if sys.platform.startswith("linux") and limit.is_file():
        try:
            watches = int(reader.read_text(limit, reader.SYSTEM).strip() or 0)
        except (OSError, ValueError):  # reader.Refused too: the limit cannot be told
            return Check("watcher", "ok", f"watchfiles {_version('watchfiles')} (inotify, limit unknown)")
        if watches < 1024:
            return Check("watcher", "warning", f"inotify allows only {watches} watches",
                         "sudo sysctl fs.inotify.max_user_watches=65536")
        return Check("watcher", "ok", f"watchfiles {_version('watchfiles')} (inotify, {watches} watches)")
    return Check("watcher", "ok", f"watchfiles {_version('watchfiles')}")


def cache_state(paths: PlanPaths) -> tuple[str, str]:
    """(state, message): fresh, missing, stale or unreadable. Reads only."""
    cache = cache_for(paths)
    if not cache.path.exists():
        return "missing", "no node cache yet (built on the next read)"
    entries = cache.read()
    if not entries:
        return "unreadable", "the node cache is unreadable or from another version"
    try:
        files = {e.name: e.stat() for e in os.scandir(paths.nodes) if e.name.endswith(".yaml")
                 and not e.name.startswith(".")}
        files[PROJECT_KEY] = paths.project_file.stat()
    except OSError:
        files = {}
    stale = sum(1 for name, st in files.items()
                if name not in entries or entries[name][0] != stat_key(st))
    stale += sum(1 for name in entries if name not in files)
    if stale:
        return "stale", f"{stale} cache entr{'y is' if stale == 1 else 'ies are'} out of date (refreshed on read)"
    return "fresh", f"node cache fresh ({len(entries) - 1} files)"


def _plan_checks(ctx: Ctx) -> list[Check]:
    try:
        paths = find_root(ctx.cwd, ctx.root, confined=False)  # found, to name what is wrong in it
    except PlanNotFound as exc:
        return [Check("root", "error", str(exc), ctx.cmd("init"))]
    if (unsafe := confinement_problem(paths.repo)) is not None:  # nothing is read through it
        return [*_symlink_checks(paths), Check("root", "error", f"plan at {paths.dir} is not used: {unsafe}",
                                               ctx.cmd("repair") if unsafe.repairable else f"rm {quote(unsafe.rel)}")]
    ctx.use_paths(paths)
    checks = [Check("root", "ok", f"plan at {paths.dir}")]
    state, message = cache_state(paths)  # before anything loads the plan and refreshes the cache
    checks.append(Check("cache", {"fresh": "ok", "missing": "info", "stale": "info"}.get(state, "warning"),
                        message, None if state in ("fresh", "missing") else ctx.cmd("repair")))
    plan = ctx.plan()
    schema = plan.project.schema
    checks.append(Check("schema", "ok" if schema == SUPPORTED_SCHEMA else "error",
                        f"schema {schema}" + ("" if schema == SUPPORTED_SCHEMA else
                                              f"; this leafwise reads schema {SUPPORTED_SCHEMA}"),
                        None if schema == SUPPORTED_SCHEMA else "pip install -U leafwise"))
    target = paths.journal if paths.journal.exists() else paths.dir
    writable = os.access(target, os.W_OK)
    checks.append(Check("journal", "ok" if writable else "error",
                        f"{PLAN_DIR}/journal.jsonl writable" if writable else f"{target} is not writable",
                        None if writable else f"chmod u+w {target}"))
    checks += [Check("import", p.severity, p.message, p.fix) for p in interrupted_import(paths, ctx.cmd("repair"))]
    problems = find_problems(plan, ctx.cmd)
    errors = [p for p in problems if p.severity == "error"]
    checks.append(Check("validator", "error" if errors else "info" if problems else "ok",
                        f"{len(errors)} error(s), {len(problems) - len(errors)} warning(s) in {len(plan.nodes)} nodes",
                        ctx.cmd("validate") if problems else None))
    expired = [c for c in leases.read_all(paths).values() if c.expired(ctx.clock())]
    checks.append(Check("claims", "warning" if expired else "ok",
                        f"{len(expired)} expired claim(s) left behind" if expired else "no expired claims",
                        ctx.cmd("repair") if expired else None))
    checks += _symlink_checks(paths)
    checks += _ignored_check(paths)
    strays = sweep_temp_files(paths, dry_run=True)
    checks.append(Check("temp_files", "warning" if strays else "ok",
                        f"{len(strays)} stray temporary file(s), e.g. {strays[0].name}" if strays
                        else "no stray temporary files", ctx.cmd("repair") if strays else None))
    return checks


# The plan's own content, which every clone must get (Leafwise's .leafwise/.gitignore keeps its caches out)
# (the verification loop's verdicts too: a person's reading of an agent's work)
SHARED = ("nodes", "docs", "diagrams", "cycles", "project.yaml", "journal.jsonl", "verdicts")


def _ignored_check(paths: PlanPaths) -> list[Check]:
    """Plan files git will never commit: a repository's .gitignore (a pull request's `.leafwise/nodes/*`
    with `!` lines for the files there) hides every new node while add and edit work and validate is
    clean. No check outside git."""
    from leafwise.store import git

    try:
        repo = git.pin(paths.repo)
        out = git.run_git(paths.repo, "ls-files", "-z", "-o", "-i", "--exclude-standard", "--",
                          *(repo.rel(paths.dir / name) for name in SHARED), limit=1 << 20)
    except git.GitError:
        return []
    hidden = [name for name in out.decode("utf-8", "surrogateescape").split("\0") if name]
    if not hidden:
        return [Check("ignored", "ok", "git ignores none of the plan's files")]
    return [Check("ignored", "warning", f"git ignores {len(hidden)} plan file(s), e.g. {quote(hidden[0])}: they are "
                  f"never committed, so no clone sees them (`git check-ignore -v {quote(hidden[0])}` names the rule)")]


def _symlink_checks(paths: PlanPaths) -> list[Check]:
    """Every symbolic link in the plan folder (and the folder itself): Leafwise never writes through one."""
    found: list[Path] = [paths.dir] if paths.dir.is_symlink() else _links_under(paths.dir)
    if not found:
        return [Check("symlinks", "ok", "no symbolic links in the plan folder")]
    checks = []
    for link in found[:20]:
        rel = os.path.relpath(link, paths.repo)
        try:
            target = os.readlink(link)
        except OSError:
            target = "?"
        own = link.parent == paths.dir and link.name in RECREATED
        checks.append(Check("symlinks", "warning",
                            f"{rel} is a symbolic link to {target}; Leafwise never reads or writes plan files "
                            "through a link: replace it with the real file or folder",
                            f"rm {quote(rel)}" if own else None))
    if len(found) > 20:
        checks.append(Check("symlinks", "warning", f"and {len(found) - 20} more symbolic link(s)"))
    return checks


def _links_under(top: Path, limit: int = 100_000) -> list[Path]:
    """The symbolic links under `top`, looking at no more than `limit` entries: a linked folder is
    listed, never entered. (`reader.walk` lists only regular files, so it cannot name links.)"""
    found: list[Path] = []
    stack, seen = [top], 0
    while stack and seen < limit:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    seen += 1
                    if entry.is_symlink():
                        found.append(Path(entry.path))
                    elif entry.is_dir(follow_symlinks=False) and entry.name != ".git":
                        stack.append(Path(entry.path))
        except OSError:
            continue
    return sorted(found)


def doctor(ctx: Ctx) -> Result:
    """Every install and plan check, each with its fix; the next action is the worst one's own fix."""
    checks = _install_checks() + _plan_checks(ctx)
    counts = {s: sum(1 for c in checks if c.severity == s) for s in ("ok", "info", "warning", "error")}
    marks = {"ok": "ok  ", "info": "info", "warning": "WARN", "error": "FAIL"}
    lines = []
    for c in checks:  # one body line per line: text output shows a newline inside a line as ␊
        lines.append(f"  {marks[c.severity]}  {c.name:16} {c.message}")
        if c.fix:
            lines.append(f"        to fix: {c.fix}")
    lines.append(", ".join(f"{n} {s}" for s, n in counts.items()))
    worst = [c for sev in ("error", "warning") for c in checks if c.severity == sev and c.fix]
    own = next((c for c in worst if c.fix and c.fix.startswith("leafwise ")), None)
    if own is not None:
        action = next_(own.fix, f"{own.name}: {own.message}")
    elif worst:
        action = next_(ctx.cmd("doctor"), f"run `{worst[0].fix}`, then check again")
    else:
        action = next_(ctx.cmd("context"), "the installation and the plan are healthy")
    return Result({"healthy": not counts["error"], "counts": counts, "checks": [c.as_dict() for c in checks]},
                  action, lines)
