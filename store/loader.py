"""Reading a plan fast: PyYAML's C loader, a stat-keyed cache, and per-file errors.

Reads never write plan files. The only thing a read may write is the node cache, which is derived,
safe to delete and lives outside the work tree (`store/cache.py`). One file's reading is
`node_files` (and `safe_yaml` under it), project.yaml's is `project_file`.
"""

from __future__ import annotations

import gc
import os
from dataclasses import dataclass
from pathlib import Path

from leafwise.store.cache import Entry, NodeCache, StatKey, node_cache, stat_key
from leafwise.store.model import Node, Plan, Problem, Status
from leafwise.store.node_files import Loaded, check_node, node_file_problem, read_node_file  # noqa: F401
from leafwise.store.paths import PlanPaths, relative
from leafwise.store.project_file import PROJECT_KEY, load_project

# Also imported from here by callers: one file's safe reading and its limits (safe_yaml, schema).
from leafwise.store.safe_yaml import (  # noqa: F401
    MAX_DEPTH,
    MAX_NODE_BYTES,
    MAX_VALUES,
    Refused,
    SchemaError,
    TooLarge,
    check_size,
    describe_error,
    digest_bytes,
    error_line,
    parse_yaml,
    read_bounded,
    safe_load,
    screen,
)
from leafwise.store.schema import MAX_TEXT_CHARS  # noqa: F401

_STATUS_OF = {s.value: s for s in Status}  # a dict lookup: Status(x) costs 10x more on 11,000 nodes


@dataclass
class LoadStats:
    files: int = 0
    parsed: int = 0  # files actually parsed (cache misses)


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
    return node_cache(paths.repo)


def load_plan(paths: PlanPaths, *, use_cache: bool = True, stats: LoadStats | None = None) -> Plan:
    """Load the whole plan; broken files become problems, never exceptions."""
    # Tens of thousands of fresh objects and no garbage cycles: the cyclic
    # collector would only re-scan them again and again (~15% of a load).
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _load(paths, use_cache, stats if stats is not None else LoadStats())
    finally:
        _settle()
        if enabled:
            gc.enable()


def _settle() -> None:
    """Move what the load made to the collector's oldest generation at once, unscanned.

    The objects allocated while collection was off are all young: the first allocation after it is on
    again would scan every one of them (a 25-30 ms pause of the next command step at 11,100 nodes),
    and again on their way to the oldest generation. `freeze` then `unfreeze` splices the young lists
    into the oldest one (no scan, no object left out of collection: nothing stays frozen)."""
    gc.freeze()
    gc.unfreeze()


def _load(paths: PlanPaths, use_cache: bool, stats: LoadStats) -> Plan:
    cache = cache_for(paths) if use_cache else None
    entries = cache.read() if cache else {}
    fresh: dict[str, Entry] = {}
    project, problems = load_project(paths, entries, fresh)
    nodes: dict[str, Node] = {}
    nodes_rel = relative(paths.nodes, paths.repo) + "/"
    try:
        if paths.nodes.is_symlink():  # never read a plan out of some other folder
            problems.append(Problem("symlink", "error", "nodes/ is a symbolic link; its files are not read",
                                    "replace the link with the real folder", file=nodes_rel[:-1]))
            scan = []
        else:
            scan = list(os.scandir(paths.nodes))
    except (FileNotFoundError, NotADirectoryError):
        scan = []
    misses: dict[str, StatKey] = {}
    get = entries.get
    for entry in scan:  # one pass: a cache hit becomes a node at once (the common, hot case)
        name = entry.name
        if name[-5:] != ".yaml" or name[0] == ".":
            continue
        if entry.is_symlink():  # d_type: no extra system call
            problems.append(Problem("symlink", "error", "the node file is a symbolic link; it is not read",
                                    f"replace {nodes_rel}{name} with the real file (or delete it)",
                                    node=name[:-5], file=nodes_rel + name))
            continue
        try:
            st = entry.stat()
        except FileNotFoundError:  # removed while we scanned
            continue
        key = stat_key(st)
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
    same_files = fresh.keys() == entries.keys() and fresh.get(PROJECT_KEY) is entries.get(PROJECT_KEY)
    placed = same_files and all(_same_place(entries[name], fresh[name]) for name in misses)
    snapshot = cache.snapshot() if cache is not None and placed else None
    if snapshot is not None and snapshot.keys() == nodes.keys():
        for nid, (children, depth, release) in snapshot.items():
            node = nodes[nid]
            node.children, node.depth, node.effective_release = children, depth, release
        if misses:  # a status or a summary changed (a start, a complete): the same index, new entries
            cache.write(fresh, snapshot)
    else:
        index(plan)
        if cache is not None:
            cache.write(fresh, {nid: (n.children, n.depth, n.effective_release) for nid, n in nodes.items()})
    return plan


def _same_place(old: Entry, new: Entry) -> bool:
    """Whether a changed file keeps its node where `index` put it: the same id, parent, release and
    title (what children lists, depths, inherited releases and sibling order are made of)."""
    if old[3] or new[3] or not isinstance(old[1], dict) or not isinstance(new[1], dict):
        return False
    return same_place(old[1], new[1])


def same_place(a: dict, b: dict) -> bool:
    """Whether two readings of a node file put the node in the same place in the index (also the
    rule of a warm plan's in-place update, `store/live_plan.py`)."""
    return all(a.get(k) == b.get(k) for k in ("id", "parent", "release", "title"))


def _add(nodes: dict[str, Node], problems: list[Problem], nodes_rel: str, name: str, item: Entry) -> None:
    _key, data, digest, error = item
    if error:
        problems.append(node_file_problem(nodes_rel, name, error))
        return
    nodes[data["id"]] = Node(data["id"], data["title"], _STATUS_OF[data["status"]], data, nodes_rel + name,
                             digest)


def index(plan: Plan) -> None:
    """Children lists, depth and inherited release; safe against parent cycles (each is cut at one
    entry, which `Plan.loop_entries` finds again)."""
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
        else:  # top reached, or a cycle: the cycle's entry becomes a root, cut from its parent's
            depth, release = -1, None  # children, so every walk down the hierarchy ends
            if cursor is not None:
                nodes[cursor].children.remove(chain[-1])
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
