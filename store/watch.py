"""Which plan files changed: a small watchfiles wrapper for the canvas.

It maps raw file events under `.leafwise/` to what a viewer must re-read
(node ids, the project file, the journal, claims, docs, cycles) and drops the
noise every write makes: the derived `.cache/`, the `.locks/`, and the
temporary files of atomic writes. Nothing here knows about the UI.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator, Iterable

from leafwise.store.paths import ID_PATTERN, PlanPaths

IGNORED_DIRS = frozenset({".cache", ".locks", ".git", "__pycache__"})
# Editors' and atomic writers' scratch files: `.lw-…` temps, `foo.yaml~`, `.swp`, `.tmp`.
SCRATCH_SUFFIXES = ("~", ".swp", ".swx", ".tmp", ".part")


@dataclass
class PlanChanges:
    """One batch of changes, by kind; paths in `docs` are relative to `.leafwise/`."""

    nodes: set[str] = field(default_factory=set)
    project: bool = False
    journal: bool = False
    claims: bool = False
    cycles: bool = False
    docs: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.nodes or self.project or self.journal or self.claims or self.cycles or self.docs)

    def merge(self, other: PlanChanges) -> None:
        self.nodes |= other.nodes
        self.docs |= other.docs
        self.project |= other.project
        self.journal |= other.journal
        self.claims |= other.claims
        self.cycles |= other.cycles


def relevant(plan_dir: Path, path: str) -> bool:
    """False for caches, locks and scratch files: writes that change nothing a viewer shows."""
    try:
        parts = Path(path).relative_to(plan_dir).parts
    except ValueError:
        return False
    if not parts or any(p in IGNORED_DIRS for p in parts[:-1]):
        return False
    name = parts[-1]
    return not (name.startswith(".") or name.endswith(SCRATCH_SUFFIXES))


def classify(paths: PlanPaths, changed: Iterable[str]) -> PlanChanges:
    """Sort changed paths (absolute) into what they mean for the plan."""
    out = PlanChanges()
    base = paths.dir
    for raw in changed:
        if not relevant(base, raw):
            continue
        parts = Path(raw).relative_to(base).parts
        name = parts[-1]
        top = parts[0]
        if len(parts) == 1:
            if name == "project.yaml":
                out.project = True
            elif name == "journal.jsonl":
                out.journal = True
        elif top == "nodes" and len(parts) == 2 and name.endswith(".yaml") and ID_PATTERN.match(name[:-5]):
            out.nodes.add(name[:-5])
        elif top == "claims":
            out.claims = True
        elif top == "cycles":
            out.cycles = True
        elif top in ("docs", "diagrams"):
            out.docs.add("/".join(parts))
    return out


async def watch(paths: PlanPaths, *, debounce_ms: int = 50, step_ms: int = 5,
                stop_event: Any = None) -> AsyncIterator[PlanChanges]:
    """Yield a `PlanChanges` for every batch of relevant writes until `stop_event` is set.

    watchfiles groups events for at most `debounce_ms` (its default, 1,600 ms,
    is far too slow for a live view) and yields once `step_ms` passes quietly.
    """
    from watchfiles import awatch  # imported here: only the canvas needs it

    base = paths.dir

    def keep(_change: Any, path: str) -> bool:
        return relevant(base, path)

    async for batch in awatch(base, watch_filter=keep, debounce=debounce_ms, step=step_ms,
                              stop_event=stop_event):
        changes = classify(paths, (path for _change, path in batch))
        if changes:
            yield changes
