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
from leafwise.store.ids import DEFAULT_PREFIX, id_problem, is_release_id, prefix_problem
from leafwise.store.model import STATUSES, Node, Plan, Problem, Project, Release, Status
from leafwise.store.paths import PlanPaths, UnsafePath
from leafwise.store.schema import CHECKS, MAX_TEXT_CHARS, problem_words

# Bounded work: a plan file is untrusted input (docs/security.md). The limits are
# checked before a file is parsed (size, anchors, nesting) and on every write
# (check_node runs on what a writer is about to write), so no path gets past them.
MAX_NODE_BYTES = 256 * 1024  # one node file (and project.yaml)
MAX_DEPTH = 32  # nested lists and mappings in one file
MAX_VALUES = 10_000  # scalars in one file
_SCREEN_FROM = 8 * 1024  # below this size nesting cannot reach a depth that hurts the parser
_REFUSED_TAGS = ("timestamp", "binary", "set", "omap", "pairs")  # values JSON cannot carry

_STATUS_OF = {s.value: s for s in Status}  # a dict lookup: Status(x) costs 10x more on 11,000 nodes


class SchemaError(ValueError):
    def __init__(self, message: str, key: str | None = None, fix: str = ""):
        super().__init__(message)
        self.key = key
        self.fix = fix


class TooLarge(SchemaError, UnsafePath):
    """A value or file over a limit (refused on every write path, reported at load)."""


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

        def construct_mapping(self, node, deep=False):
            # PyYAML keeps the last of two equal keys; ruamel (the writer) refuses them.
            # The loader refuses what the writer refuses.
            if isinstance(node, yaml.MappingNode):
                seen: set[tuple[str, str]] = set()
                for key_node, _value in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":  # `<<:` pastes keys no reader sees as set
                        raise yaml.constructor.ConstructorError(
                            "while constructing a mapping", node.start_mark,
                            "merge keys (<<) are not allowed in a plan file (write the keys out)",
                            key_node.start_mark)
                    if isinstance(key_node, yaml.ScalarNode):
                        key = (key_node.tag, key_node.value)
                        if key in seen:
                            raise yaml.constructor.ConstructorError(
                                "while constructing a mapping", node.start_mark,
                                f"found duplicate key {key_node.value!r}", key_node.start_mark)
                        seen.add(key)
            return base.construct_mapping(self, node, deep)

        def refused(self, node):
            raise yaml.constructor.ConstructorError(
                None, None, f"the tag {node.tag} is not allowed in a plan file (write plain text)",
                node.start_mark)

        _LOADER = type("PlanLoader", (base,), {"construct_mapping": construct_mapping})
        _LOADER.yaml_implicit_resolvers = {
            first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
            for first, resolvers in base.yaml_implicit_resolvers.items()
        }
        _LOADER.yaml_constructors = dict(base.yaml_constructors)
        for tag in _REFUSED_TAGS:
            _LOADER.yaml_constructors[f"tag:yaml.org,2002:{tag}"] = refused
    return _LOADER


class Refused(SchemaError, UnsafePath):
    """A file refused before it is parsed (too big, anchors, too deep, a symlink); `line` where it is."""

    def __init__(self, message: str, line: int | None = None, code: str = "yaml_refused"):
        super().__init__(message, None, "")
        self.line = line
        self.code = code


