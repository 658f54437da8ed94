"""The repository index reconcile searches: named things, each with a file and a line.

Files come from `git ls-files` when the plan lives in a git work tree (so
ignored files never count) or from a walk that skips dependency and build
folders. Each file yields artifacts: routes (FastAPI, Flask, Django, Express,
file-based routers: Next.js, Remix, SvelteKit, Nuxt, TanStack), client routes and
UI components (React Router, Vue, Svelte), CLI commands, models and their fields,
tests, and plain symbols; and documents in words (docstrings, help texts, docs). Languages without a
tree-sitter grammar here (Rust, PHP, Java, Kotlin, Scala, C#, Swift, Dart) go through one line scanner of
their definitions, flags, routes and strings (`generic_source.py`).

Speed (a 5,000-file repository in a few seconds on 2 cores):
- what a file yields depends on its bytes and on a few facts from other files (the
  prefix its router is mounted under); it is cached by exactly those
  (`index_cache.py`), so a second run parses only what changed;
- the files left to parse are split between this process and one forked worker when
  there are many (and this process runs no other thread);
- minified bundles are not parsed, files over `MAX_BYTES` are not read.
What needs the whole repository (mount prefixes, frameworks, file-based routes,
`package.json` scripts, client routes naming components) is worked out on every run.
"""

from __future__ import annotations

