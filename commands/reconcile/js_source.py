"""JavaScript/TypeScript artifacts for reconcile: Express-style routes with their
mount prefixes, React Router / Vue client routes, UI
components, jest/vitest/mocha tests, CLI scripts, models, symbols. File-based routes
(Next.js, Remix, SvelteKit, Nuxt, TanStack Router) are `file_routes.py`'s."""

from __future__ import annotations

import posixpath
import re
from pathlib import PurePosixPath

from leafwise.commands.reconcile import file_routes
from leafwise.commands.reconcile.artifacts import Index, Source, join_route, route_words
from leafwise.commands.reconcile.text import identifier_concepts
from leafwise.store import linear, reader

_APP_VAR = re.compile(
    r"\b(?:const|let|var)\s+(\w+)\s*=\s*(?:express(?:\.Router)?\s*\(|(?:express\.)?Router\s*\(|new\s+(?:Hono|Koa|Router)\b"
    r"|fastify\s*\(|Fastify\s*\()")
_REQUIRE_VAR = re.compile(r"""\b(?:const|let|var)\s+(\w+)\s*=\s*require\(\s*['"]([^'"]+)['"]\s*\)""")
_IMPORT_VAR = re.compile(r"""\bimport\s+(\w+)\s+from\s+['"]([^'"]+)['"]""")
_USE = re.compile(r"""\b(\w+)\.use\(\s*['"`]([^'"`]+)['"`]\s*,([^\n;]*)""")
_REQUIRE = re.compile(r"""require\(\s*['"]([^'"]+)['"]\s*\)""")
_ROUTE = re.compile(r"""\b(\w+)\.(get|post|put|patch|delete|all)\(\s*(['"`])(/[^'"`]*)\3""")
_CHAIN = re.compile(r"""\b(\w+)\.route\(\s*['"`](/[^'"`]*)['"`]\s*\)((?:\s*\.(?:get|post|put|patch|delete)\([^;]*)+)""")
_CHAIN_METHOD = re.compile(r"\.(get|post|put|patch|delete)\(")
_HANDLER = re.compile(r""",\s*(?:require\(\s*['"]([^'"]+)['"]\s*\)|([A-Za-z_$][\w.$]*))\s*\)\s*(?:;\s*)?$""")
_ROUTE_TAG = re.compile(r"<Route\b([^<>]*?(?:<[^<>]*>[^<>]*?)*?)/?>", re.S)
_PATH_ATTR = re.compile(r"""\bpath\s*[=:]\s*(?:\{\s*)?['"`]([^'"`]*)['"`]""")
_ELEMENT = re.compile(r"""(?:element\s*[=:]\s*(?:\{\s*)?<|[Cc]omponent\s*[=:]\s*(?:\{\s*)?)([A-Z]\w*)""")
_ROUTE_OBJ = re.compile(r"""\{\s*path\s*:\s*['"`]([^'"`]*)['"`]\s*,\s*(?:element\s*:\s*<\s*(?:\w+\s*>\s*<\s*)?|[Cc]omponent\s*:\s*)([A-Z]\w*)""")
_COMPONENT = re.compile(
    r"(?:export\s+default\s+function\s+([A-Z]\w*)|\bfunction\s+([A-Z]\w*)\s*\("
    r"|\b(?:const|let)\s+([A-Z]\w*)\s*(?::[^=]+)?=\s*(?:\([^)]*\)|\w+)\s*=>"
    r"|\b(?:const|let)\s+([A-Z]\w*)\s*=\s*(?:React\.)?(?:memo|forwardRef)\("
    r"|\bclass\s+([A-Z]\w*)\s+extends\s+(?:React\.)?(?:Pure)?Component\b)")
# A test's title in each quote, spelled out (no backreference): every character has exactly one way to
# match (`[^"\\\n]` or an escape), and RE2 runs it in linear time (`test("` + 120 backslashes hung `re`).
TEST_TITLE = linear.compile(r"""\b(describe|context|test|it)(?:\.(?:only|skip|concurrent|each\([^)]*\)))?\(\s*"""
                       r"""(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\\n]|\\.)*)`)""")
_UNESCAPE = linear.compile(r"\\(.)")
_JSON_STRING = linear.compile(r'"((?:[^"\\\n]|\\.)*)"')
# A type or parameter list is bounded: unbounded, each of 30,000 'let a:' on one line scanned to the line's end.
SYMBOL = re.compile(
    r"(?:\bfunction\s*(?:\*\s*)?([A-Za-z_$][\w$]*)\s*\("
    r"|\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=\n]{1,300})?=\s*(?:async\s+)?(?:function\b|\([^)\n]{0,300}\)\s*(?::[^=\n]{1,300})?=>|[A-Za-z_$][\w$]*\s*=>)"
    r"|\bclass\s+([A-Za-z_$][\w$]*))")
