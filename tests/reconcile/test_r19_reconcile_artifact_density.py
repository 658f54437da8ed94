"""One file yields at most `MAX_PER_FILE` artifacts. Twelve committed files of 11,000 one-line classes and
11,200 one-line defs each (377 KB, under the scanned-code cap) made 266,000 artifacts: reconcile took 5.9 s
and 333 MB (past the 300 MB bar) once each def's class was found quickly; now 3.4 s and 140 MB."""

from __future__ import annotations

import subprocess
from pathlib import Path

from leafwise.commands.reconcile import artifacts, python_source
from leafwise.commands.reconcile.artifacts import Index, Source
from testkit import hostile
from testkit.repos import LEAFWISE, plan_repo, run

TEXT = "".join(f"class K{i}:pass\n" for i in range(11000)) + "".join(f"def f{i}():pass\n" for i in range(11200))


def test_a_file_yields_at_most_its_share_of_artifacts() -> None:
    index = Index(Path("."), ["app/dense.py"])
    python_source.scan_file(index, Source("app/dense.py", TEXT), "")
    assert len(index.artifacts) == artifacts.MAX_PER_FILE
    assert [a.name for a in index.artifacts[:2]] == ["K0", "K1"]  # the first ones, in the file's order


def test_reconcile_of_a_clone_of_dense_files_stays_under_the_bar(tmp_path: Path) -> None:
    src = tmp_path / "src"
    plan_repo(src)
    run(src, LEAFWISE, "add", "Export orders as CSV")
    (src / "app").mkdir()
    for k in range(12):
        (src / "app" / f"owner_{k}.py").write_text(TEXT)
    run(src, "git", "add", "-A")
    run(src, "git", "commit", "-q", "-m", "dense")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(src), str(clone)], check=True, capture_output=True)
    env = {**hostile.environment(tmp_path), "LEAFWISE_RECONCILE_CACHE": "0"}
    code, out, err, cpu, rss_kib = hostile.run_measured(["reconcile", "--json"], clone, env)
    assert code == 0, out + err
    assert rss_kib < 300 * 1024, rss_kib
