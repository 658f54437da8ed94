"""A plan git writes to the work tree in another encoding is named as such (`merge_conflicts.checkout_encodings`).

One committed line of `.gitattributes`, `.leafwise/** working-tree-encoding=UTF-16LE`, keeps every committed
plan file UTF-8 but makes git check each out as UTF-16: in every clone that pulls it `next` answered "No task
to hand out: .leafwise/project.yaml:1 does not load (… unacceptable character #x0000 …)" and validate named
NUL characters, nothing that leads a person to the attribute. Each such problem now names the encoding
git writes and the attribute (one `git check-attr` for the failing files).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from testkit import node, run_cli, write_plan

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.environ["PATH"], "HOME": "/nonexistent"}
PLACES = {"root": (".gitattributes", ".leafwise/** working-tree-encoding={enc}\n"),
          "plan_folder": (".leafwise/.gitattributes", "*.yaml working-tree-encoding={enc}\nnodes/*.yaml working-tree-encoding={enc}\n")}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=GIT_ENV)


@pytest.mark.parametrize("place", sorted(PLACES))
@pytest.mark.parametrize("encoding", ["UTF-16LE", "UTF-16"])
def test_a_plan_checked_out_in_another_encoding_names_the_attribute(tmp_path: Path, place: str, encoding: str) -> None:
    source = tmp_path / "source"
    source.mkdir()
    write_plan(source, [node("P1-1", "Checkout", release="R1"), node("P1-2", "Cart page", parent="P1-1")], prefix="P1")
    git(source, "init", "-q", "-b", "main")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "plan")
    name, line = PLACES[place]
    (source / name).write_text(line.format(enc=encoding))
    git(source, "add", name)
    git(source, "commit", "-q", "-m", "attributes")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(source), str(clone))
    assert b"\x00" in (clone / ".leafwise" / "nodes" / "P1-2.yaml").read_bytes()  # git wrote it as UTF-16
    env = {"LEAFWISE_CONFIG_DIR": str(tmp_path / "config"), "LEAFWISE_CACHE_DIR": str(tmp_path / "cache")}
    answer = run_cli("validate", "--json", cwd=clone, env=env)
    found = [p for p in _problems(json.loads(answer.stdout)) if p.get("file", "").endswith("P1-2.yaml")]
    assert found and all("working-tree-encoding" in p["message"] and encoding in p["message"] for p in found), found


def test_a_file_that_is_simply_broken_is_not_blamed_on_an_attribute(tmp_path: Path) -> None:
    root = write_plan(tmp_path / "plan", [node("P1-1", "Checkout", release="R1")], prefix="P1")
    git(root, "init", "-q", "-b", "main")
    (root / ".leafwise" / "nodes" / "P1-1.yaml").write_bytes(b"id: P1-1\x00\ntitle: [\n")
    env = {"LEAFWISE_CONFIG_DIR": str(tmp_path / "config"), "LEAFWISE_CACHE_DIR": str(tmp_path / "cache")}
    answer = run_cli("validate", "--json", cwd=root, env=env)
    assert "working-tree-encoding" not in answer.stdout and "P1-1.yaml" in answer.stdout, answer.stdout


def _problems(found: object) -> list[dict]:
    if isinstance(found, dict):
        own = [found] if "code" in found and "message" in found else []
        return own + [p for value in found.values() for p in _problems(value)]
    if isinstance(found, list):
        return [p for value in found for p in _problems(value)]
    return []
