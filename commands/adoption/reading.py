"""Reading another tracker's files: through the one bounded reader, every refusal an `InputError`.

The files come from a checkout or a download, so they are untrusted like a plan file: never through
a link, never a FIFO, capped in size and nesting (`store/reader.py`); their YAML through the safe
loader (`safe_yaml.load_yaml`: no aliases, bounded depth).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from leafwise.commands.adoption.mapping import InputError
from leafwise.store import reader
from leafwise.store.safe_yaml import load_yaml

IMPORT = reader.Kind("import file", 64 * reader.MiB, 64)  # a tracker's export: tens of thousands of items
RECORD = reader.Kind("import record", reader.MiB, 32)  # one JSONL line, one front matter
MAX_FILES = 100_000  # files of one Backlog.md folder
MAX_IMPORT_ITEMS = 50_000  # items one import takes: 300,000 JSONL lines took 21.7 s and 726 MB
SPLIT = (f"split the file into parts of at most {MAX_IMPORT_ITEMS:,} items and {IMPORT.cap // reader.MiB} MiB "
         "and import each")


def link_on_way(root: Path, path: Path) -> Path | None:
    """The first folder or file from `root` (the folder the person named, trusted) down to `path`
    that is a symbolic link, if any: what an import reads must lie inside `root`, and a link in the
    way could point anywhere (`reader.read_text(under=root)` refuses it again when the file is read)."""
    if path == root:
        return None
    at = root
    for part in path.relative_to(root).parts:
        at = at / part
        if at.is_symlink():
            return at
    return None


def link_error(root: Path, shown: str, link: Path) -> InputError:
    where = f"{shown.rstrip('/')}/{link.relative_to(root)}"
    return InputError(where, None, f"{link.name} is a symbolic link; an import never reads through links",
                      "replace the link with the real folder or file")


def locate(path: Path, shown: str, candidates: tuple[str, ...], what: str) -> Path:
    """`path` itself when it is a file, else the first of `candidates` under it; one that lies
    behind a link (`.beads` a link to another folder) refuses the import. A `path` that is there but
    is no folder (a FIFO, a device, a link) is returned too: the reader refuses it by what it is, never
    as "no such file"."""
    if path.is_file() or (os.path.lexists(path) and not path.is_dir()):
        return path
    for rel in candidates:
        if (path / rel).is_file() or (path / rel).is_symlink():
            link = link_on_way(path, path / rel)
            if link is not None:
                raise link_error(path, shown, link)
            return path / rel
    if path.is_dir():
        raise InputError(shown, None, f"no {what} here (looked for {', '.join(candidates)})",
                         f"give the path of the {what}")
    raise InputError(shown, None, "no such file or folder", "check the path")


def load_text(path: Path, shown: str, kind: reader.Kind = IMPORT, *, root: Path | None = None) -> str:
    """The file as text, read from `root` (the folder the person named) with no link followed on
    the way; `path` itself when the person named the file (only its own name is checked then)."""
    under = root if root is not None and path != root else path.parent
    try:
        return reader.read_text(path, kind, under=under, strict=True)
    except reader.Refused as exc:
        error = InputError(shown, f"line {exc.line}" if exc.line and exc.code != "too_large" else None, str(exc),
                           SPLIT if exc.code == "too_large" else exc.fix or "fix the file")
        error.too_much = exc.code == "too_large"
        raise error from exc
    except OSError as exc:
        raise InputError(shown, None, exc.strerror or str(exc), "check the path and its permissions") from exc


def parse_json(raw: str, shown: str, where: str | None = None, kind: reader.Kind = IMPORT) -> Any:
    try:
        return reader.load_json(raw, kind)
    except reader.Refused as exc:
        item = where or (f"line {exc.line}" if exc.line else None)
        raise InputError(shown, item, str(exc), exc.fix or "fix the JSON") from exc


def parse_yaml(raw: str, shown: str, where: str) -> Any:
    try:
        return load_yaml(raw.encode("utf-8"), RECORD)
    except reader.Refused as exc:
        at = f"{where}, line {exc.line}" if exc.line else where
        raise InputError(shown, at, str(exc), exc.fix or "fix the YAML") from exc


def markdown_files(root: Path, folder: Path, links: list[Path] | None = None) -> list[Path]:
    """The `.md` files directly in `folder` (inside `root`), by name. A link among them, or a link
    anywhere from `root` down to `folder` (`tasks` itself, `archive`), goes to `links` (never
    followed); other kinds are left out."""
    link = link_on_way(root, folder)
    if link is not None:
        if links is not None and link not in links:
            links.append(link)
        return []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    named = [e for e in entries[:MAX_FILES] if e.name.endswith(".md") and not e.name.startswith(".")]
    if links is not None:
        links += [Path(e.path) for e in named if e.is_symlink()]
    return [Path(e.path) for e in named if e.is_file(follow_symlinks=False)]