import gc
import marshal
import os
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from leafwise.commands.reconcile import documents as reconcile_docs
from leafwise.commands.reconcile import file_routes, generic_source, index_cache
from leafwise.commands.reconcile import js_source as reconcile_js
from leafwise.commands.reconcile import python_source as reconcile_py
from leafwise.commands.reconcile import registered_routes
from leafwise.commands.reconcile import tags as reconcile_tags
from leafwise.commands.reconcile.artifacts import Artifact, Index, Source
from leafwise.commands.reconcile.text import identifier_concepts
from leafwise.store import git, reader

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".leafwise", "node_modules", ".venv", "venv", "env", ".env", "__pycache__",
    "dist", "build", ".next", ".nuxt", ".svelte-kit", "coverage", ".tox", ".nox", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", "target", "vendor", "site-packages", ".cache", "out", ".idea",
    ".vscode", "bower_components", ".parcel-cache", ".turbo", "htmlcov", ".eggs",
})
PY_EXT = frozenset({".py"})
JS_EXT = frozenset({".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".vue", ".svelte"})
OTHER_EXT = frozenset({".go", ".rb"})
GENERIC_EXT = generic_source.GENERIC_EXT  # Rust, PHP, Java, Kotlin, Scala, C#, Swift, Dart: one line scanner
MAX_BYTES = reader.CODE.cap
CODE = reader.CODE
MAX_WALK = 100_000
SKIP_MINIFIED = True
MINIFIED_LINE = 300  # average characters per line above which a script is a minified bundle
PARALLEL_FILES = 300  # files to parse before a second process is worth its start
WORKERS_ENV = "LEAFWISE_RECONCILE_WORKERS"  # "1": parse in this process only

def list_files(root: Path) -> tuple[list[str], bool]:
    """Files worth scanning, relative to root; git's view when root is in a work tree."""
    files = _git_files(root)
    in_git = files is not None
    if files is None:  # not a repository: a walk, stopped at MAX_WALK (a whole disk is enough to judge by)
        files = list(reader.walk(root, SKIP_DIRS, MAX_WALK))
    keep = []
    for rel in files:
        parts = rel.split("/")
        if not SKIP_DIRS.intersection(parts[:-1]):
            keep.append(rel)
    keep.sort()
    return keep, in_git


def _git_files(root: Path) -> list[str] | None:
    """Tracked and untracked-but-not-ignored files under `root`, relative to it (None: no git here)."""
    try:
        under = git.pin(root).rel(root)
        out = git.run_git(root, "ls-files", "-z", "-co", "--exclude-standard", "--", under, deadline=30)
    except git.GitError:
        return None
    cut = 0 if under == "." else len(under) + 1  # git names files from the work tree's top
    return [f[cut:] for f in out.decode("utf-8", "replace").split("\0") if f]


def _merge_duplicates(index: Index) -> None:
    """One artifact per thing: a script found twice (shebang, package.json) keeps both names' words."""
    seen: dict[tuple[str, str, int, str], Artifact] = {}
    kept: list[Artifact] = []
    for art in index.artifacts:
        key = (art.kind, art.path, art.line, "" if art.kind == "cli" else art.name)
        first = seen.get(key)
        if first is None:
            seen[key] = art
            kept.append(art)
        else:
            first.words = first.words | art.words
    index.artifacts = kept


def minified(rel: str, text: str) -> bool:
    """A bundled or minified script: long lines of code nobody names features in."""
    if rel.endswith((".min.js", ".min.mjs", ".min.cjs")):
        return True
    return len(text) > 4000 and len(text) / (text.count("\n") + 1) > MINIFIED_LINE


def _read(root: Path, rel: str, kind: reader.Kind) -> bytes | None:
    """The file through the one reader (no link on the way from `root`, a regular file, at most the
    kind's cap); None when it is larger, gone, unreadable or refused."""
    try:
        data = reader.read_bytes(root / rel, kind, under=root)
    except (OSError, ValueError):  # reader.Refused is a ValueError
        return None
    return data if len(data) <= kind.cap else None


def _text(data: bytes) -> str:
    """UTF-8 (errors replaced), CRLF as LF, a lone CR kept: lines as git numbers them, so an artifact's
    file:line is the line a quote of it is checked against (`verify_quotes`) and `sed -n` shows."""
    return reader.decode(data, lone_cr=False)


# A file to scan: (path, text, language "py" | "js" | "other" | "generic" | "", document kind or None, context)
Job = tuple[str, str, str, "str | None", object]


def _scan_one(job: Job) -> index_cache.Entry:
    """Everything one file yields on its own: the same whether it runs here, in a worker or came from the cache."""
    rel, text, lang, doc_kind, ctx = job
    pack = index_cache.pack
    index = Index(Path("."), [rel])
    src = Source(rel, text)
    lang_arts: tuple = ()
    routed: tuple = ()
    tag_arts: tuple = ()
    tag_docs: tuple = ()
    module: tuple = ()
    if lang:
        bundle = lang in ("js", "generic") and SKIP_MINIFIED and minified(rel, text)
        if lang == "py":
            reconcile_py.scan_file(index, src, ctx)
        elif lang == "js" and src.path.name != "package.json" and not bundle:
            routed = tuple(reconcile_js.scan_file(index, src, list(ctx)))
        elif lang == "other":
            registered_routes.scan_file(index, src)
        elif lang == "generic" and not bundle:
            generic_source.scan_routes(index, src)
        lang_arts = tuple(map(pack, index.artifacts))
        index.artifacts = []
        if lang == "generic" and not bundle:
            generic_source.scan(index, src)
        elif not bundle:
            reconcile_tags.scan(index, [src])
        tag_arts = tuple(map(pack, index.artifacts))
        tag_docs = tuple(map(pack, index.docs))
        index.artifacts, index.docs = [], []
        if src.path.name not in ("package.json", "pyproject.toml", "__init__.py") and not src.is_test:
            words = identifier_concepts(src.path.stem)
            if words:
                module = (pack(src.add(index, "module", src.rel, 0, words)),)
    doc_docs: tuple = ()
    if doc_kind:
        index.texts[rel] = text
        reconcile_docs.scan(index, index.root, [rel])
        doc_docs = tuple(map(pack, index.docs))
    return (lang_arts, routed, tag_arts, tag_docs, doc_docs, module)


def _scan_many(jobs: list[Job]) -> list[bytes]:
    return [marshal.dumps(_scan_one(job)) for job in jobs]


def _workers() -> int:
    try:
        wanted = int(os.environ.get(WORKERS_ENV, "2"))
    except ValueError:
        wanted = 2
    return max(1, min(wanted, os.cpu_count() or 1, 2))


_SHARED: tuple[list[Job], object] | None = None  # the jobs and the next-chunk counter a forked worker inherits
CHUNK = 8


def _take(chunk: int) -> dict[int, bytes]:
    """Chunks of the shared jobs (largest first) until none are left, each taken by whoever is free."""
    assert _SHARED is not None
    jobs, counter = _SHARED
    out: dict[int, bytes] = {}
    while True:
        with counter.get_lock():  # type: ignore[attr-defined]
            start = counter.value  # type: ignore[attr-defined]
            counter.value = start + chunk  # type: ignore[attr-defined]
        if start >= len(jobs):
            return out
        for k in range(start, min(start + chunk, len(jobs))):
            out[k] = marshal.dumps(_scan_one(jobs[k]))


def _scan_all(jobs: list[Job]) -> list[bytes]:
    """Each job's entry as the cache holds it (marshalled), in order: shared with a forked worker
    when there are many and forking is safe (no other thread in this process: a fork copies locks
    other threads may hold). Both take chunks from one counter, so neither waits for the other."""
    global _SHARED
    if len(jobs) < PARALLEL_FILES or _workers() < 2 or threading.active_count() > 1 \
            or not sys.platform.startswith("linux"):  # macOS system libraries are not safe across a bare fork
        return _scan_many(jobs)
    import multiprocessing

    order = sorted(range(len(jobs)), key=lambda k: -len(jobs[k][1]))  # the largest first: the last chunks are small
    ctx = multiprocessing.get_context("fork")
    try:
        _SHARED = ([jobs[k] for k in order], ctx.Value("q", 0))
        pool = ctx.Pool(1)  # forks now: the worker inherits _SHARED, nothing is sent to it
    except Exception:  # no fork here (a daemonic process, no semaphores, out of processes): one process
        _SHARED = None
        return _scan_many(jobs)
    try:
        with pool:
            pending = pool.apply_async(_take, (CHUNK,))
            got = _take(CHUNK)
            try:
                got.update(pending.get(timeout=600))
            except Exception:  # a worker that died or timed out: what it took is parsed here
                pass
    finally:
        _SHARED = None
    blobs = [b""] * len(jobs)
    for pos, k in enumerate(order):
        blob = got.get(pos)
        blobs[k] = blob if blob is not None else marshal.dumps(_scan_one(jobs[k]))
    return blobs


def _unpack(entry: index_cache.Entry) -> tuple:
    lang, routed, tag_arts, tag_docs, doc_docs, module = entry
    unpack = index_cache.unpack
    return (unpack(lang), routed, unpack(tag_arts), unpack(tag_docs), unpack(doc_docs), unpack(module))


def build_index(root: Path, use_cache: bool = True) -> Index:
    """The index of the repository at `root`; the cache under its plan folder (if any) speeds it up
    and never changes it (`use_cache=False` or LEAFWISE_RECONCILE_CACHE=0 to go without)."""
    collecting = gc.isenabled()
    gc.disable()  # ~100k small objects and no cycles: the cyclic collector would only walk them again and again
    try:
        return _build_index(root, use_cache)
    finally:
        if collecting:
            gc.enable()


@dataclass(slots=True)
class _Files:
    """What the files to scan hold: sources in a language, documents, each one's digest."""

    sources: list[Source] = field(default_factory=list)
    langs: dict[str, str] = field(default_factory=dict)  # rel -> "py" | "js" | "other" | "generic"
    doc_kinds: dict[str, str] = field(default_factory=dict)
    digests: dict[str, bytes] = field(default_factory=dict)
    doc_only: dict[str, str] = field(default_factory=dict)  # documents in no language: their text


def _language(rel: str) -> str:
    name = rel.rpartition("/")[2]
    dot = name.rfind(".")
    suffix = name[dot:] if 0 < dot < len(name) - 1 else ""  # as PurePosixPath(rel).suffix
    return "py" if suffix in PY_EXT or name == "pyproject.toml" else \
        "js" if suffix in JS_EXT or name == "package.json" else "other" if suffix in OTHER_EXT else \
        "generic" if suffix in GENERIC_EXT and not generic_source.is_tooling(rel) else ""


def _read_files(root: Path, files: list[str], index: Index) -> _Files:
    """Each file a scanner wants, read through the one reader (texts of sources go into `index`)."""
    got = _Files()
    for rel in files:
        lang = _language(rel)
        doc_kind = reconcile_docs.kind_of(rel)
        if doc_kind and reconcile_docs.TEST_DIRS.intersection(rel.split("/")[:-1]):
            doc_kind = None  # documents.scan leaves out test folders' documents
        if not lang and not doc_kind:
            continue
        data = _read(root, rel, CODE if lang else reconcile_docs.DOC)
        if data is None:
            continue
        text = _text(data)
        got.digests[rel] = index_cache.digest(data)
        if doc_kind:
            got.doc_kinds[rel] = doc_kind
        if lang:
            index.texts[rel] = text
            got.langs[rel] = lang
            got.sources.append(Source(rel, text))
        else:
            got.doc_only[rel] = text
    return got


def _contexts(got: _Files, by_rel: dict[str, Source]) -> dict[str, object]:
    """Per file, the facts from other files its artifacts depend on (the prefix its router is mounted under)."""
    py = [s for s in got.sources if got.langs[s.rel] == "py"]
    js = [s for s in got.sources if got.langs[s.rel] == "js"]
    py_mounts = reconcile_py.mount_prefixes(py)
    js_mounts = reconcile_js.mount_prefixes(js, by_rel)
    out: dict[str, object] = {}
    for rel in got.digests:
        lang = got.langs.get(rel)
        out[rel] = reconcile_py.mounted(by_rel[rel], py_mounts) if lang == "py" else \
            tuple(js_mounts.get(rel, [""])) if lang == "js" else None
    return out


def _build_index(root: Path, use_cache: bool) -> Index:
    files, in_git = list_files(root)
    index = Index(root, files, in_git=in_git)
    cache = index_cache.IndexCache.for_repo(root) if use_cache else None
    cached = cache.read() if cache is not None else {}
    got = _read_files(root, files, index)
    by_rel = {s.rel: s for s in got.sources}
    routes = file_routes.Context.of([s for s in got.sources if got.langs[s.rel] == "js"
                                     and s.path.name == "package.json"], files)
    context = _contexts(got, by_rel)
    scanned = [rel for rel in files if rel in got.digests]
    keys = {rel: (rel, got.digests[rel], context[rel]) for rel in scanned}
    blobs, artifacts = _cached_entries(scanned, keys, cached)
    missing = [rel for rel in scanned if rel not in artifacts]
    jobs = [(rel, by_rel[rel].text if rel in by_rel else got.doc_only[rel], got.langs.get(rel, ""),
             got.doc_kinds.get(rel), context[rel]) for rel in missing]
    for rel, blob in zip(missing, _scan_all(jobs)):
        blobs[rel] = blob
        artifacts[rel] = _unpack(marshal.loads(blob))
    if cache is not None and (missing or len(blobs) != len(cached)):
        cache.write({keys[rel]: blob for rel, blob in blobs.items()})
    _assemble(index, got.sources, got.langs, artifacts, by_rel, routes, got.doc_kinds, scanned)
    return index


def _cached_entries(scanned: list[str], keys: dict[str, tuple], cached: dict) -> tuple[dict[str, bytes],
                                                                                     dict[str, tuple]]:
    """The cache's entries (marshalled, and unpacked) for the files whose key it holds."""
    blobs: dict[str, bytes] = {}
    artifacts: dict[str, tuple] = {}
    for rel in scanned:
        blob = cached.get(keys[rel])
        if isinstance(blob, bytes):
            try:
                artifacts[rel] = _unpack(marshal.loads(blob))
                blobs[rel] = blob
            except (TypeError, ValueError, EOFError):
                pass  # not what this version writes: parse again
    return blobs, artifacts


def _assemble(index: Index, sources: list[Source], langs: dict[str, str], artifacts: dict[str, tuple],
              by_rel: dict[str, Source], routes: file_routes.Context, doc_kinds: dict[str, str],
              scanned: list[str]) -> None:
    """The index in the order the scanners always made it: Python, then JS/TS (with what needs
    the whole repository), then tree-sitter definitions and documents, then documents in words."""
    for src in sources:
        if langs[src.rel] == "py":
            index.artifacts.extend(artifacts[src.rel][0])
    routed: dict[str, list[str]] = {}
    for src in sources:
        if langs[src.rel] != "js":
            continue
        if src.path.name == "package.json":
            reconcile_js.package(index, src, by_rel)
            continue
        index.artifacts.extend(artifacts[src.rel][0])
        for comp, path in artifacts[src.rel][1]:
            routed.setdefault(comp, []).append(path)
        file_routes.scan_file(index, src, routes)
    reconcile_js.pages_of_routes(index, routed)
    for src in sources:
        if langs[src.rel] in ("other", "generic"):
            index.artifacts.extend(artifacts[src.rel][0])
    for src in sources:
        index.artifacts.extend(artifacts[src.rel][2])
        index.docs.extend(artifacts[src.rel][3])
    for rel in scanned:
        if rel in doc_kinds:
            index.docs.extend(artifacts[rel][4])
    _merge_duplicates(index)
    index.has_ui = any(a.kind in ("page", "component") for a in index.artifacts)
    for src in sources:
        index.artifacts.extend(artifacts[src.rel][5])
