"""Evidence a plan declares or a repository's history gives: `done_when:` checks
and commit messages that name a node.

    done_when:
      - {file: "app/**/export*.py"}        a tracked file matches the glob
      - {symbol: export_orders_csv}       a function, class or component of that name is defined
      - {route: "GET /admin/orders/export"}  a route with that method and path (params in any style)
      - {test: "test_password_reset"}     a test whose name or title starts with it
      - {command: "make check"}           the command exits 0 (run in the repository, with a timeout)

A declared check is the author's own definition of done: all passing is
shipped, any failing means not shipped, whatever the code search says.

A `command` check comes from a plan file, which anyone (a prompt-injected
agent, a merge) may have written: it runs only when the person approved that
exact command for this plan (`leafwise trust`, store/trust.py). Without that
it is "not run", which never counts as passing.
"""

from __future__ import annotations

import bisect
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leafwise.commands.reconcile import issue_links
from leafwise.commands.reconcile.artifacts import Artifact, Index
from leafwise.store import git, linear, reader
from leafwise.store.globs import MAX_GLOB, matches
from leafwise.store.ids import ID_TEXT, find_ids

CHECK_KINDS = ("file", "symbol", "route", "test", "command")
COMMAND_TIMEOUT = 120
_PARAM = linear.compile(r"\{[^}]*\}|<[^>]*>|:\w+|\[[^\]]*\]")
CLOSING_WORDS = r"(?:close[sd]?|closing|fix(?:e[sd])?|resolve[sd]?|complete[sd]?|implement(?:s|ed)?|done|ship(?:s|ped)?|finish(?:es|ed)?)"
# "closes T-12", "T-12 done": a closing word and an id at most 3 non-word characters apart, either way
# round, found in one pass over a message (an id's case as the message spells it: compared upper-case).
CLOSING = rf"{CLOSING_WORDS}\W{{1,3}}({ID_TEXT})\b|\b({ID_TEXT})(?=\W{{1,3}}{CLOSING_WORDS}\b)"  # the word after an id
# stays unread: "T-1 closes T-2" closes both
MAX_IDS_PER_MESSAGE = 200  # a message naming thousands of ids (planted) links the first 200
DEFINES = r"(?:\bdef|\bclass|\bfunction|\bconst|\blet|\bvar|\bfunc|\bfn|\btype|\binterface)\s+{name}\b"


@dataclass(slots=True)
class CheckResult:
    kind: str
    value: str
    passed: bool
    path: str | None = None
    line: int | None = None
    snippet: str = ""

    @property
    def label(self) -> str:
        return f"{self.kind}: {self.value}"


def declared(node_data: dict[str, Any]) -> list[tuple[str, str]]:
    """The node's `done_when` checks as (kind, value); malformed entries are reported as such."""
    raw = node_data.get("done_when") or []
    if not isinstance(raw, list):
        raw = [raw]
    out: list[tuple[str, str]] = []
    for item in raw:
        if isinstance(item, dict):
            out += [(str(k).strip().lower(), str(v).strip()) for k, v in item.items()]
        elif isinstance(item, str) and ":" in item:
            kind, _, value = item.partition(":")
            out.append((kind.strip().lower(), value.strip()))
        else:
            out.append(("invalid", str(item)))
    return out


MAX_CHECKS = 100  # declared checks of one node evaluated: a node file can declare thousands
MAX_GLOBS = 200  # distinct `file:` globs matched against every file, per run
MAX_SEARCHES = 20  # `symbol:` names no index covers, searched for in every file, per run
_WORD = re.compile(r"\w+")
# where any name is defined: the keyword, then (looking ahead, so `def class Foo` finds both) the name
_DEFINED = re.compile(r"(?:\bdef|\bclass|\bfunction|\bconst|\blet|\bvar|\bfunc|\bfn|\btype|\binterface)(?=\s+(\w+))")


@dataclass(slots=True)
class _Lookups:
    """What declared checks look things up in, built once per index: each check then costs a lookup, not
    a walk over every artifact and a search of every file (a node file can declare thousands)."""

    symbols: dict[str, Artifact]  # short name -> the first symbol, model, component, page or field so named
    tests: list[tuple[str, int]]  # (short name lower-cased, position), sorted
    routes: dict[str, dict[str, tuple[int, Artifact]]]  # normal route -> method ("*": ANY, ALL) -> the first such
    found: dict[tuple[str, str], CheckResult | None] = field(default_factory=dict)
    defined: dict[str, tuple[str, int]] | None = None  # name -> (file, offset) of its first definition
    globs: int = 0
    searches: int = 0


