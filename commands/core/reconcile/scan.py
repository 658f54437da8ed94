"""The repository index reconcile searches: named things, each with a file and a line.

Files come from `git ls-files` when the plan lives in a git work tree (so
ignored files never count) or from a walk that skips dependency and build
folders. Each file yields artifacts: routes (FastAPI, Flask, Django, Express,
Next.js), client routes and UI components (React Router, Vue, Svelte), CLI
commands, models and their fields, tests, and plain symbols. Free text
(comments, docstrings, markup) is deliberately not indexed: a word in a
comment is not a shipped feature.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path, PurePosixPath

from leafwise.commands.core.reconcile import documents as reconcile_docs
from leafwise.commands.core.reconcile import js_source as reconcile_js
from leafwise.commands.core.reconcile import python_source as reconcile_py
from leafwise.commands.core.reconcile import tags as reconcile_tags
from leafwise.commands.core.reconcile.artifacts import Artifact, Index, Source
from leafwise.commands.core.reconcile.text import identifier_concepts

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".leafwise", "node_modules", ".venv", "venv", "env", ".env", "__pycache__",
    "dist", "build", ".next", ".nuxt", ".svelte-kit", "coverage", ".tox", ".nox", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", "target", "vendor", "site-packages", ".cache", "out", ".idea",
    ".vscode", "bower_components", ".parcel-cache", ".turbo", "htmlcov", ".eggs",
})
PY_EXT = frozenset({".py"})
JS_EXT = frozenset({".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".vue", ".svelte"})
OTHER_EXT = frozenset({".go", ".rb"})
MAX_BYTES = 400_000
MAX_WALK = 100_000

def list_files(root: Path) -> tuple[list[str], bool]:
    """Files worth scanning, relative to root; git's view when root is in a work tree."""
    files: list[str] | None = None
    in_git = False
    try:
        proc = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "-co", "--exclude-standard"],
                              capture_output=True, timeout=30)
        if proc.returncode == 0:
            files = [f for f in proc.stdout.decode("utf-8", "replace").split("\0") if f]
            in_git = True
    except (OSError, subprocess.TimeoutExpired):
        files = None
    if files is None:
        files = []
        for folder, dirs, names in os.walk(root):
            if len(files) >= MAX_WALK:
                break  # not a repository but a whole disk: enough to judge by
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")]
            rel_dir = os.path.relpath(folder, root)
            for name in names:
                files.append(name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/"))
    keep = []
    for rel in files:
        parts = rel.split("/")
        if not SKIP_DIRS.intersection(parts[:-1]):
            keep.append(rel)
    keep.sort()
    return keep, in_git


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


def build_index(root: Path) -> Index:
    files, in_git = list_files(root)
    index = Index(root, files, in_git=in_git)
    sources: list[Source] = []
    for rel in files:
        suffix = PurePosixPath(rel).suffix
        name = PurePosixPath(rel).name
        if suffix not in PY_EXT and suffix not in JS_EXT and suffix not in OTHER_EXT and name not in ("package.json", "pyproject.toml"):
            continue
        try:
            path = root / rel
            if path.stat().st_size > MAX_BYTES:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        index.texts[rel] = text
        sources.append(Source(rel, text))
    py = [s for s in sources if s.path.suffix in PY_EXT or s.path.name == "pyproject.toml"]
    js = [s for s in sources if s.path.suffix in JS_EXT or s.path.name == "package.json"]
    reconcile_py.scan(index, py)
    reconcile_js.scan(index, js)
    doc_files = [f for f in files if reconcile_docs.kind_of(f)]
    reconcile_tags.scan(index, sources)
    reconcile_docs.scan(index, root, doc_files)
    _merge_duplicates(index)
    index.has_ui = any(a.kind in ("page", "component") for a in index.artifacts)
    for src in sources:
        if src.path.name not in ("package.json", "pyproject.toml", "__init__.py") and not src.is_test:
            words = identifier_concepts(src.path.stem)
            if words:
                src.add(index, "module", src.rel, 0, words)
    return index

