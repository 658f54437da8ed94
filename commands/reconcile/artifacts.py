"""What reconcile finds in the code: artifacts (a named thing at a file and line), the index
that holds them, and the source files the language scanners read them from.

`scan` builds the index; `python_source` and `js_source` fill it; `match` and
`engine` search it. All of them import from here, none from each other.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from leafwise.commands.reconcile.text import METHOD_VERBS, concept, identifier_concepts

UI_EXT = frozenset({".jsx", ".tsx", ".vue", ".svelte"})
UI_DIRS = frozenset({"client", "frontend", "web", "ui", "components", "pages", "views", "screens", "src-ui"})

SURFACES = frozenset({"route", "page", "component", "cli"})
CLI_WORDS = frozenset({concept("cli")})


@dataclass(slots=True)
class Artifact:
    """One named thing in the code, with where it is and what it is called."""

    kind: str  # route | page | component | cli | model | field | test | symbol | module
    name: str  # as shown: "POST /auth/password-reset", "test_apply_coupon", "ThemeToggle"
    path: str  # relative to the repository, posix
    line: int
    snippet: str
    words: frozenset[str]  # concepts of its own name
    context: frozenset[str] = frozenset()  # concepts of where it sits (class, describe block, file)
    side: str = "server"  # server | ui | cli
    method: str | None = None  # routes: GET, POST ... or ANY
    route: str | None = None  # routes and pages: the full path


@dataclass
class Index:
    root: Path
    files: list[str] = field(default_factory=list)
    artifacts: list[Artifact] = field(default_factory=list)
    in_git: bool = False
    texts: dict[str, str] = field(default_factory=dict)  # scanned source, for declared checks
    has_ui: bool = False  # any page or component: user-facing items then need UI evidence
    docs: list[Artifact] = field(default_factory=list)  # documents in words (documents.py, tags.py)
    lookups: object = field(default=None, repr=False, compare=False)  # checks.py's, built on the first check


MAX_PER_FILE = 5000  # artifacts one file yields: a hand-written file names far fewer; a generated one is no evidence


class Source:
    """A file's text with fast offset → line lookups."""

    __slots__ = ("_added", "_line_starts", "_path", "rel", "text")

    def __init__(self, rel: str, text: str):
        self.rel = rel
        self.text = text
        self._added = 0
        self._path: PurePosixPath | None = None
        self._line_starts: list[int] | None = None  # built on the first line lookup

    @property
    def path(self) -> PurePosixPath:
        if self._path is None:
            self._path = PurePosixPath(self.rel)
        return self._path

    @property
    def _starts(self) -> list[int]:
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        return self._line_starts

    def line_of(self, offset: int) -> int:
        return bisect_right(self._starts, offset)

    def snippet(self, line: int) -> str:
        start = self._starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:end if end >= 0 else None].strip()[:160]

    def add(self, index: Index, kind: str, name: str, offset: int, words: frozenset[str],
            context: frozenset[str] = frozenset(), side: str | None = None, **extra) -> Artifact:
        line = self.line_of(offset)
        if kind == "cli":
            words = words | CLI_WORDS  # what it is: "from the command line" names it
        art = Artifact(kind, name, self.rel, line, self.snippet(line), words, context,
                       side or self.side(), **extra)
        self._added += 1
        if self._added <= MAX_PER_FILE:  # past it, a file's artifacts only cost memory (each holds its words)
            index.artifacts.append(art)
        return art

    def side(self) -> str:
        if self.path.suffix in UI_EXT or UI_DIRS.intersection(self.path.parts[:-1]):
            return "ui"
        return "server"

    @property
    def is_test(self) -> bool:
        name = self.path.name
        return (name.startswith("test_") or name in ("test.py", "tests.py", "testing.py")
                or bool({"tests", "test"} & set(self.path.parts[:-1])) or name.endswith(("_test.py", ".test.js", ".test.jsx", ".test.ts",
                                                              ".test.tsx", ".spec.js", ".spec.ts", ".spec.jsx",
                                                              ".spec.tsx", ".test.mjs"))
                or "__tests__" in self.path.parts or name == "conftest.py")


def route_words(method: str, path: str, *names: str) -> frozenset[str]:
    verbs = METHOD_VERBS.get(method.lower(), ())
    return identifier_concepts(path, *names) | frozenset(concept(v) for v in verbs)


def join_route(prefix: str, path: str) -> str:
    full = "/" + "/".join(p for p in (prefix.strip("/"), path.strip("/")) if p)
    return full
