"""Verdicts of the verification loop: `.leafwise/verdicts/<ID>.json`, one per node, committed with the plan.

An agent read the code and said whether a draft leaf shipped; each quote it gave was checked against
the file as committed (`commands/domain/verify_quotes.py`). The file keeps what was said, by whom,
against which commit, and the committed blobs of the files it was checked against, so an `absent` or
`partial` leaf goes back to the loop only when that code changes. Written atomically; read through the
one reader with a size and depth cap, every value checked (a verdict file is plan content: a clone's
author may have written it).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any

from leafwise.store import atomic, reader, values
from leafwise.store.paths import PlanPaths, check_id

FOLDER = "verdicts"
VERDICT = reader.Kind("verdict", 256 * reader.KiB, 8)
VERDICTS = ("shipped", "partial", "absent")
# closed: shipped and completed; pending: shipped, waiting for a person's confirmation;
# recorded: partial or absent; rejected: a person said the shipped verdict is wrong
STATES = ("closed", "pending", "recorded", "rejected")
FITS = {"shipped": ("closed", "pending", "rejected"), "partial": ("recorded",), "absent": ("recorded",)}
MAX_QUOTES = 20
# Leafwise writes a verdict's quoted files (at most MAX_QUOTES) and its packet's (at most 10 places): a
# planted 200 of 1,150 characters each on 300 drafts made `verify --next` run 303 git processes, 3.2 s
MAX_FILES = 40
MAX_TEXT = 2000


@dataclass(frozen=True, slots=True)
class Quote:
    """A checked quote: lines `start`-`end` of `path` (relative to the plan's folder) as committed."""

    path: str
    start: int
    end: int
    text: str
    blob: str  # the committed blob the quote was found in
    kind: str  # code | test | docs | other

    @property
    def place(self) -> str:
        return f"{self.path}:{self.start}-{self.end}"


@dataclass(frozen=True, slots=True)
class Verdict:
    node: str
    verdict: str  # shipped | partial | absent
    agent: str
    at: str
    head: str  # the commit the quotes were checked against
    state: str
    quotes: tuple[Quote, ...] = ()
    missing: str = ""
    files: dict[str, str] = field(default_factory=dict)  # path -> committed blob it was checked against
    decided_by: str = ""  # the person who confirmed or rejected a pending verdict
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["quotes"] = [asdict(q) for q in self.quotes]
        return data


def folder(paths: PlanPaths):
    return paths.own_folder(paths.dir / FOLDER)


def read(paths: PlanPaths, node_id: str) -> Verdict | None:
    """The verdict on `node_id`, or None: none recorded, or a file that cannot be trusted."""
    try:
        data = reader.read_json(folder(paths) / f"{check_id(node_id)}.json", VERDICT)
        return from_data(data, node_id)
    except (OSError, ValueError):  # reader.Refused is a ValueError
        return None


def read_all(paths: PlanPaths) -> dict[str, Verdict]:
    """The verdicts on the plan's nodes. A file whose node has no node file is not read: a clone's 2,000
    verdict files of 57 KB on ids no node has (9 MB in git) cost `verify --next` 1.5 s and 208 MB."""
    found: dict[str, Verdict] = {}
    try:
        names = os.listdir(folder(paths))
    except (FileNotFoundError, NotADirectoryError, ValueError):  # ValueError: a symlinked folder
        return found
    for name in names:
        if not name.endswith(".json") or name.startswith("."):
            continue
        try:
            check_id(name[:-5])
        except ValueError:
            continue
        if not os.path.lexists(paths.node_file(name[:-5])):
            continue
        verdict = read(paths, name[:-5])
        if verdict is not None:
            found[verdict.node] = verdict
    return found


def write(paths: PlanPaths, verdict: Verdict) -> None:
    target = folder(paths)
    target.mkdir(parents=True, exist_ok=True)
    atomic.replace(target / f"{check_id(verdict.node)}.json",
                   (json.dumps(verdict.as_dict(), indent=1, ensure_ascii=False) + "\n").encode())


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 10_000_000:
        raise ValueError(f"{name} must be a line number")
    return value


def _quote(data: Any) -> Quote:
    if not isinstance(data, dict):
        raise ValueError("a quote must be a mapping")
    text = {k: values.text(data.get(k), k, limit=MAX_TEXT, optional=False) or ""
            for k in ("path", "text", "blob", "kind")}
    return Quote(text["path"], _int(data.get("start"), "start"), _int(data.get("end"), "end"), text["text"],
                 text["blob"], text["kind"])


def from_data(data: object, node_id: str) -> Verdict:
    """A verdict from its file's JSON, every value checked; ValueError naming the wrong one."""
    if not isinstance(data, dict):
        raise ValueError("a verdict file must be a JSON object")
    text = {k: values.text(data.get(k), k, limit=MAX_TEXT) or ""
            for k in ("node", "verdict", "agent", "at", "head", "state", "missing", "decided_by", "note")}
    if text["node"] != node_id:
        raise ValueError(f"the verdict file of {node_id} names {text['node'][:40]!r}")
    if text["verdict"] not in VERDICTS or text["state"] not in STATES:
        raise ValueError(f"unknown verdict {text['verdict'][:20]!r} or state {text['state'][:20]!r}")
    quotes = data.get("quotes") or []
    files = data.get("files") or {}
    if not isinstance(quotes, list) or len(quotes) > MAX_QUOTES:
        raise ValueError(f"quotes must be a list of at most {MAX_QUOTES}")
    if not isinstance(files, dict) or len(files) > MAX_FILES:
        raise ValueError(f"files must be a mapping of at most {MAX_FILES}")
    checked = {values.text(k, "file", limit=MAX_TEXT, optional=False) or "":
               values.text(v, "blob", limit=64, optional=False) or "" for k, v in files.items()}
    # What Leafwise writes: a verdict's state fits it, and a recorded or rejected one (kept out of
    # `verify --next` until what it was checked against changes) names those files (HEAD's whole tree
    # when nothing else). A planted `absent`, `recorded`, `files: {}` on every draft was settled for
    # good: `verify --next` answered Done. at once.
    if text["state"] in ("recorded", "rejected") and (not checked or not all(checked.values())):
        raise ValueError("a recorded verdict names the files it was checked against, each with its blob")
    if text["state"] not in FITS[text["verdict"]]:
        raise ValueError(f"a {text['verdict']} verdict is never {text['state']}")
    return Verdict(text["node"], text["verdict"], text["agent"], text["at"], text["head"], text["state"],
                   tuple(_quote(q) for q in quotes), text["missing"], checked, text["decided_by"], text["note"])
