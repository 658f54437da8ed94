"""store/ on untrusted input: the trust store, the loader's screen, confinement (no CLI)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from leafwise.store import PlanPaths, UnsafePath, trust
from leafwise.store.loader import MAX_TEXT_CHARS, Refused, TooLarge, check_node, parse_yaml, screen
from leafwise.store.paths import check_id, resolve_inside


def test_an_approval_is_for_one_plan_and_one_exact_command(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_CONFIG_DIR", str(tmp_path / "cfg"))
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    assert not trust.is_trusted(a, "make check")
    [key] = trust.allow(a, ["make check"])
    assert trust.is_trusted(a, "make check")
    assert not trust.is_trusted(b, "make check") and not trust.is_trusted(a, "make check ")
    os.symlink(a, tmp_path / "link")
    assert trust.is_trusted(tmp_path / "link", "make check")  # the real path decides
    assert trust.revoke([key[:8]]) == [key] and not trust.is_trusted(a, "make check")
    assert oct((tmp_path / "cfg/trust.json").stat().st_mode & 0o777) == "0o600"


def test_the_config_folder_follows_xdg_without_the_override(tmp_path, monkeypatch):
    monkeypatch.delenv("LEAFWISE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert trust.store_path() == tmp_path / "leafwise" / "trust.json"


@pytest.mark.parametrize(("raw", "code"), [(b"a: &x 1\nb: *x\n", "yaml_alias"),
                                           (b"x: " + b"[" * 50 + b"]" * 50 + b"\n#" + b"." * 9000, "too_deep"),
                                           (b"x: " + b"[" * 40000 + b"]" * 40000, "too_deep"),
                                           (b"x: " + b"a" * (300 * 1024), "too_large")])
def test_the_screen_refuses_unbounded_work_before_parsing(raw, code):
    with pytest.raises(Refused) as info:
        screen(raw)
    assert info.value.code == code


def test_ids_are_whole_strings_and_text_values_are_bounded():
    for bad in ("T-9\n", "T-9\n\n", " T-9", "t-9", "T-9/../x"):
        with pytest.raises(UnsafePath):
            check_id(bad)
    with pytest.raises(TooLarge, match="65,536"):
        check_node({"id": "T-1", "title": "x" * (MAX_TEXT_CHARS + 1), "status": "draft"}, "T-1")
    with pytest.raises(TooLarge):
        check_node({"id": "T-1", "title": "x", "status": "draft", "decision": {"q": ["y" * (MAX_TEXT_CHARS + 1)]}},
                   "T-1")


def test_links_resolve_only_under_docs_and_diagrams(tmp_path):
    paths = PlanPaths(tmp_path)
    (paths.dir / "docs").mkdir(parents=True)
    assert paths.inside("docs/a.md") == (paths.dir / "docs/a.md").resolve()
    assert paths.inside("diagrams/x.mmd").name == "x.mmd"
    for bad in ("project.yaml", "nodes/T-1.yaml", "journal.jsonl", "docs/../project.yaml", "../x", "/etc/passwd",
                ".cache/nodes.marshal", "docs/a\x1b.md"):
        with pytest.raises(UnsafePath):
            paths.inside(bad)
    os.symlink(paths.dir / "project.yaml", paths.dir / "docs" / "p.md")
    with pytest.raises(UnsafePath):
        paths.inside("docs/p.md")
    assert resolve_inside(tmp_path, "anything/x")  # other bases keep plain containment


def test_parse_yaml_turns_every_failure_into_a_yaml_error_with_a_line():
    import yaml

    for text, line in (("a: 1\nx: !!int abc\n", 2), ("a: 1\na: 2\n", 2), ("x: !!set {a}\n", 1),
                       ("a: 1\n<<: {status: done}\n", 2)):
        with pytest.raises(yaml.YAMLError) as info:
            parse_yaml(text)
        assert info.value.problem_mark.line + 1 == line, text


def test_a_symlinked_plan_folder_is_refused_for_writes(tmp_path):
    paths = PlanPaths(tmp_path)
    paths.dir.mkdir()
    os.symlink(tmp_path, paths.dir / "claims")
    with pytest.raises(UnsafePath):
        paths.own_folder(paths.claims)
    assert isinstance(Path(paths.own_folder(paths.cycles)), Path)
