"""Each format imports its fixture (made by the real tool where it installs: fixtures/README.md) with
nothing lost: every field of every source item is compared with the node it became, and what no node
field holds is in the node's doc."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml
from testkit import run_cli, run_cli_in_process

TM_STATUS = {"pending": "draft", "in-progress": "in-progress", "done": "done", "review": "in-progress",
             "deferred": "draft", "cancelled": "cancelled", "blocked": "blocked"}
TM_PRIORITY = {"high": "high", "medium": "normal", "low": "low"}


def run_import(root: Path, *args: str) -> dict:
    res = run_cli_in_process("import", *args, "--json", cwd=root)
    assert res.code == 0, res.stdout + res.stderr
    return json.loads(res.stdout)["result"]


def test_taskmaster_tags_tasks_and_subtasks_arrive_with_every_field(plan_root: Path, kit) -> None:
    source = json.loads((kit.fixtures / "taskmaster/.taskmaster/tasks/tasks.json").read_text())
    result = run_import(plan_root, "taskmaster", str(kit.fixtures / "taskmaster"))
    nodes = kit.imported(plan_root)
    back = kit.by_id(nodes)
    assert result["added"] == len(nodes) == sum(1 + len(t["subtasks"]) for tag in source.values() for t in tag["tasks"])
    assert [(r["id"], r["title"]) for r in result["releases"]] == \
        [("master", "master"), ("release-2", "The second release")]
    for tag, body in source.items():
        for task in body["tasks"]:
            for raw, key, parent in [(task, f"{tag}/{task['id']}", None)] + \
                    [(s, f"{tag}/{task['id']}.{s['id']}", f"{tag}/{task['id']}") for s in task["subtasks"]]:
                node = nodes[key]
                assert node["title"] == raw["title"] and node["description"] == raw["description"]
                adjusted = raw["status"] == "done" and any(s["status"] != "done" for s in raw.get("subtasks", []))
                assert node["status"] == ("in-progress" if adjusted else TM_STATUS[raw["status"]])
                if raw["status"] in ("review", "deferred"):
                    assert raw["status"] in node["tags"]
                if "priority" in raw:
                    assert node["priority"] == TM_PRIORITY[raw["priority"]]
                assert (back[node["parent"]] if node.get("parent") else None) == parent
                assert node["_release"] == tag  # a tag is a release; a subtask inherits its task's
                deps = [f"{tag}/{d}" for d in raw["dependencies"]]
                assert sorted(back[d] for d in node.get("depends_on") or []) == sorted(deps)
                for text in (raw.get("details"), raw.get("testStrategy")):
                    assert not text or text in node["_doc"]
                rest = {k: v for k, v in raw.items() if k not in
                        ("id", "title", "description", "details", "testStrategy", "status", "dependencies",
                         "priority", "subtasks", "parentTaskId")}
                assert kit.extra_fields(node["_doc"]) == rest


def test_backlog_tasks_drafts_archive_and_milestones_arrive_with_every_field(plan_root: Path, kit) -> None:
    folder = kit.fixtures / "backlog"
    result = run_import(plan_root, "backlog", str(folder))
    nodes = kit.imported(plan_root)
    back = kit.by_id(nodes)
    milestones = {}
    for path in (folder / "milestones").glob("*.md"):
        meta = yaml.safe_load(path.read_text().split("---\n")[1])
        milestones[meta["id"]] = meta["title"]
    assert {r["id"] for r in result["releases"]} == set(milestones.values())
    files = [p for sub in ("tasks", "drafts", "archive/tasks") for p in sorted(folder.glob(f"{sub}/*.md"))]
    assert result["added"] == len(files) == len(nodes)
    statuses = {"To Do": "draft", "In Progress": "in-progress", "In Review": "in-progress", "Done": "done"}
    for path in files:
        raw = path.read_text()
        _, head, body = raw.split("---\n", 2)
        meta = yaml.safe_load(head)
        node = nodes[meta["id"]]
        assert node["title"] == meta["title"]
        kind = path.parent.relative_to(folder).as_posix()  # tasks, drafts, archive/tasks
        assert node["status"] == {"drafts": "draft", "tasks": None}.get(kind, "cancelled") or statuses[meta["status"]]
        assert node["_doc"].startswith(body.strip())  # the body as written, then the fields no node field holds
        assert (node.get("assignee"), node.get("tags") or []) == (
            meta["assignee"][0].lstrip("@") if meta["assignee"] else None,
            meta["labels"] + {"drafts": ["draft"], "tasks": []}.get(kind, ["archived"]))
        assert node.get("release") == (milestones[meta["milestone"]] if meta.get("milestone") else None)
        assert [back[d] for d in node.get("depends_on") or []] == meta["dependencies"]
        assert (back[node["parent"]] if node.get("parent") else None) == meta.get("parent_task_id")
        priorities = {"high": "high", "medium": "normal", "low": "low", None: None}
        assert node.get("priority") == priorities[meta.get("priority")]
        assert str(node["created"])[:16].replace("T", " ") == meta["created_date"]
        rest = {k: v for k, v in meta.items() if k not in ("id", "title", "status", "assignee", "labels", "milestone",
                                                          "dependencies", "parent_task_id", "priority", "created_date")}
        if kind != "tasks" and meta["status"] != "Draft":
            rest["status_in_backlog"] = meta["status"]
        assert kit.extra_fields(node["_doc"]) == rest
    assert nodes["TASK-1"]["summary"] == "CI runs on every push"
    assert nodes["TASK-1"]["description"] == "Repository, CI and a first build"


def test_beads_types_dependencies_priorities_and_tombstones(plan_root: Path, kit) -> None:
    lines = (kit.fixtures / "beads/.beads/issues.jsonl").read_text().splitlines()
    result = run_import(plan_root, "beads", str(kit.fixtures / "beads"))
    nodes = kit.imported(plan_root)
    back = kit.by_id(nodes)
    issues = [json.loads(line) for line in lines]
    tombstones = [i["id"] for i in issues if i["status"] == "tombstone" or i.get("ephemeral")]
    assert [s["key"] for s in result["skips"]] == tombstones and "superseded" in result["skips"][0]["why"]
    assert "ephemeral" in result["skips"][1]["why"]
    statuses = {"open": "draft", "in_progress": "in-progress", "blocked": "blocked", "closed": "done"}
    for issue in issues:
        if issue["id"] in tombstones:
            assert issue["id"] not in nodes
            continue
        node = nodes[issue["id"]]
        children_busy = any(d.get("type") == "parent-child" and d["depends_on_id"] == issue["id"]
                            and i["status"] == "in_progress" for i in issues for d in i.get("dependencies", []))
        assert node["status"] == ("in-progress" if children_busy else statuses[issue["status"]])
        assert node["priority"] == ["high", "high", "normal", "low", "low"][issue["priority"]]
        assert node["tags"] == [issue["issue_type"], *issue.get("labels", [])]
        assert node.get("assignee") == issue.get("assignee")
        assert str(node["created"]) == issue["created_at"]
        deps = issue.get("dependencies", [])
        assert (back[node["parent"]] if node.get("parent") else None) == next(
            (d["depends_on_id"] for d in deps if d["type"] == "parent-child"), None)
        assert [back[d] for d in node.get("depends_on") or []] == \
            [d["depends_on_id"] for d in deps if d["type"] == "blocks"]
        for key in ("description", "design", "acceptance_criteria", "notes"):
            assert not issue.get(key) or issue[key] in node["_doc"]
        assert node.get("summary") == (issue.get("close_reason") if issue["status"] == "closed" else None)
        mapped = ("id", "title", "description", "design", "acceptance_criteria", "notes", "status", "priority",
                  "issue_type", "assignee", "created_at", "labels", "dependencies", "close_reason")
        rest = {k: v for k, v in issue.items() if k not in mapped}
        others = [d for d in deps if d["type"] not in ("parent-child", "blocks")]
        assert kit.extra_fields(node["_doc"]) == rest | ({"dependencies": others} if others else {})
    assert nodes["bd-2"]["blocked_reason"]


def test_github_gh_and_rest_json_milestones_labels_and_hierarchy(plan_root: Path, kit) -> None:
    gh = json.loads((kit.fixtures / "github/gh-issues.json").read_text())
    run_import(plan_root, "github", str(kit.fixtures / "github/gh-issues.json"))
    result = run_import(plan_root, "github", str(kit.fixtures / "github/rest-issues.json"))
    assert [s["key"] for s in result["skips"]] == ["15"]  # a pull request
    nodes = kit.imported(plan_root)
    back = kit.by_id(nodes)
    for issue in gh:
        node = nodes[str(issue["number"])]
        labels = [x["name"] for x in issue["labels"]]
        assert node["title"] == issue["title"] and issue["body"].strip() in node["_doc"]
        closed = "cancelled" if "wontfix" in labels else "done"
        assert node["status"] == ("draft" if issue["state"] == "OPEN" else closed)
        assert node.get("tags", []) == [x for x in labels if not x.startswith("priority")]
        assert node.get("priority") == {"priority: high": "high", "priority: low": "low"}.get(
            next((x for x in labels if x.startswith("priority")), None))
        assert node.get("release") == (issue["milestone"]["title"] if issue["milestone"] else None)
        assert node.get("assignee") == (issue["assignees"][0]["login"] if issue["assignees"] else None)
        assert str(node["created"]) == issue["createdAt"]
        extra = kit.extra_fields(node["_doc"])
        assert extra.get("closed_at") == issue["closedAt"]
    assert [back.get(nodes[k].get("parent")) for k in ("1", "2", "3", "4", "5")] == [None, "1", "1", "1", None]
    rest = {k: nodes[f"acme/tool#{k}"] for k in ("12", "13", "14")}
    assert back[rest["13"]["parent"]] == "acme/tool#12" and rest["13"]["priority"] == "high"
    assert rest["14"]["status"] == "cancelled"  # closed as not planned
    releases = {r["id"]: r for r in json.loads(run_cli_in_process("release", "list", "--json", cwd=plan_root)
                                                .stdout)["result"]["items"]}
    assert str(releases["8.2.0"]["target"]) == "2027-01-15"


def test_csv_columns_by_header_and_by_map(plan_root: Path, kit) -> None:
    path = kit.fixtures / "csv/jira.csv"
    run_import(plan_root, "csv", str(path))
    nodes = kit.imported(plan_root)
    back = kit.by_id(nodes)
    assert nodes["SHOP-101"]["title"] == "Cart page" and back[nodes["SHOP-101"]["parent"]] == "SHOP-100"
    assert nodes["SHOP-101"]["tags"] == ["checkout", "ui"] and nodes["SHOP-102"]["priority"] == "high"
    assert [nodes[k]["status"] for k in ("SHOP-100", "SHOP-101", "SHOP-102", "SHOP-103")] == \
        ["in-progress", "done", "draft", "cancelled"]
    assert kit.extra_fields(nodes["SHOP-101"]["_doc"]) == \
        {"Issue Type": "Story", "Reporter": "carol", "Story Points": "3"}
    assert nodes["SHOP-103"]["release"] == "2.0"
    other = plan_root.parent / "other"
    other.mkdir()
    run_cli_in_process("init", "--name", "Other", "--prefix", "OT", cwd=other)
    args = ("import", "csv", str(path), "--map", "title=Description,id=Summary", "--dry-run", "--json")
    res = run_cli(*args, cwd=other)  # the last row has no description: no title
    error = json.loads(res.stdout)["error"]
    assert res.code == 2 and error["details"]["item"] == "line 5 (Refunds)" and "no title" in error["message"]
    res = run_cli(*args, "--partial", cwd=other)
    result = json.loads(res.stdout)["result"]
    assert [i["title"] for i in result["items"]] == ["The whole checkout", "Lists items, totals", "Card details"]
    assert result["skips"][0]["key"] == "Refunds" and "no title" in result["skips"][0]["why"]


def test_backlog_as_real_projects_write_it(plan_root: Path, kit, tmp_path: Path) -> None:
    """What Backlog.md's own backlog holds: `assignee: @name` (not YAML until Backlog.md quotes it),
    references under the prefix the project had before (`task-4` for BACK-4), an archived task whose
    id a live one took again, a readme beside the tasks, and milestones named by tasks only."""
    folder = tmp_path / "backlog"
    for sub in ("tasks", "completed", "archive/tasks"):
        (folder / sub).mkdir(parents=True)
    (folder / "config.yml").write_text('task_prefix: "back"\nstatuses: ["To Do", "In Progress", "Done"]\n')
    (folder / "tasks/readme.md").write_text("# Tasks\n")
    (folder / "completed/back-4 - Setup.md").write_text(
        "---\nid: BACK-4\ntitle: Setup\nstatus: Done\nassignee: @MrLesk\nreporter: @MrLesk\n"
        "created_date: 2025-06-03\nmilestone: M1 - CLI\n---\n\nDone long ago.\n")
    (folder / "tasks/back-7 - Board.md").write_text(
        "---\nid: BACK-7\ntitle: Board\nstatus: To Do\nassignee: [@alice, bob]\nparent_task_id: task-4\n"
        "dependencies: [task-04]\n---\n")
    (folder / "archive/tasks/back-7 - Old board.md").write_text(
        "---\nid: BACK-7\ntitle: Old board\nstatus: To Do\n---\n")
    result = run_import(plan_root, "backlog", str(folder))
    assert result["added"] == 3 and [s["why"] for s in result["skips"]] == ["not a task file (no front matter)"]
    nodes = kit.imported(plan_root)
    back = kit.by_id(nodes)
    assert nodes["BACK-4"]["assignee"] == "MrLesk" and nodes["BACK-4"]["release"] == "M1-CLI"
    assert back[nodes["BACK-7"]["parent"]] == "BACK-4" and nodes["BACK-7"].get("depends_on") is None  # its parent
    assert nodes["BACK-7"]["assignee"] == "alice"
    assert kit.extra_fields(nodes["BACK-7"]["_doc"])["assignees"] == ["alice", "bob"]
    assert nodes["BACK-7~archived"]["title"] == "Old board" and nodes["BACK-7~archived"]["status"] == "cancelled"


def test_backlog_broken_front_matter_is_named_and_a_link_is_never_followed(plan_root: Path, kit,
                                                                          tmp_path: Path) -> None:
    folder = tmp_path / "backlog"
    shutil.copytree(kit.fixtures / "backlog", folder)
    secret = tmp_path / "secret.md"
    secret.write_text("---\nid: TASK-99\ntitle: Outside the folder\nstatus: To Do\n---\n")
    (folder / "tasks/task-99 - Outside.md").symlink_to(secret)
    broken = folder / "tasks/task-4 - Dark-mode.md"
    broken.write_text(broken.read_text().replace("labels:\n  - ui", "labels: [ui"))
    res = run_cli_in_process("import", "backlog", str(folder), "--json", cwd=plan_root)
    error = json.loads(res.stdout)["error"]
    assert res.code == 2 and error["details"]["file"] == f"{folder}/tasks/task-4 - Dark-mode.md"
    assert error["details"]["item"].startswith("front matter, line ") and "YAML" in error["message"]
    result = run_import(plan_root, "backlog", str(folder), "--partial")
    assert "TASK-99" not in kit.imported(plan_root) and "TASK-4" not in kit.imported(plan_root)
    assert [s["why"][:20] for s in result["skips"]] == ["YAML does not parse:", "a symbolic link: nev"]


def test_github_labels_by_the_persons_map(plan_root: Path, kit) -> None:
    path = str(kit.fixtures / "github/gh-issues.json")
    res = run_cli_in_process("import", "github", path, "--map", "label.bug=status:finished", "--json", cwd=plan_root)
    assert res.code == 2 and json.loads(res.stdout)["error"]["details"]["item"] == "issue #3"
    run_import(plan_root, "github", path, "--map", "label.enhancement=tag:feature,label.docs=skip",
               "--map", "label.bug=priority:high,label.epic=status:in-progress")
    nodes = kit.imported(plan_root)
    assert nodes["2"]["tags"] == ["feature"] and nodes["2"]["priority"] == "high"
    assert "tags" not in nodes["4"] and nodes["3"]["priority"] == "high"
    assert nodes["1"]["status"] == "in-progress"


def test_legacy_task_master_and_dotted_beads_ids(plan_root: Path, kit, tmp_path: Path) -> None:
    legacy = tmp_path / "tasks.json"
    legacy.write_text(json.dumps({"tasks": [{"id": 1, "title": "Old layout", "status": "pending", "dependencies": [],
                                             "subtasks": [{"id": 1, "title": "Its step", "status": "done",
                                                           "dependencies": []}]}]}))
    assert run_import(plan_root, "taskmaster", str(legacy))["added"] == 2
    beads = tmp_path / "issues.jsonl"
    beads.write_text("\n".join(json.dumps(i) for i in (
        {"id": "bd-9", "title": "An epic", "status": "open", "priority": 2, "issue_type": "epic"},
        {"id": "bd-9.1", "title": "Its child by id alone", "status": "in_progress", "priority": 2,
         "issue_type": "task"})) + "\n")
    run_import(plan_root, "beads", str(beads))
    nodes = kit.imported(plan_root)
    assert nodes["master/1.1"]["parent"] == nodes["master/1"]["id"] and nodes["master/1"]["_release"] == "master"
    assert nodes["bd-9.1"]["parent"] == nodes["bd-9"]["id"] and nodes["bd-9"]["status"] == "in-progress"
