"""GitHub issues: the JSON array of `gh issue list --state all --json number,title,body,state,labels,
milestone,assignees,createdAt,closedAt` (camelCase), or the REST API's issues array (snake_case;
its pull requests are skipped).

Milestones are releases (their due date the target). The hierarchy comes from, in order: a sub-issue's
`parent` (gh) or `parent_issue_url` (REST), a task list item `- [ ] #12` in the parent's body, a
"Tracked by #5" / "Part of #5" line in the child's. Labels are tags, except those a rule or `--map`
reads as a priority (`priority: high`, `P1` …) or a status (`label.blocked=status:blocked`). A closed
issue is done, or cancelled when GitHub says "not planned" or a wontfix/duplicate/invalid label says so.
"""

from __future__ import annotations

from typing import Any

from leafwise.commands.adoption import reading
from leafwise.commands.adoption.mapping import Item, Options, Parsed, ReleaseSpec, Skip, day, release_id, text
from leafwise.store import linear

TOOL = "github"
TASK_ITEM = linear.compile(r"(?m)^\s*[-*] \[[ xX]\] +#(\d+)\b")
TRACKED_BY = linear.compile(r"(?im)^\s*(?:tracked by|part of|parent:?)\s+#(\d+)\b")
PRIORITY_LABELS = {"p0": "high", "p1": "high", "p2": "normal", "p3": "low", "p4": "low", "critical": "high",
                   "priority: high": "high", "priority: critical": "high", "priority: medium": "normal",
                   "priority: normal": "normal", "priority: low": "low", "high priority": "high",
                   "low priority": "low", "priority/high": "high", "priority/low": "low"}
CANCEL_LABELS = frozenset({"wontfix", "won't fix", "duplicate", "invalid", "not planned"})
KEYS = ("number", "title", "body", "state", "state_reason", "stateReason", "labels", "milestone", "assignees",
        "assignee", "createdAt", "created_at", "closedAt", "closed_at", "parent", "parent_issue_url")


def parse(options: Options) -> Parsed:
    path = reading.locate(options.path, options.shown, ("issues.json",), "GitHub issues JSON")
    shown = options.shown if path == options.path else f"{options.shown}/{path.relative_to(options.path)}"
    data = reading.parse_json(reading.load_text(path, shown, root=options.path), shown)
    if not isinstance(data, list):
        raise reading.InputError(shown, None, "not a JSON array of issues",
                                 "save `gh issue list --state all --json number,title,body,state,labels,milestone,"
                                 "assignees,createdAt,closedAt` (or the REST issues array) to the file")
    parsed = Parsed(TOOL, shown)
    bodies: dict[str, str] = {}
    for index, issue in enumerate(data):
        where = f"item {index + 1}"
        if not isinstance(issue, dict) or not isinstance(issue.get("number"), int):
            options.bad(parsed, None, where, "an issue must be an object with a number", "keep the number field", shown)
            continue
        where = f"issue #{issue['number']}"
        if issue.get("pull_request"):
            parsed.skipped.append(Skip(str(issue["number"]), where, "a pull request, not an issue"))
            continue
        options.guarded(parsed, str(issue["number"]), where, lambda: _add(parsed, options, issue, where, bodies))
    _hierarchy(parsed, bodies)
    return parsed


def _labels(parsed: Parsed, options: Options, item: Item, labels: list[str]) -> bool:
    for name in labels:
        rule = options.mapped("label", name)
        kind, _, value = (rule or "").partition(":")
        if rule == "skip":
            continue
        if kind == "priority" or (not rule and name.casefold() in PRIORITY_LABELS):
            item.priority = value if rule else PRIORITY_LABELS[name.casefold()]
        elif kind == "status":
            item.status = value
        elif kind == "tag":
            item.tags.append(value)
        elif rule:
            options.bad(parsed, item.key, item.where, f"--map label.{name}={rule}: say priority:, status: or tag:",
                        f"write --map label.{name}=priority:high (or status:blocked, tag:{name})", parsed.file)
            return False
        else:
            item.tags.append(name)
    return True


