"""The project's settings and its releases: project set, release add/list/edit/move/remove
(commands/domain/releases.py)."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import releases
from leafwise.commands.registry import ACTING, Ctx, Param, command


@command("project set", "Rename the project or change its id prefix (new ids use the new prefix).",
         mutating=True, tool="set_project", idempotent=True,
         params=(Param("name", "the project's name"),
                 Param("prefix", "id prefix for new nodes: letters and digits, e.g. SHOP"), ACTING))
def project_set(ctx: Ctx, name: str | None = None, prefix: str | None = None, agent: str | None = None) -> Result:
    return releases.project_set(ctx, name, prefix)


@command("release add", "Add a release at the end of the release order.", mutating=True,
         tool="add_release",
         params=(Param("release_id", "release id, e.g. R3", positional=True, required=True),
                 Param("title", "release title", required=True),
                 Param("target", "target date, YYYY-MM-DD"), ACTING))
def release_add(ctx: Ctx, release_id: str, title: str, target: str | None = None, agent: str | None = None) -> Result:
    return releases.release_add(ctx, release_id, title, target)


@command("release list", "The releases in order, with their target dates and how much work each holds.",
         mutating=False, tool="list_releases", idempotent=True, listing=True)
def release_list(ctx: Ctx) -> Result:
    return releases.release_list(ctx)


@command("release edit", "Change a release's title or target date.", mutating=True, tool="edit_release",
         idempotent=True,
         params=(Param("release_id", "the release", positional=True, required=True),
                 Param("title", "a new title"),
                 Param("target", "a new target date, YYYY-MM-DD"),
                 Param("clear_target", "remove the target date", type=bool), ACTING))
def release_edit(ctx: Ctx, release_id: str, title: str | None = None, target: str | None = None,
                 clear_target: bool = False, agent: str | None = None) -> Result:
    return releases.release_edit(ctx, release_id, title, target, clear_target)


@command("release move", "Move a release before or after another (the order is the order work is handed out).",
         mutating=True, tool="move_release", idempotent=True,
         params=(Param("release_id", "the release to move", positional=True, required=True),
                 Param("before", "put it just before this release"),
                 Param("after", "put it just after this release"), ACTING))
def release_move(ctx: Ctx, release_id: str, before: str | None = None, after: str | None = None,
                 agent: str | None = None) -> Result:
    return releases.release_move(ctx, release_id, before, after)


@command("release remove", "Remove a release that no node uses.", mutating=True, tool="remove_release",
         destructive=True,
         params=(Param("release_id", "the release", positional=True, required=True), ACTING))
def release_remove(ctx: Ctx, release_id: str, agent: str | None = None) -> Result:
    return releases.release_remove(ctx, release_id)