def _lookups(index: Index) -> _Lookups:
    look = index.lookups
    if isinstance(look, _Lookups):
        return look
    symbols: dict[str, Artifact] = {}
    tests: list[tuple[str, int]] = []
    routes: dict[str, dict[str, tuple[int, Artifact]]] = {}
    for at, art in enumerate(index.artifacts):
        short = art.name.split(".")[-1]
        if art.kind in ("symbol", "model", "component", "page", "field"):
            symbols.setdefault(short, art)
        elif art.kind == "test":
            tests.append((short.lower(), at))
        elif art.kind == "route" and art.route is not None:
            method = "*" if art.method in ("ANY", "ALL") else str(art.method)
            routes.setdefault(normal_route(art.route), {}).setdefault(method, (at, art))
    tests.sort()
    index.lookups = look = _Lookups(symbols, tests, routes)
    return look


def run_checks(checks: list[tuple[str, str]], index: Index, allow_commands: bool = True) -> list[CheckResult]:
    results = []
    for at, (kind, value) in enumerate(checks):
        if at >= MAX_CHECKS:
            results.append(CheckResult(kind, value, False, snippet=f"not checked: a node's first {MAX_CHECKS} "
                                                                   "declared checks are"))
            continue
        if kind == "file":
            results.append(_file(index, value))
        elif kind == "symbol":
            results.append(_symbol(index, value))
        elif kind == "route":
            results.append(_route(index, value))
        elif kind == "test":
            results.append(_test(index, value))
        elif kind == "command" and allow_commands:
            results.append(_command(index, value))
        else:
            why = "commands are not run here" if kind == "command" else f"unknown check kind (use {', '.join(CHECK_KINDS)})"
            results.append(CheckResult(kind, value, False, snippet=why))
    return results


def _file(index: Index, glob: str) -> CheckResult:
    if len(glob) > MAX_GLOB:
        return CheckResult("file", glob, False, snippet=f"not checked: a glob is at most {MAX_GLOB:,} characters")
    look = _lookups(index)
    if ("file", glob) not in look.found:
        if look.globs >= MAX_GLOBS:
            return CheckResult("file", glob, False, snippet=f"not checked: a run matches at most {MAX_GLOBS} globs")
        look.globs += 1
        hit = next((f for f in index.files if matches(glob.lstrip("./"), f)), None)  # linear: the glob is untrusted
        look.found[("file", glob)] = CheckResult("file", glob, hit is not None, hit, 1 if hit else None, hit or "")
    return _copy(look.found[("file", glob)])


def _copy(result: CheckResult | None) -> CheckResult:
    assert result is not None
    return CheckResult(result.kind, result.value, result.passed, result.path, result.line, result.snippet)


def _symbol(index: Index, name: str) -> CheckResult:
    look = _lookups(index)
    art = look.symbols.get(name)
    if art is not None:
        return CheckResult("symbol", name, True, art.path, art.line, art.snippet)
    if _WORD.fullmatch(name):  # a plain name: where it is defined, from one pass over the files
        if look.defined is None:
            look.defined = {}
            for rel, text in index.texts.items():
                for m in _DEFINED.finditer(text):
                    look.defined.setdefault(m.group(1), (rel, m.start()))
        at = look.defined.get(name)
        return _defined_at(index, name, at[0], at[1]) if at else CheckResult("symbol", name, False)
    if look.searches >= MAX_SEARCHES:
        return CheckResult("symbol", name, False, snippet=f"not checked: a run searches every file for at most "
                                                          f"{MAX_SEARCHES} such names")
    look.searches += 1
    pattern = re.compile(DEFINES.format(name=re.escape(name)))
    for rel, text in index.texts.items():
        m = pattern.search(text)
        if m:
            return _defined_at(index, name, rel, m.start())
    return CheckResult("symbol", name, False)


def _defined_at(index: Index, name: str, rel: str, offset: int) -> CheckResult:
    text = index.texts[rel]
    line = text.count("\n", 0, offset) + 1
    return CheckResult("symbol", name, True, rel, line, reader.lines(text)[line - 1].strip()[:160])


def normal_route(path: str) -> str:
    return _PARAM.sub("{}", "/" + path.strip().strip("/")).lower()


def _route(index: Index, value: str) -> CheckResult:
    method, _, path = value.strip().partition(" ")
    if not path:
        method, path = "ANY", method
    method, wanted = method.upper(), normal_route(path)
    by_method = _lookups(index).routes.get(wanted, {})
    fits = list(by_method.values()) if method == "ANY" else [a for a in (by_method.get(method), by_method.get("*")) if a]
    if fits:
        art = min(fits, key=lambda fit: fit[0])[1]  # the first in the index's order
        return CheckResult("route", value, True, art.path, art.line, art.snippet)
    return CheckResult("route", value, False)