def _add(parsed: Parsed, options: Options, issue: dict[str, Any], where: str, bodies: dict[str, str]) -> None:
    item = _issue(parsed, options, issue, where)
    if item is not None:
        parsed.items.append(item)
        bodies[item.key] = str(issue.get("body") or "")


def _issue(parsed: Parsed, options: Options, issue: dict[str, Any], where: str) -> Item | None:
    item = Item(str(issue["number"]), str(issue.get("title") or ""), where)
    labels = [str(x.get("name") if isinstance(x, dict) else x) for x in issue.get("labels") or []]
    closed = str(issue.get("state") or "open").casefold() == "closed"
    reason = str(issue.get("state_reason") or issue.get("stateReason") or "").casefold()
    cancelled = reason in ("not_planned", "not planned") or bool(CANCEL_LABELS & {x.casefold() for x in labels})
    item.status = ("cancelled" if cancelled else "done") if closed else "draft"
    if not _labels(parsed, options, item, labels):
        return None
    milestone = issue.get("milestone")
    if isinstance(milestone, dict) and text(milestone.get("title")):
        rid = release_id(milestone["title"])
        if rid not in {r.id for r in parsed.releases}:
            parsed.releases.append(ReleaseSpec(rid, str(milestone["title"]),
                                               day(milestone.get("dueOn") or milestone.get("due_on"))))
        item.release = rid
    people = [str(a.get("login")) for a in issue.get("assignees") or [] if isinstance(a, dict) and a.get("login")]
    item.assignee = people[0] if people else None
    if len(people) > 1:
        item.extra["assignees"] = people
    item.created = text(issue.get("createdAt") or issue.get("created_at"))
    item.sections = [("", str(issue.get("body") or ""))]
    item.extra.update({k: v for k, v in issue.items() if k not in KEYS and v not in (None, [], {})})
    if closed and (issue.get("closedAt") or issue.get("closed_at")):
        item.extra["closed_at"] = issue.get("closedAt") or issue.get("closed_at")
    if isinstance(milestone, dict) and milestone.get("description"):
        item.extra["milestone"] = milestone
    repo = _repository(issue)
    if repo:  # two repositories number their issues alike: the source names which one
        item.source = {"tool": TOOL, "id": f"{repo}#{item.key}"}
    parent = issue.get("parent")
    if isinstance(parent, dict) and parent.get("number") is not None:
        item.parent = str(parent["number"])
    url = str(issue.get("parent_issue_url") or "")
    if url.rpartition("/")[2].isdigit():
        item.parent = url.rpartition("/")[2]
    return item


def _repository(issue: dict[str, Any]) -> str | None:
    """owner/name from the issue's REST `url` or `html_url`, or gh's `url`, when the export carries one."""
    for field, marker in (("url", "api.github.com/repos/"), ("url", "github.com/"), ("html_url", "github.com/")):
        url = str(issue.get(field) or "")
        at = url.find(marker)
        if at >= 0:
            parts = url[at + len(marker):].split("/")
            if len(parts) >= 2 and parts[0] and parts[1]:
                return f"{parts[0]}/{parts[1]}"
    return None


def _hierarchy(parsed: Parsed, bodies: dict[str, str]) -> None:
    """Task lists and "tracked by" lines as parents, where no sub-issue link names one."""
    keys = {i.key for i in parsed.items}
    by_key = {i.key: i for i in parsed.items}
    for key, body in bodies.items():
        for match in TASK_ITEM.finditer(body):
            child = by_key.get(match.group(1))
            if child is not None and child.parent is None and child.key != key:
                child.parent = key
    for item in parsed.items:
        if item.parent is None:
            match = TRACKED_BY.search(bodies.get(item.key, ""))
            if match and match.group(1) in keys and match.group(1) != item.key:
                item.parent = match.group(1)
