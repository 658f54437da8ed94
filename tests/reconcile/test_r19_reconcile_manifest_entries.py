"""A manifest's many entries cost one pass over it: each console script of a `pyproject.toml` and each
`bin`/script of a `package.json` is placed at its line from one index of the file, not by a search of the
whole file per entry. Before, 13,000 `[project.scripts]` (390 KB, under the scanned-code cap) cost 11 s a
file, and 16,000 `bin` entries 1.9 s."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from leafwise.commands.reconcile import artifacts, js_source, python_source
from leafwise.commands.reconcile.artifacts import Index, Source
from testkit.repos import LEAFWISE, plan_repo, run


def _pyproject(n: int) -> str:
    return "[project]\nname = 'x'\n[project.scripts]\n" + "".join(f"cmd{i} = 'pkg.mod:main{i}'\n" for i in range(n))


def _package(n: int) -> str:
    return json.dumps({"name": "x", "bin": {f"b{i}": f"bin/b{i}.js" for i in range(n)},
                       "scripts": {f"run{i}": f"node tools/t{i}.js" for i in range(n // 4)}}, indent=1)


def _cli(rel: str, text: str) -> dict[str, int]:
    index = Index(Path("."), [rel])
    src = Source(rel, text)
    if rel.endswith(".toml"):
        python_source.scan_file(index, src, "")
    else:
        js_source.package(index, src, {})
    return {a.name: a.line for a in index.artifacts if a.kind == "cli"}


def test_each_entry_is_at_its_own_line() -> None:
    toml = "[project]\nname = 'x'\n\n[project.scripts]\nserve = 'app:serve'\n\"build-docs\" = 'app:docs'\n"
    assert _cli("pyproject.toml", toml) == {"serve": 5, "build-docs": 6}
    package = '{\n "name": "x",\n "bin": {\n  "tool": "bin/tool.js"\n },\n "scripts": {\n  "gen": "node gen.js"\n }\n}\n'
    assert _cli("package.json", package) == {"tool": 4, "gen": 7}


def test_thousands_of_entries_cost_one_pass(monkeypatch) -> None:
    monkeypatch.setattr(artifacts, "MAX_PER_FILE", 100_000)  # every entry kept: their placing is what is timed
    toml, package = _pyproject(13000), _package(10000)
    assert len(toml) < 400_000 and len(package) < 400_000
    start = time.thread_time()
    assert len(_cli("pyproject.toml", toml)) == 13000
    assert len(_cli("package.json", package)) == 12500
    assert time.thread_time() - start < 2.0


def test_reconcile_of_a_clone_with_huge_manifests_answers(tmp_path: Path) -> None:
    src = tmp_path / "src"
    plan_repo(src)
    run(src, LEAFWISE, "add", "Export orders as CSV")
    for k in range(4):
        (src / f"pkg{k}").mkdir()
        (src / f"pkg{k}" / "pyproject.toml").write_text(_pyproject(13000))
    run(src, "git", "add", "-A")
    run(src, "git", "commit", "-q", "-m", "manifests")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(src), str(clone)], check=True, capture_output=True)
    start = time.monotonic()
    done = subprocess.run([LEAFWISE, "reconcile", "--json"], cwd=clone, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "LEAFWISE_RECONCILE_DEADLINE": "30", "HOME": str(clone)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert time.monotonic() - start < 15
