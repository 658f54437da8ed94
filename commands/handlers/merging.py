"""The key-wise three-way merge of node files, as git's merge driver."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import merging
from leafwise.commands.registry import ACTING, Ctx, Param, command


@command("merge-driver", "git's merge driver for node files: merge %O %A %B key by key into %A "
                         "(exit 1 on a real conflict); --install sets it up in this clone.",
         mutating=True, tool=None, needs_plan=False, example="leafwise merge-driver --install",
         params=(Param("base", "the common ancestor's file (git's %O)", positional=True),
                 Param("ours", "our file, where the result is written (git's %A)", positional=True),
                 Param("theirs", "their file (git's %B)", positional=True),
                 Param("path", "the file's path in the repository (git's %P)", positional=True),
                 Param("install", "set the driver up in this clone (.leafwise/.gitattributes, git config)",
                       type=bool),
                 ACTING))
def merge_driver(ctx: Ctx, base: str | None = None, ours: str | None = None, theirs: str | None = None,
                 path: str | None = None, install: bool = False, agent: str | None = None) -> Result:
    return merging.merge_driver(ctx, base, ours, theirs, path, install)
