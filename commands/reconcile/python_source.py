"""Python artifacts for reconcile: FastAPI/Flask/Django routes, click/typer/argparse
commands, SQLAlchemy/Django/pydantic models and fields, pytest tests, symbols."""

from __future__ import annotations

import bisect
import re
import tomllib

from leafwise.commands.reconcile.artifacts import Index, Source, join_route, route_words
from leafwise.commands.reconcile.text import identifier_concepts

_ROUTER = re.compile(r"^(\w+)\s*=\s*(?:\w+\.)?(APIRouter|Blueprint|FastAPI|Flask)\((.*)$", re.M)
_PREFIX = re.compile(r"""(?:prefix|url_prefix)\s*=\s*["']([^"']*)["']""")
_TAGS = re.compile(r"""tags\s*=\s*\[([^\]]*)\]""")
_INCLUDE = re.compile(r"""include_router\(\s*([\w.]+?)(?:\.router)?\s*,[^)]*?prefix\s*=\s*["']([^"']*)["']""")
_REGISTER_BP = re.compile(r"""register_blueprint\(\s*([\w.]+)\s*,[^)]*?url_prefix\s*=\s*["']([^"']*)["']""")
_DECORATOR = re.compile(
    r"""^[ \t]*@(\w+)\.(get|post|put|patch|delete|route|api_route|websocket)\(\s*(?:path\s*=\s*)?["']([^"']*)["']""",
    re.M)
_NEXT_DEF = re.compile(r"^[ \t]*(?:async\s+)?def\s+(\w+)", re.M)
_METHODS = re.compile(r"""methods\s*=\s*[\[(]([^\])]*)""")
_DJANGO = re.compile(r"""\b(?:re_)?path\(\s*r?["']([^"']*)["']\s*,\s*([\w.]+)""")
_CLICK = re.compile(r"""^[ \t]*@(\w+)\.command\((?:\s*(?:name\s*=\s*)?["']([\w:-]+)["'])?""", re.M)
_ARGPARSE = re.compile(r"""add_parser\(\s*["']([\w:-]+)["']""")
_CLASS = re.compile(r"^([ \t]*)class\s+(\w+)\s*(?:\(([^)]*)\))?\s*:", re.M)
_DEF = re.compile(r"^([ \t]*)(?:async\s+)?def\s+(\w+)\s*\(", re.M)
_FIELD = re.compile(r"^([ \t]+)(\w+)\s*(?::[^=\n]+)?=?", re.M)
MODEL_BASES = re.compile(r"\b(Base|DeclarativeBase|Model|SQLModel|Document|BaseModel|Schema|TypedDict|Struct)\b")


def scan(index: Index, sources: list[Source]) -> None:
    prefixes = mount_prefixes(sources)
    for src in sources:
        scan_file(index, src, mounted(src, prefixes))


def mounted(src: Source, prefixes: dict[str, str]) -> str:
    """The prefix this file's routers are mounted under (the only thing its artifacts take from other files)."""
    return prefixes.get(src.path.stem, "")


def scan_file(index: Index, src: Source, mount: str) -> None:
    """One file's artifacts; `mount` from `mounted()`."""
    if src.path.name == "pyproject.toml":
        _pyproject(index, src)
        return
    if src.is_test:
        _tests(index, src)
        return
    _routes(index, src, mount)
    if src.path.name == "urls.py":
        _django(index, src)
    _cli(index, src)
    _classes_and_defs(index, src)


def mount_prefixes(sources: list[Source]) -> dict[str, str]:
    """Prefixes given where a router is mounted: module or variable name → prefix."""
    found: dict[str, str] = {}
    for src in sources:
        if "include_router" not in src.text and "register_blueprint" not in src.text:
            continue
        for pattern in (_INCLUDE, _REGISTER_BP):
            for m in pattern.finditer(src.text):
                found[m.group(1).split(".")[-1]] = m.group(2)
    return found


def _routes(index: Index, src: Source, mount: str) -> None:
    text = src.text
    if "@" not in text or not any(k in text for k in ("APIRouter", "FastAPI", "Flask", "Blueprint", ".route(")):
        return
    prefixes, tags = {}, {}
    for m in _ROUTER.finditer(text):
        pm = _PREFIX.search(m.group(3))
        prefixes[m.group(1)] = pm.group(1) if pm else ""
        tm = _TAGS.search(m.group(3))
        tags[m.group(1)] = tm.group(1) if tm else ""
    for m in _DECORATOR.finditer(text):
        owner, verb, path = m.groups()
        after = _NEXT_DEF.search(text, m.end())
        if after is None:
            continue
        rest, func = text[m.end():after.start()], after.group(1)
        route_tags = " ".join(filter(None, [tags.get(owner, ""), *(_TAGS.findall(rest))]))
        if owner not in prefixes and owner not in ("app", "router", "bp", "blueprint", "api"):
            continue
        methods = [verb.upper()]
        if verb in ("route", "api_route"):
            mm = _METHODS.search(rest)
            methods = re.findall(r"\w+", mm.group(1).upper()) if mm else ["GET"]
        elif verb == "websocket":
            methods = ["WS"]
        full = join_route(mount + prefixes.get(owner, ""), path)
        for method in methods:
            src.add(index, "route", f"{method} {full}", m.start(3), route_words(method, full, func, route_tags),
                    method=method, route=full)


def _django(index: Index, src: Source) -> None:
    for m in _DJANGO.finditer(src.text):
        path, view = m.groups()
        full = "/" + path.lstrip("^").rstrip("$").strip("/")
        view_name = view.split(".")[-1]
        src.add(index, "route", f"ANY {full}", m.start(1), route_words("ANY", full, view_name),
                method="ANY", route=full)