_METHOD = re.compile(r"^[ \t]+(?:async\s+)?([a-z_$][\w$]*)\s*(?::\s*(?:async\s*)?(?:\([^)\n]*\)|\w+)\s*=>|\([^)\n]*\)\s*\{)", re.M)
_COMMAND = re.compile(r"""\.command\(\s*['"]([\w:-]+)""")
_MODEL = re.compile(r"""(?:mongoose\.model|\.define|model)\(\s*['"]([A-Za-z]\w*)['"]""")
_KEYWORDS = frozenset({"if", "for", "while", "switch", "catch", "return", "function", "constructor", "render"})
LIFECYCLE = frozenset({"test", "build", "dev", "start", "lint", "format", "prepare", "prepublish", "postinstall",
                       "preinstall", "install", "serve", "watch", "typecheck", "clean", "preview", "coverage"})


def scan(index: Index, sources: list[Source], files: list[str] | None = None) -> None:
    """Every JS/TS artifact of `sources` (the index builder does the same per file, with a cache)."""
    by_rel = {s.rel: s for s in sources}
    mounts = mount_prefixes(sources, by_rel)
    routes = file_routes.Context.of([s for s in sources if s.path.name == "package.json"],
                                    files if files is not None else list(by_rel))
    routed: dict[str, list[str]] = {}
    for src in sources:
        if src.path.name == "package.json":
            package(index, src, by_rel)
            continue
        for comp, path in scan_file(index, src, mounts.get(src.rel, [""])):
            routed.setdefault(comp, []).append(path)
        file_routes.scan_file(index, src, routes)
    pages_of_routes(index, routed)


def scan_file(index: Index, src: Source, prefixes: list[str]) -> list[tuple[str, str]]:
    """One file's own artifacts (its routes mounted under `prefixes`); returns the (component,
    path) pairs of the client routes it declares, for `pages_of_routes`."""
    if src.is_test:
        _tests(index, src)
        return []
    routed: list[tuple[str, str]] = []
    _server_routes(index, src, prefixes)
    _client_routes(index, src, routed)
    _components(index, src)
    _symbols(index, src)
    _cli(index, src)
    for m in _MODEL.finditer(src.text):
        src.add(index, "model", m.group(1), m.start(1), identifier_concepts(m.group(1)))
    return routed


def pages_of_routes(index: Index, routed: dict[str, list[str]]) -> None:
    """A component that a client route renders is a page: it gets the route's words."""
    for art in index.artifacts:
        if art.kind == "component" and art.name in routed:
            art.kind = "page"
            art.route = routed[art.name][0]
            art.words = art.words | identifier_concepts(*routed[art.name])


def _resolve(src: Source, spec: str, by_rel: dict[str, Source]) -> str | None:
    if not spec.startswith("."):
        return None
    base = posixpath.normpath(posixpath.join(str(src.path.parent), spec))
    for cand in (base, *(base + e for e in (".js", ".ts", ".mjs", ".cjs", ".jsx", ".tsx")),
                 *(base + "/index" + e for e in (".js", ".ts"))):
        if cand in by_rel:
            return cand
    return None


def mount_prefixes(sources: list[Source], by_rel: dict[str, Source]) -> dict[str, list[str]]:
    """`app.use('/api/tasks', require('./routes/tasks'))` → {'server/routes/tasks.js': ['/api/tasks']}."""
    found: dict[str, list[str]] = {}
    for src in sources:
        if ".use(" not in src.text:
            continue
        names = {m.group(1): m.group(2) for m in _REQUIRE_VAR.finditer(src.text)}
        names.update({m.group(1): m.group(2) for m in _IMPORT_VAR.finditer(src.text)})
        for m in _USE.finditer(src.text):
            prefix, rest = m.group(2), m.group(3)
            spec = _REQUIRE.search(rest)
            target = spec.group(1) if spec else None
            if target is None:
                idents = re.findall(r"[A-Za-z_$][\w$]*", rest)
                target = next((names[i] for i in reversed(idents) if i in names), None)
            rel = _resolve(src, target, by_rel) if target else None
            if rel:
                found.setdefault(rel, []).append(prefix)
    return found


def _server_routes(index: Index, src: Source, prefixes: list[str]) -> None:
    text = src.text
    if not any(f".{v}(" in text for v in ("get", "post", "put", "patch", "delete", "all", "route")):
        return
    owners = {m.group(1) for m in _APP_VAR.finditer(text)} | {"app", "router", "server"}
    for m in _ROUTE.finditer(text):
        if m.group(1) not in owners:
            continue
        method, path = m.group(2).upper(), m.group(4)
        line_end = text.find("\n", m.end())
        tail = text[m.end():line_end if line_end >= 0 else None]
        handler = _HANDLER.search(tail)
        name = ""
        if handler:
            name = PurePosixPath(handler.group(1)).stem if handler.group(1) else handler.group(2).split(".")[-1]
        for prefix in prefixes:
            full = join_route(prefix, path)
            src.add(index, "route", f"{method if method != 'ALL' else 'ANY'} {full}", m.start(4),
                    route_words(method, full, name), side="server", method=method, route=full)
    for m in _CHAIN.finditer(text):
        if m.group(1) not in owners:
            continue
        for verb in _CHAIN_METHOD.findall(m.group(3)):
            for prefix in prefixes:
                full = join_route(prefix, m.group(2))
                src.add(index, "route", f"{verb.upper()} {full}", m.start(2), route_words(verb, full),
                        side="server", method=verb.upper(), route=full)


