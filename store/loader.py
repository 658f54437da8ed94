"""Reading a plan fast: PyYAML's C loader, a stat-keyed cache, and per-file errors.

Reads never write plan files. The only thing a read may write is the cache
under `.leafwise/.cache/`, which is derived and safe to delete.
"""

from __future__ import annotations

import gc
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leafwise.store.cache import CACHE_NAME, Entry, NodeCache, StatKey
from leafwise.store.model import (
    CASCADE_MODES,
    LIST_FIELDS,
    STATUSES,
    Node,
    Plan,
    Problem,
    Project,
    Release,
    Status,
)
from leafwise.store.paths import ID_PATTERN, PlanPaths

_STATUS_OF = {s.value: s for s in Status}  # a dict lookup: Status(x) costs 10x more on 11,000 nodes

_LOADER = None


def _loader():
    """PyYAML's C safe loader, keeping timestamps and dates as the strings the file has.

    Built on first use: a warm `leafwise next` reads only the cache and never
    imports yaml.
    """
    global _LOADER
    if _LOADER is None:
        import yaml

        base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        _LOADER = type("PlanLoader", (base,), {})
        _LOADER.yaml_implicit_resolvers = {
            first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
            for first, resolvers in base.yaml_implicit_resolvers.items()
        }
    return _LOADER


class SchemaError(ValueError):
    def __init__(self, message: str, key: str | None = None, fix: str = ""):
        super().__init__(message)
        self.key = key
        self.fix = fix


@dataclass
class LoadStats:
    files: int = 0
    parsed: int = 0  # files actually parsed (cache misses)


@dataclass
class Loaded:
    """The outcome of reading one node file."""

    data: dict[str, Any] | None
    digest: str
    error: tuple[str, int | None, str] | None = None  # (message, line, code)
    extra: dict[str, Any] = field(default_factory=dict)


def digest_bytes(raw: bytes) -> str:
    import hashlib  # only when a file is parsed: a warm read takes digests from the cache

    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def parse_yaml(text: str | bytes) -> Any:
    import yaml

    return yaml.load(text, Loader=_loader())