def _test(index: Index, pattern: str) -> CheckResult:
    """The first test (in the index's order) whose short name starts with the pattern; each prefix looked
    up once a run, so all lookups together cost at most the characters of the tests' names."""
    wanted = pattern.strip().lower()
    look = _lookups(index)
    if ("test", wanted) not in look.found:
        tests = look.tests
        at, first = bisect.bisect_left(tests, (wanted, -1)), None
        while at < len(tests) and tests[at][0].startswith(wanted):
            first = tests[at][1] if first is None else min(first, tests[at][1])
            at += 1
        art = index.artifacts[first] if first is not None else None
        look.found[("test", wanted)] = CheckResult("test", "", True, art.path, art.line, art.snippet) if art else None
    hit = look.found[("test", wanted)]
    if hit is None:
        return CheckResult("test", pattern, False)
    return CheckResult("test", pattern, True, hit.path, hit.line, hit.snippet)


NOT_TRUSTED = "not run: this command from a plan file is not trusted here"


def untrusted_commands(node_data: dict[str, Any], root: Path) -> list[str]:
    """The node's `command` checks that the person has not approved for the plan at `root`."""
    from leafwise.store import trust

    return [value for kind, value in declared(node_data) if kind == "command" and not trust.is_trusted(root, value)]


def _command(index: Index, cmd: str) -> CheckResult:
    from leafwise.store import trust

    if not trust.is_trusted(index.root, cmd):  # the consent gate: nothing from a plan file runs unasked
        key = trust.short(trust.digest(index.root, cmd))
        return CheckResult("command", cmd, False, snippet=f"{NOT_TRUSTED}: a person approves it first (leafwise trust; hash {key})")
    try:
        proc = subprocess.run(cmd, shell=True, cwd=index.root, capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT)
    except subprocess.TimeoutExpired:
        return CheckResult("command", cmd, False, snippet=f"timed out after {COMMAND_TIMEOUT} s")
    tail = (proc.stdout.strip().splitlines() or proc.stderr.strip().splitlines() or [""])[-1][:120]
    return CheckResult("command", cmd, proc.returncode == 0, snippet=f"exit {proc.returncode}" + (f": {tail}" if tail else ""))


@dataclass(slots=True)
class Commit:
    sha: str
    subject: str
    closes: bool  # "closes BOOK-7", "BOOK-7 done": the author said it is finished


def commits_by_node(root: Path, limit: int = 5000, issues: Mapping[str, str] | None = None
                    ) -> dict[str, list[Commit]]:
    """Commits whose message names a node, by its id or (`issues`, issue_links.references) by the GitHub
    issue it was imported from, newest first (empty outside git). A revert, and a commit a later one
    reverts, close nothing."""
    try:
        out = git.run_git(root, "log", f"-n{limit}", "--format=%H%x1f%s%x1f%b%x1e", "--", git.pin(root).rel(root),
                          deadline=30)
    except git.GitError:
        return {}
    found: dict[str, list[Commit]] = {}
    undone: set[str] = set()  # shas and subjects reverted; newest first: a revert is read before its commit
    lengths: set[int] = set()
    for record in out.decode("utf-8", "replace").split("\x1e"):
        parts = record.strip("\n").split("\x1f")
        if len(parts) < 3:
            continue
        sha, subject, body = parts[0].strip(), parts[1], parts[2]
        if not git.object_id(sha):  # a message holding the format's separators forged this record
            continue
        message = f"{subject}\n{body}"
        reverts = issue_links.reverted(message)
        is_undone = f"subject:{subject}" in undone or any(sha[:n] in undone for n in lengths)
        if reverts is not None and not is_undone:  # a revert itself reverted (git's `Reapply "…"`) undoes nothing
            undone.update(reverts[0] + [f"subject:{reverts[1]}"] if reverts[1] is not None else reverts[0])
            lengths.update(len(s) for s in reverts[0])
        counts = reverts is None and not is_undone
        closed = {m.group(1) or m.group(2) for m in re.finditer(CLOSING, message, re.I)  # one pass
                  if not issue_links.negated(message, m.start())}
        closed = {node_id.upper() for node_id in closed}
        named = {node_id: node_id.upper() in closed for node_id in
                 list(dict.fromkeys(find_ids(message)))[:MAX_IDS_PER_MESSAGE]}
        for node_id, closes in issue_links.named(message, issues or {}).items():
            named[node_id] = named.get(node_id, False) or closes
        for node_id, closes in named.items():
            found.setdefault(node_id, []).append(Commit(sha, subject.strip()[:160], closes and counts))
    return found
