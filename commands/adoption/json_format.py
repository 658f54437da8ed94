"""A Leafwise JSON export (`leafwise export json`) read back: the round trip, or a plan moved between repositories.

Every node field comes back as it was, under a new id, its references (parent, depends_on) rewritten;
its first doc is the node's doc again. A node that came from another tracker keeps its `source`, so
importing the original tracker's file afterwards still finds it; any other node's source is
`{tool: leafwise, id: <its id in the export>}`.
"""

from __future__ import annotations

from typing import Any

from leafwise.commands.adoption import reading
from leafwise.commands.adoption.mapping import Item, Options, Parsed, ReleaseSpec, text

TOOL = "leafwise"
FORMAT = "leafwise.export"
MAPPED = ("id", "title", "status", "parent", "release", "depends_on", "priority", "assignee", "tags",
          "description", "summary", "blocked_reason", "created", "source", "docs", "updated", "_docs")
# Node fields that name files or nodes of the exporting plan: kept in the doc, not as fields.
NOT_CARRIED = ("diagrams", "follows", "renumbered_from")


def parse(options: Options) -> Parsed:
    path = reading.locate(options.path, options.shown, ("plan.json",), "Leafwise export")
    data = reading.parse_json(reading.load_text(path, options.shown, root=options.path), options.shown)
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("nodes"), list):
        raise reading.InputError(options.shown, None, "not a Leafwise export (no \"format\": \"leafwise.export\")",
                                 "make it with leafwise export json FILE")
    parsed = Parsed(TOOL, options.shown, fingerprints=False)  # an export's nodes keep their own source
    for rel in data.get("releases") or []:
        if isinstance(rel, dict) and text(rel.get("id")):
            parsed.releases.append(ReleaseSpec(str(rel["id"]), str(rel.get("title") or rel["id"]),
                                               text(rel.get("target"))))
    for index, node in enumerate(data["nodes"]):
        if not isinstance(node, dict) or not text(node.get("id")):
            options.bad(parsed, None, f"node #{index + 1}", "a node must be an object with an id",
                        "export the plan again", options.shown)
            continue
        options.guarded(parsed, str(node["id"]), f"node {node['id']}", lambda: parsed.items.append(_item(node)))
    return parsed


def _item(node: dict[str, Any]) -> Item:
    key = str(node["id"])
    item = Item(key, str(node.get("title") or ""), f"node {key}", status=str(node.get("status") or "draft"),
                parent=text(node.get("parent")), release=text(node.get("release")),
                depends_on=[str(d) for d in node.get("depends_on") or []], priority=text(node.get("priority")),
                assignee=text(node.get("assignee")), tags=[str(t) for t in node.get("tags") or []],
                description=text(node.get("description")), summary=text(node.get("summary")),
                blocked_reason=text(node.get("blocked_reason")), created=text(node.get("created")))
    src = node.get("source")
    item.source = src if isinstance(src, dict) and src.get("tool") and src.get("id") is not None \
        else {"tool": TOOL, "id": key}
    docs = node.get("_docs") if isinstance(node.get("_docs"), dict) else {}
    texts = [str(v) for v in docs.values()]
    item.sections = [("", texts[0])] if texts else []
    item.sections += [(str(path), str(body)) for path, body in list(docs.items())[1:]]
    item.keep = {k: v for k, v in node.items() if k not in MAPPED and k not in NOT_CARRIED}
    item.extra = {k: node[k] for k in NOT_CARRIED if node.get(k)}
    return item