def _line_of_key(raw: bytes, key: str | None) -> int | None:
    """1-based line of a top-level key; only computed on the error path."""
    if key is None:
        return 1
    import yaml

    try:
        root = yaml.compose(raw, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    if isinstance(root, yaml.MappingNode):
        for k, _v in root.value:
            if getattr(k, "value", None) == key:
                return k.start_mark.line + 1
    return 1


def check_node(data: Any, stem: str) -> dict[str, Any]:
    """Raise SchemaError unless `data` is a node the model can hold."""
    if not isinstance(data, dict):
        raise SchemaError("a node file must be a YAML mapping of keys to values", None,
                          "rewrite the file as `key: value` lines with id, title and status")
    for key in ("id", "title", "status"):
        if data.get(key) in (None, ""):
            raise SchemaError(f"required key {key!r} is missing", key if key in data else None,
                              f"add `{key}:` to the file")
    node_id = data["id"]
    if not isinstance(node_id, str) or not ID_PATTERN.match(node_id):
        raise SchemaError(f"id {node_id!r} is not LETTERS-NUMBER (e.g. SHOP-7)", "id",
                          "set `id:` to a valid id equal to the file name")
    if node_id != stem:
        raise SchemaError(f"id {node_id!r} does not match the file name {stem}.yaml", "id",
                          f"leafwise repair  (or rename the file to {node_id}.yaml)")
    if not isinstance(data["title"], str):
        raise SchemaError("title must be text", "title", "quote the title")
    if data["status"] not in STATUSES:
        raise SchemaError(f"status {data['status']!r} is not one of {', '.join(STATUSES)}",
                          "status", "set status to draft, in-progress, blocked, done or cancelled")
    for key in LIST_FIELDS:
        value = data.get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise SchemaError(f"{key} must be a list of strings", key, f"write {key}: [a, b]")
    for key in ("parent", "release", "assignee", "blocked_reason", "summary", "trigger"):
        value = data.get(key)
        if value is not None and not isinstance(value, (str, int, float)):
            raise SchemaError(f"{key} must be a single value", key, f"write {key}: text")
    if data.get("cascade") not in (None, *CASCADE_MODES):
        raise SchemaError("cascade must be auto or manual", "cascade", "set cascade: auto")
    evidence = data.get("evidence")
    if evidence is not None and not isinstance(evidence, list):
        raise SchemaError("evidence must be a list", "evidence", "write evidence: []")
    for key in ("parent", "release"):
        if isinstance(data.get(key), (int, float)):
            data[key] = str(data[key])
    return data


def read_node_file(path: Path) -> Loaded:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return Loaded(None, "", (f"cannot read: {exc.strerror}", None, "unreadable_file"))
    digest = digest_bytes(raw)
    import yaml

    try:
        data = parse_yaml(raw)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        return Loaded(None, digest, (f"YAML does not parse: {problem}", line, "yaml_error"))
    try:
        check_node(data, path.stem)
    except SchemaError as exc:
        return Loaded(None, digest, (f"{exc} ({exc.fix})" if exc.fix else str(exc),
                                     _line_of_key(raw, exc.key), "schema_error"))
    return Loaded(data, digest)


PROJECT_KEY = "../project.yaml"  # its entry in the node cache; no node file can have this name


def _project_data(paths: PlanPaths, entries: dict[str, Entry], fresh: dict[str, Entry]) -> tuple[Any, list[Problem]]:
    """project.yaml's mapping, from the cache when its stat key still matches."""
    rel = _rel(paths, paths.project_file)
    try:
        st = paths.project_file.stat()
    except FileNotFoundError:
        return {}, [Problem("missing_project", "error", "project.yaml is missing", "leafwise init", file=rel)]
    key: StatKey = (st.st_mtime_ns, st.st_size, st.st_ino)
    hit = entries.get(PROJECT_KEY)
    if hit is None or hit[0] != key:
        import yaml

        raw = paths.project_file.read_bytes()
        try:
            hit = (key, parse_yaml(raw) or {}, digest_bytes(raw), None)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            hit = (key, None, digest_bytes(raw), (f"YAML does not parse: {exc}", mark.line + 1 if mark else None))
    fresh[PROJECT_KEY] = hit
    if hit[3]:
        message, line = hit[3]
        return {}, [Problem("yaml_error", "error", message, f"fix the YAML in {rel}", file=rel, line=line)]
    return hit[1], []


def load_project(paths: PlanPaths, entries: dict[str, Entry] | None = None,
                 fresh: dict[str, Entry] | None = None) -> tuple[Project, list[Problem]]:
    rel = _rel(paths, paths.project_file)
    data, problems = _project_data(paths, entries or {}, fresh if fresh is not None else {})
    if not isinstance(data, dict):
        problems.append(Problem("schema_error", "error", "project.yaml must be a mapping",
                                f"rewrite {rel} as key: value lines", file=rel, line=1))
        data = {}
    releases: list[Release] = []
    for entry in data.get("releases") or []:
        if isinstance(entry, dict) and entry.get("id") is not None:
            target = entry.get("target")
            releases.append(Release(str(entry["id"]), str(entry.get("title") or entry["id"]),
                                    str(target) if target is not None else None))
        else:
            problems.append(Problem("schema_error", "error", f"release entry {entry!r} has no id",
                                    f"write it as {{id: R1, title: ...}} in {rel}", file=rel))
    prefix = str(data.get("id_prefix") or "TASK").upper()
    project = Project(
        pid=str(data.get("pid") or paths.repo.name),
        name=str(data.get("name") or paths.repo.name),
        id_prefix=prefix,
        releases=releases,
        schema=int(data.get("schema") or 1),
        settings=dict(data.get("settings") or {}),
    )
    return project, problems


def _rel(paths: PlanPaths, path: Path) -> str:
    try:
        return str(path.relative_to(paths.repo))
    except ValueError:
        return str(path)


PARALLEL_FROM = 2000  # files to parse before a cold load is worth a second process


def _parse_chunk(folder: str, names: list[str]) -> list[tuple[str, Loaded]]:
    return [(name, read_node_file(Path(folder, name))) for name in names]


def parse_files(folder: Path, names: list[str]) -> dict[str, Loaded]:
    """Parse node files; a big cold load is split across processes.

    Only a single-threaded process forks (the CLI): forking one that runs
    threads (the canvas, the MCP server) could copy a held lock.
    """
    import threading

    workers = min(os.cpu_count() or 1, 4)
    if len(names) < PARALLEL_FROM or workers < 2 or threading.active_count() > 1:
        return dict(_parse_chunk(str(folder), names))
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    step = -(-len(names) // workers)
    chunks = [names[i:i + step] for i in range(0, len(names), step)]
    out: dict[str, Loaded] = {}
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        for part in pool.map(_parse_chunk, [str(folder)] * len(chunks), chunks):
            out.update(part)
    return out


def cache_for(paths: PlanPaths) -> NodeCache:
    return NodeCache(paths.cache / CACHE_NAME)


def load_plan(paths: PlanPaths, *, use_cache: bool = True, stats: LoadStats | None = None) -> Plan:
    """Load the whole plan; broken files become problems, never exceptions."""
    # Tens of thousands of fresh objects and no garbage cycles: the cyclic
    # collector would only re-scan them again and again (~15% of a load).
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _load(paths, use_cache, stats if stats is not None else LoadStats())
    finally:
        if enabled:
            gc.enable()


def _load(paths: PlanPaths, use_cache: bool, stats: LoadStats) -> Plan:
    cache = cache_for(paths) if use_cache else None
    entries = cache.read() if cache else {}
    fresh: dict[str, Entry] = {}
    project, problems = load_project(paths, entries, fresh)
    nodes: dict[str, Node] = {}
    nodes_rel = _rel(paths, paths.nodes) + "/"
    try:
        scan = list(os.scandir(paths.nodes))
    except FileNotFoundError:
        scan = []
    misses: dict[str, StatKey] = {}
    get = entries.get
    for entry in scan:  # one pass: a cache hit becomes a node at once (the common, hot case)
        name = entry.name
        if name[-5:] != ".yaml" or name[0] == ".":
            continue
        try:
            st = entry.stat()
        except FileNotFoundError:  # removed while we scanned
            continue
        key = (st.st_mtime_ns, st.st_size, st.st_ino)
        hit = get(name)
        if hit is None or hit[0] != key:
            misses[name] = key
            continue
        fresh[name] = hit
        _add(nodes, problems, nodes_rel, name, hit)
    stats.files += len(fresh) - (PROJECT_KEY in fresh) + len(misses)
    stats.parsed += len(misses)
    for name, loaded in parse_files(paths.nodes, list(misses)).items():
        item = fresh[name] = (misses[name], loaded.data, loaded.digest, loaded.error)
        _add(nodes, problems, nodes_rel, name, item)
    plan = Plan(paths=paths, project=project, nodes=nodes, problems=problems)
    unchanged = (not misses and fresh.keys() == entries.keys()
                 and fresh.get(PROJECT_KEY) is entries.get(PROJECT_KEY))
    snapshot = cache.snapshot() if cache is not None and unchanged else None
    if snapshot is not None and snapshot.keys() == nodes.keys():
        for nid, (children, depth, release) in snapshot.items():
            node = nodes[nid]
            node.children, node.depth, node.effective_release = children, depth, release
    else:
        index(plan)
        if cache is not None:
            cache.write(fresh, {nid: (n.children, n.depth, n.effective_release) for nid, n in nodes.items()})
    return plan


def _add(nodes: dict[str, Node], problems: list[Problem], nodes_rel: str, name: str, item: Entry) -> None:
    _key, data, digest, error = item
    if error:
        message, line, code = error
        # the fix is a person's (or agent's) text edit; diagnose shows the file, line and cause
        problems.append(Problem(code, "error", message, f"leafwise diagnose {name[:-5]}",
                                node=name[:-5], file=nodes_rel + name, line=line))
        return
    nodes[data["id"]] = Node(data["id"], data["title"], _STATUS_OF[data["status"]], data, nodes_rel + name,
                             digest)


def index(plan: Plan) -> None:
    """Children lists, depth and inherited release; safe against parent cycles."""
    nodes = plan.nodes
    parent_of: dict[str, str] = {}
    for node in nodes.values():
        node.children = []
    for nid, node in nodes.items():
        parent = node.data.get("parent")
        if parent and parent != nid and parent in nodes:
            parent_of[nid] = parent
            nodes[parent].children.append(nid)
    resolved: dict[str, tuple[int, str | None]] = {}
    for nid in nodes:
        if nid in resolved:
            continue
        chain: list[str] = []
        seen: set[str] = set()
        cursor: str | None = nid
        while cursor is not None and cursor not in resolved and cursor not in seen:
            seen.add(cursor)
            chain.append(cursor)
            cursor = parent_of.get(cursor)
        if cursor is not None and cursor in resolved:
            depth, release = resolved[cursor]
        else:  # top reached, or a cycle: treat the cycle's entry as a root
            depth, release = -1, None
        for item_id in reversed(chain):
            item = nodes[item_id]
            depth += 1
            release = item.data.get("release") or release
            resolved[item_id] = (depth, release)
            item.depth = depth
            item.effective_release = release
    order = plan.sort_key()
    for node in nodes.values():
        if len(node.children) > 1:
            node.children.sort(key=lambda cid: order(nodes[cid]))
