"""Adopting Leafwise from another tracker: import and export.

Both are a person's commands, CLI only (`tool=None`): import reads files from the person's disk and
writes the whole plan at once, export writes a file; an agent reads the plan through list, show and
context instead, and the MCP tool list stays within its budget.
"""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.registry import ACTING, Ctx, Param, command

# The formats are checked by the commands (importing.FORMATS, exporting.FORMATS), not as click choices:
# the words come first on the line, before the path a hint fills in.
FORMATS = ("taskmaster", "backlog", "beads", "github", "csv", "json")


@command("import", "Import another tracker's plan (Task Master, Backlog.md, beads, GitHub issues, CSV, a Leafwise "
         "export); importing again updates the same nodes.",
         mutating=True, tool=None, idempotent=True,
         example="leafwise import taskmaster .taskmaster/tasks/tasks.json --dry-run",
         params=(Param("format", "the source: " + ", ".join(FORMATS), positional=True, required=True),
                 Param("path", "the file or folder to read", positional=True, required=True),
                 Param("release", "put every imported node in this release"),
                 Param("parent", "put the imported top-level nodes under this node"),
                 Param("dry_run", "print the mapping and what would be skipped; write nothing", type=bool),
                 Param("partial", "skip malformed items (each named, with why) instead of refusing the import",
                       type=bool),
                 Param("map", "KEY=VALUE,…: CSV columns (title=Summary) or a source's values "
                       "(status.Review=in-progress, priority.P1=high, label.urgent=priority:high)", multiple=True),
                 ACTING))
def import_plan(ctx: Ctx, format: str, path: str, release: str | None = None, parent: str | None = None,  # noqa: A002
                dry_run: bool = False, partial: bool = False, map: tuple[str, ...] = (),  # noqa: A002
                agent: str | None = None) -> Result:
    from leafwise.commands.adoption import importing

    return importing.run(ctx, format, path, release, parent, dry_run, partial, tuple(map or ()), agent)


@command("export", "Export the plan as json (every field, the releases; --journal too), markdown or csv.",
         mutating=False, tool=None, example="leafwise export markdown PLAN.md",
         params=(Param("format", "json, markdown or csv", positional=True, required=True),
                 Param("path", "the file to write (absent: standard output)", positional=True),
                 Param("journal", "json: the journal too", type=bool)))
def export_plan(ctx: Ctx, format: str, path: str | None = None, journal: bool = False) -> Result:  # noqa: A002
    from leafwise.commands.adoption import exporting

    return exporting.run(ctx, format, path, journal)