def screen(raw: bytes) -> None:
    """Raise `Refused` for a file whose parsing could be unbounded work.

    Anchors and aliases (`&a`, `*a`: a 556-byte alias bomb expands to gigabytes
    in anything that walks it) are refused outright, like nesting deeper than
    MAX_DEPTH (libyaml's composer recurses: 30,000 `[` crash the process) and
    more than MAX_VALUES values. The event scan runs only when the bytes could
    hold any of it: small files without `&` or `*` cost nothing.
    """
    if len(raw) > MAX_NODE_BYTES:
        # read_bounded stops one byte past the limit: the size beyond it is not known, only that it is over
        raise Refused(f"the file is over the limit of {MAX_NODE_BYTES:,} bytes ({MAX_NODE_BYTES // 1024} KiB)",
                      1, "too_large")
    if len(raw) < _SCREEN_FROM and b"&" not in raw and b"*" not in raw:
        return
    import yaml

    depth = values = 0
    try:
        for event in yaml.parse(raw, Loader=_loader()):
            line = event.start_mark.line + 1 if event.start_mark else None
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise Refused("YAML anchors and aliases (&name, *name) are not allowed in plan files "
                              "(write the value out)", line, "yaml_alias")
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    raise Refused(f"values nest deeper than {MAX_DEPTH} levels", line, "too_deep")
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
            elif isinstance(event, yaml.ScalarEvent):
                values += 1
                if values > MAX_VALUES:
                    raise Refused(f"more than {MAX_VALUES:,} values in one file", line, "too_large")
    except yaml.YAMLError as exc:
        if "nesting depth" in str(exc):  # PyYAML >= 6.0.4 stops deep nesting itself, in the scanner
            mark = getattr(exc, "problem_mark", None)
            raise Refused(f"values nest deeper than {MAX_DEPTH} levels", mark.line + 1 if mark else None,
                          "too_deep") from None
        return  # the real parse reports it, with its line


def safe_load(raw: bytes) -> Any:
    """Parse one plan file's bytes: screened first, then the safe loader."""
    screen(raw)
    return _construct(raw)


def read_bounded(path: Path, limit: int = MAX_NODE_BYTES) -> bytes:
    """A plan file's bytes, never through a symlink and never more than `limit` + 1 bytes."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == 40 or path.is_symlink():  # ELOOP: the last part is a symlink
            raise Refused("the file is a symbolic link; plan files are never read through links "
                          "(replace it with the real file)", None, "symlink") from exc
        raise
    try:
        import stat

        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Refused("not a regular file", None, "unreadable_file")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def error_line(exc: BaseException, raw: bytes) -> int | None:
    """The 1-based line a parse or construction error points at (None if unknown)."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    opened = getattr(exc, "context_mark", None)
    if opened is not None and "end" in str(getattr(exc, "problem", "")) and "stream" in str(exc.problem):
        # An unclosed quote or bracket is found out at the end of the file; where it opened is the line to fix.
        return opened.line + 1
    if mark is not None:
        return mark.line + 1
    if isinstance(exc, Refused):
        return exc.line
    # A ValueError out of a constructor (`!!int abc`, a 4,301-digit number) carries no mark:
    # construct each top-level value alone to find the one that fails (error path only).
    try:
        loader = _loader()(raw)
        try:
            root = loader.get_single_node()
            import yaml

            if not isinstance(root, yaml.MappingNode):
                return 1
            for key, value in root.value:
                try:
                    loader.construct_object(value, deep=True)
                except Exception:  # noqa: BLE001 - any failure is the one we look for
                    return key.start_mark.line + 1
        finally:
            loader.dispose()
    except Exception:  # noqa: BLE001
        return None
    return None


def describe_error(exc: BaseException) -> str:
    """One line saying why a file did not load."""
    import yaml

    if isinstance(exc, Refused):
        return str(exc)
    if isinstance(exc, yaml.YAMLError):
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return f"YAML does not parse: {problem}"
    if isinstance(exc, RecursionError):
        return "YAML does not parse: values nest too deeply"
    return f"a value cannot be read: {str(exc)[:200]}"


def check_size(data: dict[str, Any]) -> None:
    """Raise TooLarge when a text value is over MAX_TEXT_CHARS (nested values included)."""
    stack: list[tuple[str, Any, int]] = [(str(k), v, 1) for k, v in data.items()]
    while stack:
        key, value, depth = stack.pop()
        if isinstance(value, str):
            if len(value) > MAX_TEXT_CHARS:
                raise TooLarge(f"{key} is {len(value):,} characters; the limit is {MAX_TEXT_CHARS:,} "
                               f"({MAX_TEXT_CHARS // 1024} KiB of text per value)", key,
                               f"shorten {key}, or put the long text in a doc under .leafwise/docs/")
        elif depth > MAX_DEPTH:
            raise TooLarge(f"{key} nests deeper than {MAX_DEPTH} levels", key, f"flatten {key}")
        elif isinstance(value, dict):
            stack.extend((key, v, depth + 1) for v in value.values())
            stack.extend((key, str(k), depth + 1) for k in value)
        elif isinstance(value, list):
            stack.extend((key, v, depth + 1) for v in value)


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
    """Any caller's safe parse: screened (see `screen`), and every failure a `yaml.YAMLError`
    with a line, so a caller that catches YAML errors never meets a ValueError from `!!int abc`."""
    import yaml

    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    try:
        return safe_load(raw)
    except yaml.YAMLError:
        raise
    except Exception as exc:  # noqa: BLE001 - construction errors, limits, recursion
        line = error_line(exc, raw)
        mark = yaml.error.Mark("<plan file>", 0, (line or 1) - 1, 0, None, None)
        raise yaml.constructor.ConstructorError(None, None, describe_error(exc), mark) from exc


