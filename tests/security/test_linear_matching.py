"""Reconcile never freezes a person: every regular expression compiled in commands/reconcile/ and
store/ (module level, where they all live) runs in time linear in the text it reads, against
generated worst cases: the pattern's own characters repeated (what makes a backtracking engine
try every split: `test("` + 120 backslashes), under a time budget per search.

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

import leafwise.commands.reconcile as reconcile_pkg
import leafwise.store as store_pkg

BUDGET = 0.25  # seconds of this thread's CPU for one search of a few KiB: linear work takes microseconds
SIZE = 3000


def _modules():
    for pkg in (reconcile_pkg, store_pkg):
        for info in pkgutil.iter_modules(pkg.__path__):
            yield importlib.import_module(f"{pkg.__name__}.{info.name}")


def _patterns() -> list[tuple[str, object]]:
    found = []
    for module in _modules():
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern) or type(value).__module__.startswith("re2"):
                found.append((f"{module.__name__.rsplit('.', 2)[-1]}.{name}", value))
    return found


PATTERNS = _patterns()


def _source(pattern: object) -> str:
    return pattern.pattern if isinstance(pattern.pattern, str) else pattern.pattern.decode("latin-1")


def _alphabet(pattern: object) -> str:
    """The characters the pattern names, and the few that end or break a match."""
    text = _source(pattern)
    chars = set(re.sub(r"\\[dwsbAZ]", "", text)) | set("\\\"'` \n(){}[]/.:-_aZ09<>=;,")
    return "".join(sorted(chars))


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
    for unit in ("\\", " ", "a", "/", "**", "\\\\\"", "a ", "<a"):  # the classic ones, every time
        for prefix in ("", *literals[:8]):
            text = prefix + unit * (SIZE // len(unit))
            assert _cpu(pattern, text) < BUDGET, f"{name} takes over {BUDGET}s on {text[:40]!r}…"
