"""Reconcile never freezes a person: every regular expression in store/,
commands/ and canvas/ (at module level or inside a function) runs in time linear in the text it reads, against
generated worst cases: the pattern's own characters repeated (what makes a backtracking engine
try every split: `test("` + 120 backslashes), under a time budget per search. A pattern that tries
every start and scans to the end from each (`<[^>]+>` on a paragraph of `<`) is quadratic, not
exponential: it passes a few KiB and takes hours on 300 KB, so the slow set repeats the worst
cases at 60,000 characters.

A pattern compiled by RE2 (store/linear.py) is linear by construction; a pattern still on Python's
`re` must show it here, on inputs hypothesis builds from its own literals."""

from __future__ import annotations

import importlib
import pkgutil
import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import leafwise.canvas as canvas_pkg
import leafwise.commands as commands_pkg
import leafwise.store as store_pkg
from testkit import walked

ENDS = ("", "x", "\x00", "\n")  # what follows a generated run
BUDGET = 0.25  # seconds of this thread's CPU for one search of a few KiB: linear work takes microseconds
SIZE = 3000


def _modules():
    for pkg in (commands_pkg, store_pkg, canvas_pkg):
        for info in pkgutil.walk_packages(pkg.__path__, f"{pkg.__name__}."):
            if not info.name.startswith("leafwise.canvas.demo.shop"):  # the demo's own web shop, never run
                yield importlib.import_module(info.name)


def _patterns() -> list[tuple[str, object]]:
    found, seen = [], set()
    for module in _modules():
        for name, value in vars(module).items():
            if (isinstance(value, re.Pattern) or type(value).__module__.startswith("re2")) and id(value) not in seen:
                seen.add(id(value))  # a pattern imported elsewhere is tested once
                found.append((f"{module.__name__.rsplit('.', 2)[-1]}.{name}", value))
    return found


_CALLS = {"compile", "search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"}
_FLAGS = {"M", "I", "S", "MULTILINE", "IGNORECASE", "DOTALL"}
# Calls inside functions whose pattern is built at run time, each from constants and `re.escape` of an
# id or a name Leafwise checked (never free text), by file.
BUILT = {"checks.py": 1, "text.py": 1, "match.py": 1}


class _Anchored:
    """A `re.match`/`re.fullmatch` call: one attempt at the start of the text, as the call makes it."""

    def __init__(self, compiled: re.Pattern, how: str) -> None:
        self.pattern, self._compiled, self._how = compiled.pattern, compiled, how

    def finditer(self, text):
        found = getattr(self._compiled, self._how)(text)
        return [found] if found else []


def _inline_patterns() -> tuple[list[tuple[str, object]], dict[str, int]]:
    """`re.search(r"...", text)` and the like inside functions, compiled here from their literal (or
    the module's string constant they name) with their literal flags; and, per file, how many calls
    build their pattern at run time."""
    import ast
    from pathlib import Path

    from testkit import source_files

    root = Path(store_pkg.__file__).resolve().parent.parent
    found, built = [], {}
    for top in ("store", "commands", "canvas"):
        for path in source_files(root / top):
            parts = path.relative_to(root).with_suffix("").parts
            if "demo" in parts:
                continue
            module = importlib.import_module(".".join(("leafwise", *parts)).removesuffix(".__init__"))
            functions = [n for n in walked(path.read_text())
                         if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
            calls = {id(c): c for f in functions for c in ast.walk(f) if isinstance(c, ast.Call)
                     and isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name)
                     and c.func.value.id == "re" and c.func.attr in _CALLS and c.args}
            for call in calls.values():
                first = call.args[0]
                text = first.value if isinstance(first, ast.Constant) else getattr(module, getattr(first, "id", ""), None)
                if not isinstance(text, str):
                    built[path.name] = built.get(path.name, 0) + 1
                    continue
                flags = 0
                for arg in [*call.args[1:], *(k.value for k in call.keywords if k.arg == "flags")]:
                    flags |= sum({getattr(re, a.attr) for a in ast.walk(arg) if isinstance(a, ast.Attribute) and a.attr in _FLAGS})
                compiled = re.compile(text, flags)
                pattern = _Anchored(compiled, call.func.attr) if call.func.attr in ("match", "fullmatch") else compiled
                found.append((f"{path.stem}:{call.lineno}", pattern))
    return found, built


def _built_examples() -> list[tuple[str, object]]:
    """The patterns BUILT names, as they are built for a typical name and id."""
    from leafwise.commands.reconcile.checks import DEFINES
    from leafwise.commands.text import defusing_pattern

    return [("checks.defines", re.compile(DEFINES.format(name=re.escape("parse_args")))),
            ("text.defusing", defusing_pattern())]


INLINE, BUILT_FOUND = _inline_patterns()
PATTERNS = _patterns() + INLINE + _built_examples()


def test_every_pattern_built_at_run_time_is_one_the_list_names():
    assert BUILT_FOUND == BUILT, "a pattern built at run time: test its parts here, then name it in BUILT"
    assert len(INLINE) >= 15 and any(name.startswith("ids:") for name, _ in INLINE)


def _source(pattern: object) -> str:
    return pattern.pattern if isinstance(pattern.pattern, str) else pattern.pattern.decode("latin-1")