def _construct(raw: bytes) -> Any:
    import yaml

    return yaml.load(raw, Loader=_loader())


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
    """Raise SchemaError unless `data` is a node the model can hold (the strict fields of store/schema.py)."""
    if not isinstance(data, dict):
        raise SchemaError("a node file must be a YAML mapping of keys to values", None,
                          "rewrite the file as `key: value` lines with id, title and status")
    for key in CHECKS.required:
        if data.get(key) in (None, ""):
            raise SchemaError(f"required key {key!r} is missing", key if key in data else None,
                              f"add `{key}:` to the file")
    node_id = data["id"]
    if problem := id_problem(node_id):
        raise SchemaError(problem, "id", "set `id:` to a valid id equal to the file name")
    if node_id != stem:
        raise SchemaError(f"id {node_id!r} does not match the file name {stem}.yaml", "id",
                          f"run leafwise repair, or rename the file to {node_id}.yaml")
    get = data.get
    # Each loop is one kind of CHECKS, its test written out: this runs on every file a cold load parses.
    for key in CHECKS.text:
        if key in data and not isinstance(data[key], str):
            _wrong(key)
    if data["status"] not in STATUSES:  # a tuple: a planted list or mapping compares unequal, never raises
        raise SchemaError(f"status {data['status']!r} is not one of {', '.join(STATUSES)}",
                          "status", f"set status to {', '.join(STATUSES[:-1])} or {STATUSES[-1]}")
    for key in CHECKS.texts:
        value = get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            _wrong(key)
    for key in CHECKS.value:
        value = get(key)
        if value is not None and not isinstance(value, (str, int, float)):
            _wrong(key)
    for key, choices in CHECKS.choices:
        if get(key) is not None and get(key) not in choices:
            _wrong(key)
    for key in CHECKS.lists:
        if get(key) is not None and not isinstance(get(key), list):
            _wrong(key)
    check_size(data)
    for key in CHECKS.as_text:
        if isinstance(get(key), (int, float)):
            data[key] = str(data[key])
    return data


def _wrong(key: str) -> None:
    message, fix = problem_words(key)
    raise SchemaError(message, key, fix)


def read_node_file(path: Path) -> Loaded:
    """One node file: every way it can be wrong becomes its own error, never an exception."""
    try:
        raw = read_bounded(path)
    except Refused as exc:
        return Loaded(None, "", (str(exc), exc.line, exc.code))
    except OSError as exc:
        return Loaded(None, "", (f"cannot read: {exc.strerror}", None, "unreadable_file"))
    digest = digest_bytes(raw)
    try:
        data = safe_load(raw)
    except Exception as exc:  # noqa: BLE001 - any parse or construction error is this file's problem
        code = exc.code if isinstance(exc, Refused) else "yaml_error"
        return Loaded(None, digest, (describe_error(exc), error_line(exc, raw), code))
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
        try:
            raw = read_bounded(paths.project_file)
        except OSError as exc:
            return {}, [Problem("unreadable_file", "error", f"cannot read project.yaml: {exc.strerror}",
                                "leafwise doctor", file=rel)]
        except Refused as exc:
            return {}, [Problem(exc.code, "error", f"project.yaml: {exc}", f"fix {rel}", file=rel, line=exc.line)]
        try:
            hit = (key, safe_load(raw) or {}, digest_bytes(raw), None)
        except Exception as exc:  # noqa: BLE001 - a broken project.yaml is a problem with a line
            hit = (key, None, digest_bytes(raw), (describe_error(exc), error_line(exc, raw)))
    fresh[PROJECT_KEY] = hit
    if hit[3]:
        message, line = hit[3]
        return {}, [Problem("yaml_error", "error", message, f"fix the YAML in {rel}", file=rel, line=line)]
    return hit[1], []