def _cli(index: Index, src: Source) -> None:
    text = src.text
    if ".command(" in text:
        for m in _CLICK.finditer(text):
            after = _NEXT_DEF.search(text, m.end())
            if after is None:
                continue
            name = m.group(2) or after.group(1).replace("_", "-")
            src.add(index, "cli", name, after.start(1), identifier_concepts(name, after.group(1)), side="cli")
    if "add_parser(" in text:
        for m in _ARGPARSE.finditer(text):
            src.add(index, "cli", m.group(1), m.start(1), identifier_concepts(m.group(1)), side="cli")
    if "__main__" in text and ("argparse" in text or "sys.argv" in text) and "scripts" in src.path.parts[:-1]:
        src.add(index, "cli", src.path.stem, 0, identifier_concepts(src.path.stem), side="cli")


def _classes_and_defs(index: Index, src: Source) -> None:
    text = src.text
    classes: list[tuple[int, int, str]] = []  # (start, indent, name)
    for m in _CLASS.finditer(text):
        indent, name, bases = len(m.group(1)), m.group(2), m.group(3) or ""
        is_model = bool(MODEL_BASES.search(bases)) or "__tablename__" in text[m.end():m.end() + 400]
        kind = "model" if is_model else "symbol"
        src.add(index, kind, name, m.start(2), identifier_concepts(name))
        classes.append((m.start(), indent, name))
        if is_model:
            _fields(index, src, m.end(), indent, name)
    owners = _Owners(classes)
    for m in _DEF.finditer(text):
        name = m.group(2)
        if name.startswith("__"):
            continue
        owner = owners.of(m.start(), len(m.group(1)))
        src.add(index, "symbol", f"{owner}.{name}" if owner else name, m.start(2), identifier_concepts(name),
                identifier_concepts(owner) if owner else frozenset())


class _Owners:
    """The class a definition sits in: the latest class before it that is less indented. Asked in the
    order of the text, in time logarithmic in the open classes (never a scan back over every class)."""

    def __init__(self, classes: list[tuple[int, int, str]]) -> None:
        self._classes = classes  # (start, indent, name), in the order of the text
        self._next = 0
        self._indents: list[int] = []  # the classes a later definition can sit in: indents rising
        self._names: list[str] = []

    def of(self, offset: int, indent: int) -> str | None:
        classes = self._classes
        while self._next < len(classes) and classes[self._next][0] < offset:
            _start, cls_indent, name = classes[self._next]
            cut = bisect.bisect_left(self._indents, cls_indent)  # an earlier class as indented or more is shadowed
            del self._indents[cut:], self._names[cut:]
            self._indents.append(cls_indent)
            self._names.append(name)
            self._next += 1
        below = bisect.bisect_left(self._indents, indent)
        return self._names[below - 1] if below else None


def _fields(index: Index, src: Source, body: int, cls_indent: int, cls: str) -> None:
    """Attributes of a model class: `title: Mapped[str] = ...`, `title = Column(...)`."""
    text = src.text
    pos = body
    context = identifier_concepts(cls)
    body_indent: int | None = None
    while True:
        nl = text.find("\n", pos)
        if nl < 0:
            return
        line_end = text.find("\n", nl + 1)
        line = text[nl + 1:line_end if line_end >= 0 else None]
        pos = nl + 1
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        if indent <= cls_indent:
            return
        if body_indent is None:
            body_indent = indent
        if indent != body_indent:
            continue  # a continuation line or a method body
        m = re.match(r"[ \t]+([a-z_]\w*)\s*(?::|=(?!=))", line)
        if m and not m.group(1).startswith("_") and m.group(1) not in ("id", "model_config"):
            src.add(index, "field", f"{cls}.{m.group(1)}", pos + m.start(1), identifier_concepts(m.group(1)),
                    context)


def _tests(index: Index, src: Source) -> None:
    classes: list[tuple[int, int, str]] = [(m.start(), len(m.group(1)), m.group(2))
                                           for m in _CLASS.finditer(src.text)]
    file_words = identifier_concepts(src.path.stem)
    owners = _Owners(classes)
    for m in _DEF.finditer(src.text):
        name = m.group(2)
        if not name.startswith("test"):
            continue
        owner = owners.of(m.start(), len(m.group(1)))
        src.add(index, "test", f"{owner}.{name}" if owner else name, m.start(2),
                identifier_concepts(name[4:]),
                file_words | (identifier_concepts(owner[4:] if owner.startswith("Test") else owner) if owner else frozenset()))


def _pyproject(index: Index, src: Source) -> None:
    """Console scripts of `[project.scripts]`, read with tomllib; each at the line naming it."""
    try:
        project = tomllib.loads(src.text).get("project")
    except tomllib.TOMLDecodeError:
        return  # reconcile reads untrusted code: a broken file only yields no evidence
    scripts = project.get("scripts") if isinstance(project, dict) else None
    if not isinstance(scripts, dict):
        return
    keys = _key_offsets(src.text)
    for name, target in scripts.items():
        if not isinstance(target, str):
            continue
        src.add(index, "cli", name, keys.get(name, 0), identifier_concepts(name, target.split(":")[-1]),
                side="cli")


def _key_offsets(text: str) -> dict[str, int]:
    """Where each TOML key (`name =`, `"name" =`) is first set, in one pass over the lines (never a
    search of the whole file per script)."""
    found: dict[str, int] = {}
    offset = 0
    for line in text.split("\n"):
        key, eq, _ = line.partition("=")
        if eq:
            key = key.strip(" \t")
            if len(key) >= 2 and key[0] in "\"'" and key[-1] in "\"'":
                key = key[1:-1]
            found.setdefault(key, offset)
        offset += len(line) + 1
    return found