def _alphabet(pattern: object) -> str:
    """The characters the pattern names, and the few that end or break a match."""
    text = _source(pattern)
    chars = set(re.sub(r"\\[dwsbAZ]", "", text)) | set("\\\"'` \n(){}[]/.:-_aZ09<>=;,")
    return "".join(sorted(chars))


def _runs(pattern: object) -> list[str]:
    """The pattern's literal runs, longest first (`parent:` of `^parent:\\s*`): a worst case starts with
    the text that gets the engine to the repetition. Classes, counts and escapes like `\\s` end a run."""
    plain = re.sub(r"\[(?:\\.|[^\]\\])*\]|\{\d*,?\d*\}|\\[A-Za-z]|\(\?[^)]*\)", "\x00", _source(pattern))
    runs = re.findall(r"(?:\\[^\w]|[^\\^$.|?*+()\[\]{}\x00])+", plain)
    return sorted({r.replace("\\", "") for r in runs if r.strip()}, key=len, reverse=True)


def _cpu(pattern: object, text: str) -> float:
    data = text.encode("utf-8", "surrogatepass") if isinstance(pattern.pattern, bytes) else text
    start = time.thread_time()
    for _ in pattern.finditer(data):
        pass
    return time.thread_time() - start


def test_the_scan_finds_the_patterns_of_both_packages():
    names = {name for name, _ in PATTERNS}
    assert any(n.startswith("js_source.") for n in names) and any(n.startswith("ids.") for n in names)
    assert "js_source.TEST_TITLE" in names


def test_the_test_title_pattern_runs_on_rE2():
    from leafwise.commands.reconcile.js_source import TEST_TITLE

    assert type(TEST_TITLE).__module__.startswith("re2")
    assert _cpu(TEST_TITLE, 'test("' + "\\" * 120 + "\n") < BUDGET


@pytest.mark.parametrize("name,pattern", PATTERNS, ids=[n for n, _ in PATTERNS])
def test_every_pattern_is_linear_on_its_own_worst_cases(name, pattern):
    alphabet = _alphabet(pattern)
    literals = [w for w in re.findall(r"[A-Za-z_]{2,}|[^\\\w\s]", _source(pattern))] or ["a"]

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.lists(st.sampled_from(literals), min_size=1, max_size=6), st.text(alphabet, min_size=1, max_size=3),
           st.integers(200, SIZE))
    def run(prefix, unit, repeat):
        text = "".join(prefix) + unit * (repeat // len(unit))
        assert _cpu(pattern, text) < BUDGET, f"{name} takes over {BUDGET}s on {text[:40]!r}… ({len(text)} chars)"

    run()
    for unit in ("\\", " ", "a", "/", "**", "\\\\\"", "a ", "<a", "\n"):  # the classic ones, every time
        for prefix in ("", *literals[:8], *_runs(pattern)[:6]):
            for end in ENDS:  # a long run then a character that ends it: `\s*(x)?\s*$` tries every split
                text = prefix + unit * (SIZE // len(unit)) + end
                assert _cpu(pattern, text) < BUDGET, f"{name} takes over {BUDGET}s on {text[:40]!r}…{end!r}"


BIG = 60_000
BIG_BUDGET = 1.0  # linear work on 60,000 characters takes milliseconds (0.25 s at most, with a match per char)


@pytest.mark.slow
@pytest.mark.parametrize("name,pattern", PATTERNS, ids=[n for n, _ in PATTERNS])
def test_no_pattern_is_quadratic_on_a_long_text(name, pattern):
    source = _source(pattern)
    units = sorted(set("\\ a/<>{}[]()\"'`*#=:.-_\n") | set(re.findall(r"[^\\\w\s]", source)))
    words = re.findall(r"[A-Za-z_]{2,}", source)[:6]
    for unit in [*units, *words, *(w + " " for w in words), "a ", "<a", "{{", "{%", "```"]:
        seconds = _cpu(pattern, unit * (BIG // len(unit)))
        assert seconds < BIG_BUDGET, f"{name} takes {seconds:.1f}s on {unit!r} x {BIG // len(unit)}"
    own = sorted(set(re.findall(r"[^\\\w\s]", source)) - set("^$.|?*+()[]{}"))[:8]  # its literal punctuation
    for prefix in _runs(pattern)[:4]:  # the text that reaches a repetition, a long run, a character that ends it
        for unit in (" ", "\n", "\t", "a", "\\", "/", "-", *own):
            for end in ENDS[1:]:
                seconds = _cpu(pattern, prefix + unit * BIG + end)
                assert seconds < BIG_BUDGET, f"{name} takes {seconds:.1f}s on {prefix!r} + {unit!r} x {BIG} + {end!r}"
    # a class character between the literal run and the long run (`,a)` + spaces: `\)\s*;?\s*$`), and many
    # starts on one line each scanning to its end (`let a:` x 10,000: `(?::[^=\n]+)?=`)
    for prefix in _runs(pattern)[:4]:
        for glue in ("a)", "a:", " a:", " a = (", "a=", "a(", "=", ":"):
            for end in ENDS[1:3]:
                seconds = _cpu(pattern, prefix + glue + " " * BIG + end)
                assert seconds < BIG_BUDGET, f"{name} takes {seconds:.1f}s on {prefix + glue!r} + ' ' x {BIG} + {end!r}"
            unit = prefix + glue
            seconds = _cpu(pattern, unit * (BIG // len(unit)))
            assert seconds < BIG_BUDGET, f"{name} takes {seconds:.1f}s on {unit!r} x {BIG // len(unit)}"
