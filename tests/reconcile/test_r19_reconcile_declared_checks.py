"""Declared checks cost a lookup each (`checks._Lookups`, built once per index), and a node's first
`MAX_CHECKS` are evaluated: 3,000 `symbol:` checks on one node of a cloned 3.6 MB repository (70,000
definitions) made reconcile pass even a 200 s deadline (171 CPU s, 322 MB); each check walked every artifact
and searched every file. The answers are the old rule's: checked against a brute-force oracle."""

from __future__ import annotations

import random
import re
import subprocess
import time
from pathlib import Path

from leafwise.commands.reconcile import checks
from leafwise.commands.reconcile.artifacts import Artifact, Index
from testkit.repos import LEAFWISE, plan_repo, run


def _oracle(index: Index, kind: str, value: str) -> tuple[bool, str | None, int | None]:
    """The rule as it was written: walk every artifact, then search every file."""
    if kind == "symbol":
        for art in index.artifacts:
            if art.kind in ("symbol", "model", "component", "page", "field") and art.name.split(".")[-1] == value:
                return True, art.path, art.line
        pattern = re.compile(checks.DEFINES.format(name=re.escape(value)))
        for rel, text in index.texts.items():
            m = pattern.search(text)
            if m:
                return True, rel, text.count("\n", 0, m.start()) + 1
        return False, None, None
    if kind == "test":
        wanted = value.strip().lower()
        for art in index.artifacts:
            if art.kind == "test" and art.name.split(".")[-1].lower().startswith(wanted):
                return True, art.path, art.line
        return False, None, None
    method, _, path = value.strip().partition(" ")
    if not path:
        method, path = "ANY", method
    method, wanted = method.upper(), checks.normal_route(path)
    for art in index.artifacts:
        if art.kind == "route" and art.route is not None and checks.normal_route(art.route) == wanted \
                and (method == "ANY" or art.method in (method, "ANY", "ALL")):
            return True, art.path, art.line
    return False, None, None


def _index(rnd: random.Random) -> Index:
    names = ["alpha", "beta", "Beta", "gamma_x", "test_a", "test_ab", "testB", "x"]
    routes = ["/a", "/a/{id}", "/a/:id", "/b", "/B"]
    arts = []
    for k in range(rnd.randint(0, 30)):
        kind = rnd.choice(["symbol", "model", "test", "route", "field", "cli", "page"])
        name = rnd.choice(names) if rnd.random() < 0.8 else f"Owner.{rnd.choice(names)}"
        method = rnd.choice(["GET", "POST", "ANY", "ALL"])
        arts.append(Artifact(kind, name, f"f{k % 4}.py", k + 1, name, frozenset(), method=method,
                             route=rnd.choice(routes) if kind == "route" else None))
    texts = {f"t{k}.py": "".join(rnd.choice(["def alpha():\n", "class gamma_x:\n", "const delta = 1\n",
                                            "def class beta\n", "x = 1\n", "fn  epsilon()\n", "def naïve():\n"])
                                 for _ in range(rnd.randint(0, 6))) for k in range(3)}
    return Index(Path("."), [], arts, texts=texts)


VALUES = {"symbol": ["alpha", "beta", "Beta", "gamma_x", "delta", "epsilon", "naïve", "x", "zeta", "a.b", "$x"],
          "test": ["test", "test_a", "TEST_AB", "testb", "", "zz", "t"],
          "route": ["GET /a", "POST /a/1", "/a/{x}", "ANY /b", "ALL /b", "* /a", "DELETE /a/:id", "/B/"]}


def test_the_lookups_answer_as_the_rule_does() -> None:
    rnd = random.Random(22)
    for _ in range(600):
        index = _index(rnd)
        pairs = [(kind, rnd.choice(values)) for kind, values in VALUES.items() for _ in range(4)]
        got = checks.run_checks(pairs, index, allow_commands=False)
        for (kind, value), result in zip(pairs, got):
            assert (result.passed, result.path, result.line) == _oracle(index, kind, value), (kind, value)


def test_thousands_of_checks_on_a_big_index_are_quick() -> None:
    arts = [Artifact("symbol", f"function_{i}", f"m{i % 10}.py", i, "", frozenset()) for i in range(70000)]
    arts += [Artifact("test", f"test_thing_{i}", "t.py", i, "", frozenset()) for i in range(20000)]
    arts += [Artifact("route", f"GET /r/{i}", "r.py", i, "", frozenset(), method="GET", route=f"/r/{i}")
             for i in range(20000)]
    texts = {f"m{k}.py": "".join(f"def function_number_{i}_{k}(a, b):\n    return a\n" for i in range(7000))
             for k in range(10)}
    index = Index(Path("."), [f"f{i}.py" for i in range(5000)], arts, texts=texts)
    pairs = [("symbol", f"nothing_{i}") for i in range(3000)] + [("test", f"test_thing_{i}") for i in range(3000)] \
        + [("route", f"POST /r/{i}") for i in range(3000)] + [("file", f"nothing/{i}/*.py") for i in range(300)]
    start = time.thread_time()
    for at in range(0, len(pairs), checks.MAX_CHECKS):
        checks.run_checks(pairs[at:at + checks.MAX_CHECKS], index, allow_commands=False)
    assert time.thread_time() - start < 6.0
    over = checks.run_checks([("symbol", "x")] * (checks.MAX_CHECKS + 1), index, allow_commands=False)
    assert over[-1].snippet.startswith("not checked") and not over[-1].passed


def test_reconcile_of_a_clone_with_3000_declared_checks_answers(tmp_path: Path) -> None:
    src = tmp_path / "src"
    plan_repo(src)
    run(src, LEAFWISE, "add", "Export orders as CSV")
    (src / "lib").mkdir()
    for k in range(10):
        (src / "lib" / f"m{k}.py").write_text("".join(f"def function_number_{i}_{k}(a, b):\n    return a + b\n\n"
                                                      for i in range(7000)))
    node = src / ".leafwise" / "nodes" / "P1-1.yaml"
    node.write_text(node.read_text() + "done_when:\n" + "".join(f"  - symbol: nothing_{i}\n" for i in range(3000)))
    run(src, "git", "add", "-A")
    run(src, "git", "commit", "-q", "-m", "plant")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(src), str(clone)], check=True, capture_output=True)
    start = time.monotonic()
    done = run(clone, LEAFWISE, "reconcile", "--json", code=None)
    assert done.returncode == 0, done.stdout + done.stderr
    assert time.monotonic() - start < 20