def _client_routes(index: Index, src: Source, routed: list[tuple[str, str]]) -> None:
    text = src.text
    if "<Route" in text:
        for m in _ROUTE_TAG.finditer(text):
            path = _PATH_ATTR.search(m.group(1))
            comps = [c for c in re.findall(r"<([A-Z]\w*)", m.group(1))] or _ELEMENT.findall(m.group(1))
            if path and comps:
                routed.append((comps[-1], path.group(1)))
    if "path:" in text and ("element:" in text or "omponent:" in text):
        for m in _ROUTE_OBJ.finditer(text):
            routed.append((m.group(2), m.group(1)))


def _components(index: Index, src: Source) -> None:
    if src.path.suffix in (".vue", ".svelte"):
        src.add(index, "component", src.path.stem, 0, identifier_concepts(src.path.stem), side="ui")
        return
    if src.side() != "ui" or not re.search(r"<[A-Za-z]", src.text):
        return
    seen = set()
    for m in _COMPONENT.finditer(src.text):
        name = next(g for g in m.groups() if g)
        if name not in seen:
            seen.add(name)
            start = next(m.start(i) for i in range(1, 6) if m.group(i))
            src.add(index, "component", name, start, identifier_concepts(name), side="ui")


def _symbols(index: Index, src: Source) -> None:
    seen: set[str] = set()
    for m in SYMBOL.finditer(src.text):
        name = next(g for g in m.groups() if g)
        if name in seen or name in _KEYWORDS or (name[0].isupper() and src.side() == "ui"):
            continue
        seen.add(name)
        start = next(m.start(i) for i in range(1, 4) if m.group(i))
        src.add(index, "symbol", name, start, identifier_concepts(name))
    for m in _METHOD.finditer(src.text):
        name = m.group(1)
        if name not in seen and name not in _KEYWORDS:
            seen.add(name)
            src.add(index, "symbol", name, m.start(1), identifier_concepts(name))


def _cli(index: Index, src: Source) -> None:
    if src.text.startswith("#!") and "node" in src.text.split("\n", 1)[0]:
        src.add(index, "cli", src.path.stem, 0, identifier_concepts(src.path.stem), side="cli")
    if ".command(" in src.text:
        for m in _COMMAND.finditer(src.text):
            src.add(index, "cli", m.group(1), m.start(1), identifier_concepts(m.group(1)), side="cli")


def _tests(index: Index, src: Source) -> None:
    file_words = identifier_concepts(src.path.name.split(".")[0])
    describe: frozenset[str] = frozenset()
    for m in TEST_TITLE.finditer(src.text):
        quoted = m.lastindex or 2  # the one title group of the three that matched
        title = _UNESCAPE.sub(r"\1", m.group(quoted) or "")
        if m.group(1) in ("describe", "context"):
            describe = identifier_concepts(title)
            continue
        src.add(index, "test", title, m.start(quoted), identifier_concepts(title), file_words | describe)


def package(index: Index, src: Source, by_rel: dict[str, Source]) -> None:
    """Its `bin` entries and the scripts that run a file: CLI commands (at the file they run, when it is scanned)."""
    try:
        data = reader.load_json(src.text, reader.MANIFEST)
    except ValueError:  # not JSON, too deep or too large (reader.Refused)
        return
    if not isinstance(data, dict):
        return
    bins = data.get("bin")
    entries: list[tuple[str, str]] = []
    if isinstance(bins, str):
        entries.append((str(data.get("name", "cli")), bins))
    elif isinstance(bins, dict):
        entries += [(k, str(v)) for k, v in bins.items()]
    scripts = data.get("scripts") if isinstance(data.get("scripts"), dict) else {}
    for name, cmd in scripts.items():
        if name.split(":")[0] in LIFECYCLE or name.startswith(("pre", "post")):
            continue
        target = re.search(r"\b(?:node|ts-node|tsx|python3?|deno run|bun)\s+([\w./-]+\.\w+)", str(cmd))
        if target:
            entries.append((name, target.group(1)))
    folder = str(src.path.parent)
    strings: dict[str, int] = {}  # each JSON string's first offset, in one pass (not a search per entry)
    for m in _JSON_STRING.finditer(src.text):
        strings.setdefault(m.group(1), m.start())
    for name, target in entries:
        rel = posixpath.normpath(posixpath.join(folder, target)) if folder != "." else posixpath.normpath(target)
        offset = strings.get(name, 0)
        if rel in by_rel:
            by_rel[rel].add(index, "cli", name, 0, identifier_concepts(name, PurePosixPath(rel).stem),
                            side="cli")
        else:
            src.add(index, "cli", name, offset, identifier_concepts(name), side="cli")
