"""Shaping a plan through the real CLI: init, releases, add (tails, duplicates), edit, docs, decisions, bulk."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from testkit import node, run_cli, write_plan


def load(root: Path, node_id: str) -> dict:
    return yaml.safe_load((root / ".leafwise/nodes" / f"{node_id}.yaml").read_text())


def test_init_release_add_and_tree(tmp_path: Path) -> None:
    res = run_cli("init", "--name", "Shop", "--prefix", "SHOP", cwd=tmp_path)
    assert res.code == 0 and res.last_lines[-1] == 'Next: leafwise release add R1 --title "<title>"'
    assert run_cli("init", "--json", cwd=tmp_path).json["mutation"]["applied"] is False
    assert run_cli("release", "add", "R1", "--title", "MVP", "--target", "2027-01-15", cwd=tmp_path).code == 0
    dup = run_cli("release", "add", "R1", "--title", "Again", cwd=tmp_path)
    assert dup.code == 3 and dup.stderr.splitlines()[-1] == "Fix: leafwise list --release R1"
    bad = run_cli("release", "add", "R2", "--title", "x", "--target", "soon", cwd=tmp_path)
    assert bad.code == 2
    project = yaml.safe_load((tmp_path / ".leafwise/project.yaml").read_text())
    assert project["releases"] == [{"id": "R1", "title": "MVP", "target": __import__("datetime").date(2027, 1, 15)}]
    assert run_cli("add", "Accounts", "--release", "R1", cwd=tmp_path).code == 0
    assert run_cli("add", "Login form", "--parent", "SHOP-1", cwd=tmp_path).code == 0
    tree = run_cli("tree", cwd=tmp_path)
    assert "[R1] MVP" in tree.stdout and "SHOP-2 Login form" in tree.stdout
    missing = run_cli("add", "X", "--parent", "SHOP-99", cwd=tmp_path)
    assert missing.code == 5 and "SHOP-99" in missing.stderr


def test_near_duplicate_titles_are_refused_with_force_fallback(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "Password reset by email", release="R1")])
    res = run_cli("add", "Password reset via email", "--release", "R1", "--json", cwd=tmp_path)
    assert res.code == 3
    env = res.json
    assert env["error"]["details"]["duplicate"] == "T-1"
    assert env["_next_action"]["command"] == "leafwise show T-1"
    forced = env["_next_action"]["or"]
    assert forced == 'leafwise add "Password reset via email" --release R1 --force'
    assert run_cli(*__import__("shlex").split(forced)[1:], cwd=tmp_path).code == 0
    assert load(tmp_path, "T-2")["title"] == "Password reset via email"
    assert run_cli("add", "Catalog search", "--release", "R1", cwd=tmp_path).code == 0


def test_tech_debt_and_triggered_tails(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "Search", "in-progress", release="R1"),
                          node("T-2", "Search box", "in-progress", parent="T-1", assignee="a")])
    res = run_cli("add", "Index rebuild is slow", "--tech-debt", "--follows", "T-2", cwd=tmp_path)
    assert res.code == 0, res.stderr
    debt = load(tmp_path, "T-3")
    assert debt["parent"] == "T-1" and "tech-debt" in debt["tags"] and debt["follows"] == "T-2"
    res = run_cli("add", "Shard the index", "--trigger", "when the catalog passes 10k products",
                  "--follows", "T-2", cwd=tmp_path)
    assert res.code == 0, res.stderr
    later = load(tmp_path, "T-4")
    assert later["release"] == "R2" and later["trigger"] == "when the catalog passes 10k products"


def test_edit_keeps_the_rest_and_refuses_lifecycle_statuses(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A", release="R1"), node("T-2", "B", release="R1")])
    res = run_cli("edit", "T-1", "--set", "title=Renamed", "--set", "tags=ui,auth", "--set",
                  "depends_on=[T-2]", cwd=tmp_path)
    assert res.code == 0, res.stderr
    data = load(tmp_path, "T-1")
    assert (data["title"], data["tags"], data["depends_on"]) == ("Renamed", ["ui", "auth"], ["T-2"])
    unknown = run_cli("edit", "T-1", "--set", "owner_team=web", cwd=tmp_path)
    assert unknown.code == 2 and "not a node field" in unknown.stderr and "owner_team" not in load(tmp_path, "T-1")
    refused = run_cli("edit", "T-1", "--set", "status=done", cwd=tmp_path)
    assert refused.code == 2 and refused.stderr.splitlines()[-1] == 'Fix: leafwise complete T-1 --summary "<summary>"'
    cyc = run_cli("edit", "T-2", "--set", "parent=T-2", cwd=tmp_path)
    assert cyc.code == 2
    outside = run_cli("edit", "T-1", "--set", "docs=[../../secret.md]", cwd=tmp_path)
    assert outside.code == 2 and "leaves .leafwise" in outside.stderr
    assert run_cli("show", "../../x", cwd=tmp_path).code == 2


def test_a_quoted_value_is_kept_as_written(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A", release="R1")])
    unquoted = run_cli("edit", "T-1", "--set", "title=[WIP] x", cwd=tmp_path)
    assert unquoted.code == 2 and 'put it in quotes: title="..."' in unquoted.stderr
    for raw, kept in (('"[WIP] x"', "[WIP] x"), ("'null'", "null"), ('"{a: b}"', "{a: b}"), ('"~"', "~")):
        assert run_cli("edit", "T-1", "--set", f"title={raw}", cwd=tmp_path).code == 0
        assert load(tmp_path, "T-1")["title"] == kept
    assert run_cli("edit", "T-1", "--set", 'tags="a, b"', cwd=tmp_path).code == 0
    assert load(tmp_path, "T-1")["tags"] == ["a, b"]
    assert run_cli("edit", "T-1", "--set", 'title="say "hi" twice"', cwd=tmp_path).code == 0
    assert load(tmp_path, "T-1")["title"] == '"say "hi" twice"'  # inner quotes: not one quoted value


def test_doc_write_and_read(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A", release="R1")])
    res = run_cli("doc", "T-1", cwd=tmp_path)
    assert res.code == 0 and "has no docs yet" in res.stdout
    res = run_cli("doc", "T-1", "--write", "-", stdin="# Plan\n\nDo it well.\n", cwd=tmp_path)
    assert res.code == 0, res.stderr
    assert load(tmp_path, "T-1")["docs"] == ["docs/T-1.md"]
    res = run_cli("doc", "T-1", "--json", cwd=tmp_path)
    assert res.json["result"]["docs"][0]["text"].startswith("# Plan")


def test_ask_and_decide(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "Guest checkout", release="R1"), node("T-2", "Other", release="R1"),
                          node("T-3", "More", release="R1")])
    assert run_cli("start", "T-1", "--agent", "a", cwd=tmp_path).code == 0
    res = run_cli("ask", "T-1", "Allow guest checkout?", "--option", "A: yes, more sales",
                  "--option", "B: no, less fraud", "--agent", "a", cwd=tmp_path)
    assert res.code == 0, res.stderr
    data = load(tmp_path, "T-1")
    assert data["status"] == "blocked" and data["decision"]["options"][1] == "B: no, less fraud"
    one = run_cli("ask", "T-2", "Q?", "--option", "only one", cwd=tmp_path)
    assert one.code == 2
    assert run_cli("start", "T-3", "--agent", "a", cwd=tmp_path).code == 0  # the asker took other work: at work
    res = run_cli("decide", "T-1", "--option", "2", "--note", "fraud risk", cwd=tmp_path)
    assert res.code == 0, res.stderr
    data = load(tmp_path, "T-1")
    assert data["status"] == "in-progress" and data["decision"]["answer"]["choice"] == "B: no, less fraud"
    again = run_cli("decide", "T-1", "--option", "1", cwd=tmp_path)
    assert again.code == 3
    events = [json.loads(x) for x in (tmp_path / ".leafwise/journal.jsonl").read_text().splitlines()]
    assert [e["command"] for e in events if e.get("node") == "T-1" and e["command"] != "start"] == \
        ["ask", "decide", "unblock"]
    assert run_cli("block", "T-1", "--reason", "waits for legal", cwd=tmp_path).code == 3, "a held task"
    run_cli("block", "T-1", "--reason", "waits for legal", "--agent", "a", cwd=tmp_path)
    blocked = run_cli("context", "--json", cwd=tmp_path).json["result"]["blocked"]
    assert [(b["id"], b["decision"]) for b in blocked] == [("T-1", False)], "an answered decision is not open"


def test_bulk_reports_successful_and_failed(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A", release="R1"), node("T-2", "B", release="R1")])
    updates = [{"id": "T-1", "status": "done", "summary": "shipped"},
               {"id": "T-9", "status": "done", "summary": "nope"},
               {"id": "T-2", "set": {"title": "B renamed"}},
               {"id": "T-2", "status": "blocked"}]
    res = run_cli("bulk", "-", "--json", stdin=json.dumps(updates), cwd=tmp_path)
    assert res.code == 0, res.stderr
    result = res.json["result"]
    assert [s["index"] for s in result["successful"]] == [0, 2]
    assert [(f["index"], f["code"]) for f in result["failed"]] == [(1, "node_not_found"), (3, "missing_argument")]
    assert load(tmp_path, "T-1")["status"] == "done" and load(tmp_path, "T-2")["title"] == "B renamed"