def load_project(paths: PlanPaths, entries: dict[str, Entry] | None = None,
                 fresh: dict[str, Entry] | None = None) -> tuple[Project, list[Problem]]:
    """project.yaml as a Project; every wrong value is a problem with its line and a safe default."""
    rel = _rel(paths, paths.project_file)
    data, problems = _project_data(paths, entries or {}, fresh if fresh is not None else {})

    def bad(key: str | None, message: str, fix_text: str) -> None:
        line = 1
        if key is not None:
            try:
                line = _line_of_key(read_bounded(paths.project_file), key) or 1
            except (OSError, ValueError):
                line = None
        problems.append(Problem("project_error", "error", f"project.yaml: {message}",
                                f"fix {rel} line {line}: {fix_text}" if line else f"fix {rel}: {fix_text}",
                                file=rel, line=line))

    if not isinstance(data, dict):
        bad(None, "must be a mapping of keys to values", "write it as key: value lines")
        data = {}
    releases: list[Release] = []
    raw_releases = data.get("releases") or []
    if not isinstance(raw_releases, list):
        bad("releases", f"releases must be a list, not {type(raw_releases).__name__}",
            "write releases: [{id: R1, title: MVP}]")
        raw_releases = []
    for entry in raw_releases:
        rid = entry.get("id") if isinstance(entry, dict) else None
        if isinstance(rid, (int, float)) and not isinstance(rid, bool):
            rid = str(rid)
        if is_release_id(rid):
            title, target = entry.get("title"), entry.get("target")
            releases.append(Release(rid, _text(title, rid), _text(target, None)))
        else:
            bad("releases", f"release entry {str(entry)[:80]!r} has no valid id (letters, digits, . _ -)",
                "write it as {id: R1, title: ...}")
    prefix = data.get("id_prefix") or DEFAULT_PREFIX
    if problem := prefix_problem(prefix):
        bad("id_prefix", problem, "id_prefix: SHOP")
        prefix = DEFAULT_PREFIX
    prefix = prefix.upper()
    schema = data.get("schema", 1)
    if schema is None:
        schema = 1
    if isinstance(schema, bool) or not isinstance(schema, int) or not 0 < schema < 1000:
        bad("schema", f"schema must be a version number like 1, not {str(schema)[:40]!r}", "schema: 1")
        schema = 1
    settings = data.get("settings") or {}
    if not isinstance(settings, dict):
        bad("settings", "settings must be a mapping", "settings: {}")
        settings = {}
    for key in ("pid", "name"):
        if isinstance(data.get(key), (dict, list)):
            bad(key, f"{key} must be text", f"{key}: text")
            data = {**data, key: None}
    former: list[str] = []
    raw_former = data.get("former_prefixes") or []
    for item in raw_former if isinstance(raw_former, list) else [raw_former]:
        if problem := prefix_problem(item):
            bad("former_prefixes", problem, "former_prefixes: [SHOP]")
        else:
            former.append(item.upper())
    project = Project(
        pid=_text(data.get("pid"), paths.repo.name),
        name=_text(data.get("name"), paths.repo.name),
        id_prefix=prefix,
        releases=releases,
        schema=schema,
        settings=dict(settings),
        former_prefixes=tuple(dict.fromkeys(former)),
    )
    return project, problems


def _text(value: Any, default: Any) -> Any:
    if value is None or value == "" or isinstance(value, (dict, list)):
        return default
    return str(value)[:MAX_TEXT_CHARS]


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


def node_file_problem(nodes_rel: str, name: str, error: tuple[str, int | None, str]) -> Problem:
    """The problem a node file that does not load is reported as (`Loaded.error`), wherever it is read."""
    message, line, code = error
    # the fix is a person's (or agent's) text edit; diagnose shows the file, line and cause
    return Problem(code, "error", message, f"leafwise diagnose {name[:-5]}", node=name[:-5], file=nodes_rel + name,
                   line=line)


def _add(nodes: dict[str, Node], problems: list[Problem], nodes_rel: str, name: str, item: Entry) -> None:
    _key, data, digest, error = item
    if error:
        problems.append(node_file_problem(nodes_rel, name, error))
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
