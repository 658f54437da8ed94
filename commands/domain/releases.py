"""The project's own settings and its releases: project set, release add/list/edit/move/remove.

Everything here rewrites `project.yaml` under the "project" lock, round-trip
(comments and the person's layout kept), and journals what changed.
"""

from __future__ import annotations

import io
import re
from datetime import date
from typing import Any, Callable

from leafwise.commands.contract import (
    EXIT_CONFLICT,
    EXIT_NOT_FOUND,
    EXIT_USAGE,
    CommandError,
    Mutation,
    Result,
    bounded,
    clean,
    fix,
    next_,
    placeholder,
)
from leafwise.commands.domain.nodes import record
from leafwise.commands.registry import Ctx
from leafwise.store.paths import PLAN_DIR, RELEASE_PATTERN, UnsafePath, check_prefix

MAX_NAME_CHARS = 200
DATE = placeholder("YYYY-MM-DD")  # a Fix never invents the date


def is_date(text: str) -> bool:
    """A real calendar date written YYYY-MM-DD (2027-13-45 is not one)."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _bad_date(target: str, retry: str) -> CommandError:
    """`retry`: the same call with the date's placeholder (`DATE`)."""
    return CommandError("invalid_date", f"target {clean(target, 40)!r} is not a date written YYYY-MM-DD",
                        fix(retry, "write the date as YYYY-MM-DD"),
                        exit_code=EXIT_USAGE, category="usage")


def project_for_edit(ctx: Ctx) -> tuple[bytes, Any, Any]:
    """project.yaml's bytes, its round-trip document and the YAML that dumps it back; `project_unreadable`
    when the loader refuses the file (a tag, a key that is no text, an anchor, a duplicate key): such a
    file is never rewritten as if it held no releases or settings. Every writer of project.yaml starts here
    (`rewrite_project`, team mode's setting, an import's releases)."""
    from leafwise.store.roundtrip import round_trip_yaml
    from leafwise.store.safe_yaml import parse_yaml, read_bounded
    from ruamel.yaml.comments import CommentedMap

    y = round_trip_yaml()
    try:
        raw = read_bounded(ctx.paths().project_file)
        parse_yaml(raw)  # the loader's rules first
        doc = y.load(raw.decode("utf-8"))
    except Exception as exc:  # noqa: BLE001 - any unreadable project.yaml is one answer
        raise _unreadable(ctx, exc) from exc
    return raw, doc if isinstance(doc, dict) else CommentedMap(), y


def dumped(y: Any, doc: Any, raw: bytes) -> bytes:
    """The edited document as bytes, with the file's own line ends (CRLF stays CRLF)."""
    from leafwise.store.roundtrip import keep_line_ends

    buf = io.StringIO()
    y.dump(doc, buf)
    return keep_line_ends(raw.decode("utf-8"), buf.getvalue()).encode()


def rewrite_project(ctx: Ctx, change: Callable[[Any], None]) -> None:
    """Load project.yaml round-trip under the project lock, let `change` edit it, write it back atomically."""
    from leafwise.store.writer import atomic_write, locked

    paths = ctx.paths()
    with locked(paths, "project"):
        raw, doc, y = project_for_edit(ctx)
        change(doc)
        atomic_write(paths.project_file, dumped(y, doc, raw))
    ctx.forget()


def _unreadable(ctx: Ctx, exc: Exception) -> CommandError:
    return CommandError("project_unreadable", f"{PLAN_DIR}/project.yaml cannot be read: {clean(exc, 300)}",
                        fix(ctx.cmd("validate"), "the validator names the line"),
                        exit_code=4, category="invalid_plan", source=("project", None))


def _check_readable(ctx: Ctx) -> None:
    """Refuse (project_unreadable) when the loader refuses project.yaml: its releases are then unknown,
    not absent."""
    from leafwise.store.safe_yaml import parse_yaml, read_bounded

    try:
        parse_yaml(read_bounded(ctx.paths().project_file))
    except FileNotFoundError:
        return
    except Exception as exc:  # noqa: BLE001 - any unreadable project.yaml is one answer
        raise _unreadable(ctx, exc) from exc


def _releases(doc: Any) -> list[Any]:
    releases = doc.get("releases")
    if not isinstance(releases, list):
        doc["releases"] = releases = []
    return releases


def _index(releases: list[Any], release_id: str) -> int | None:
    return next((i for i, r in enumerate(releases) if isinstance(r, dict) and str(r.get("id")) == release_id),
                None)


def _known(ctx: Ctx, release_id: str) -> None:
    """Refuse an id that is not a release of the plan, naming the nearest one."""
    ids = [r.id for r in ctx.plan().project.releases]
    if release_id in ids:
        return
    _check_readable(ctx)
    import difflib

    close = difflib.get_close_matches(release_id, ids, n=1, cutoff=0.6)
    raise CommandError("unknown_release", f"no release {clean(release_id, 64)!r} in project.yaml"
                       + (f"; did you mean {close[0]}?" if close else ""),
                       fix(ctx.cmd("release list"), "see the releases"),
                       exit_code=EXIT_NOT_FOUND, category="not_found", source=("release", None))


# --- project set -------------------------------------------------------------------

def project_set(ctx: Ctx, name: str | None = None, prefix: str | None = None) -> Result:
    if name is None and prefix is None:
        raise CommandError("nothing_to_set", "say what to change: --name, --prefix or both",
                           fix(ctx.cmd("project set", name=placeholder("name")), "give a value"),
                           exit_code=EXIT_USAGE, category="usage")
    if name is not None:
        name = " ".join(str(name).split())
        if not name or len(name) > MAX_NAME_CHARS:
            raise CommandError("invalid_name", f"a project name is 1 to {MAX_NAME_CHARS} characters",
                               fix(ctx.cmd("project set", name=placeholder("title")), "give a short name"),
                               exit_code=EXIT_USAGE, category="usage")
    if prefix is not None:
        try:
            prefix = check_prefix(prefix).upper()
        except UnsafePath as exc:
            raise CommandError("invalid_prefix", str(exc),
                               fix(ctx.cmd("project set", prefix=placeholder("prefix")),
                                   "letters and digits, starting with a letter"),
                               exit_code=EXIT_USAGE, category="usage") from exc
    changes: dict[str, tuple[Any, Any]] = {}

    def change(doc: Any) -> None:
        if name is not None and doc.get("name") != name:
            changes["name"] = (doc.get("name"), name)
            doc["name"] = name
        old = str(doc.get("id_prefix") or "").upper()
        if prefix is not None and old != prefix:
            changes["id_prefix"] = (old or None, prefix)
            doc["id_prefix"] = prefix
            former = doc.get("former_prefixes")
            if not isinstance(former, list):
                from ruamel.yaml.comments import CommentedSeq

                former = CommentedSeq()
                former.fa.set_flow_style()
                doc["former_prefixes"] = former
            if old and old not in former:
                former.append(old)  # ids already given keep it: the validator accepts them
            while prefix in former:
                former.remove(prefix)

    rewrite_project(ctx, change)
    tool = Mutation("set_project", "project set", bool(changes),
                    "project updated" if changes else "already so; nothing changed",
                    [{"field": k, "from": a, "to": b} for k, (a, b) in changes.items()])
    if changes:
        record(ctx, "project set", None, changes)
    project = ctx.plan().project
    lines = [f"Project {project.name} (prefix {project.id_prefix})"]
    if "id_prefix" in changes:
        lines.append(f"New nodes get ids {project.id_prefix}-N; existing ids stay as they are")
    elif not changes:
        lines.append("Nothing changed")
    return Result({"name": project.name, "id_prefix": project.id_prefix, "changed": sorted(changes)},
                  next_(ctx.cmd("context"), "read the plan"), lines, tool)


# --- releases ----------------------------------------------------------------------

def release_add(ctx: Ctx, release_id: str, title: str, target: str | None = None) -> Result:
    from ruamel.yaml.comments import CommentedMap

    if not RELEASE_PATTERN.match(release_id) or len(release_id) > 64:
        raise CommandError("invalid_release", f"release id {clean(release_id, 64)!r} must be letters, digits, . _ -",
                           fix(ctx.cmd("release add", placeholder("release id"), title=title),
                               "use a simple id"), exit_code=EXIT_USAGE, category="usage")
    if target is not None and not is_date(target):
        raise _bad_date(target, ctx.cmd("release add", release_id, title=title, target=DATE))
    position = 0

    def change(doc: Any) -> None:
        nonlocal position
        releases = _releases(doc)
        if _index(releases, release_id) is not None:
            raise CommandError("release_exists", f"release {release_id} already exists",
                               fix(ctx.cmd("list", release=release_id), "see what it holds"),
                               exit_code=EXIT_CONFLICT, category="conflict", source=("release", release_id),
                               mutation=Mutation("add_release", "release add", False, "already exists"))
        entry = CommentedMap(id=release_id, title=title)
        if target:
            entry["target"] = date.fromisoformat(target)
        entry.fa.set_flow_style()
        releases.append(entry)
        position = len(releases)

    rewrite_project(ctx, change)
    tool = Mutation("add_release", "release add", True, "release appended",
                    [{"release": release_id, "op": "add", "title": title, "target": target}])
    record(ctx, "release add", None, {}, release=release_id)
    return Result({"id": release_id, "title": title, "target": target, "position": position},
                  next_(ctx.cmd("add", placeholder("title"), release=release_id), "give the release its work"),
                  [f"Added release {release_id}: {title}" + (f" (target {target})" if target else "")], tool)


def release_list(ctx: Ctx) -> Result:
    from leafwise.store import CLOSED

    plan = ctx.plan()
    counts: dict[str, list[int]] = {}  # release -> [nodes, open], one pass: a plan's releases times its nodes was quadratic
    for n in plan.nodes.values():
        count = counts.setdefault(n.release, [0, 0])
        count[0] += 1
        count[1] += n.status not in CLOSED
    page = bounded([{"id": rel.id, "title": rel.title, "target": rel.target, "position": position,
                     "nodes": counts.get(rel.id, [0, 0])[0], "open": counts.get(rel.id, [0, 0])[1]}
                    for position, rel in enumerate(plan.project.releases, 1)], None)
    lines = [f"{i['position']:>2}. {i['id']:8} {clean(i['title'])}"
             + (f"  (target {i['target']})" if i["target"] else "")
             + f"  — {i['open']} open of {i['nodes']}" for i in page["items"]]
    lines.append(f"{page['total']} release(s)" + (f", first {len(page['items'])} shown" if page["truncated"] else ""))
    hint = next_(ctx.cmd("next"), "work goes release by release") if page["total"] else \
        next_(ctx.cmd("release add", "R1", title=placeholder("title")), "a plan starts with a release")
    return Result(page, hint, lines)


def release_edit(ctx: Ctx, release_id: str, title: str | None = None, target: str | None = None,
                 clear_target: bool = False) -> Result:
    _known(ctx, release_id)
    if title is None and target is None and not clear_target:
        raise CommandError("nothing_to_set", "say what to change: --title, --target or --clear-target",
                           fix(ctx.cmd("release edit", release_id, title=placeholder("title")), "give a value"),
                           exit_code=EXIT_USAGE, category="usage")
    if target is not None and clear_target:
        raise CommandError("conflicting_options", "--target and --clear-target together",
                           fix(ctx.cmd("release edit", release_id, clear_target=True), "choose one"),
                           exit_code=EXIT_USAGE, category="usage")
    if target is not None and not is_date(target):
        raise _bad_date(target, ctx.cmd("release edit", release_id, target=DATE))
    if title is not None:
        title = " ".join(str(title).split())
        if not title:
            raise CommandError("empty_title", "a release needs a title",
                               fix(ctx.cmd("release edit", release_id, title=placeholder("title")), "give it a title"),
                               exit_code=EXIT_USAGE, category="usage")
    changes: dict[str, tuple[Any, Any]] = {}

    def change(doc: Any) -> None:
        releases = _releases(doc)
        at = _index(releases, release_id)
        if at is None:  # removed meanwhile
            raise CommandError("unknown_release", f"release {release_id} was removed meanwhile",
                               fix(ctx.cmd("release list"), "see the releases"),
                               exit_code=EXIT_NOT_FOUND, category="not_found", source=("release", None))
        entry = releases[at]
        if title is not None and entry.get("title") != title:
            changes["title"] = (entry.get("title"), title)
            entry["title"] = title
        old = entry.get("target")
        old_text = str(old) if old is not None else None
        if clear_target and old is not None:
            changes["target"] = (old_text, None)
            del entry["target"]
        elif target is not None and old_text != target:
            changes["target"] = (old_text, target)
            entry["target"] = date.fromisoformat(target)

    rewrite_project(ctx, change)
    tool = Mutation("edit_release", "release edit", bool(changes),
                    "release updated" if changes else "already so; nothing changed",
                    [{"release": release_id, "field": k, "from": a, "to": b} for k, (a, b) in changes.items()])
    if changes:
        record(ctx, "release edit", None, changes, release=release_id)
    rel = next(r for r in ctx.plan().project.releases if r.id == release_id)
    return Result({"id": rel.id, "title": rel.title, "target": rel.target, "changed": sorted(changes)},
                  next_(ctx.cmd("release list"), "the releases in order"),
                  [f"Release {rel.id}: {clean(rel.title)}" + (f" (target {rel.target})" if rel.target else "")
                   + ("" if changes else " — nothing changed")], tool)


def release_move(ctx: Ctx, release_id: str, before: str | None = None, after: str | None = None) -> Result:
    _known(ctx, release_id)
    if (before is None) == (after is None):
        ids = [r.id for r in ctx.plan().project.releases]
        first = next((r for r in ids if r != release_id), release_id)
        raise CommandError("usage", "say where: --before RELEASE or --after RELEASE (one of them)",
                           fix(ctx.cmd("release move", release_id, before=first), "name one neighbour"),
                           exit_code=EXIT_USAGE, category="usage")
    anchor = before if before is not None else after
    assert anchor is not None
    _known(ctx, anchor)
    if anchor == release_id:
        raise CommandError("usage", "a release cannot move next to itself",
                           fix(ctx.cmd("release list"), "see the order"), exit_code=EXIT_USAGE, category="usage")
    order: list[str] = []

    def change(doc: Any) -> None:
        releases = _releases(doc)
        at = _index(releases, release_id)
        if at is None or _index(releases, anchor) is None:
            return
        entry = releases.pop(at)
        to = _index(releases, anchor)
        assert to is not None
        releases.insert(to if before is not None else to + 1, entry)
        order.extend(str(r.get("id")) for r in releases if isinstance(r, dict))

    old = [r.id for r in ctx.plan().project.releases]
    rewrite_project(ctx, change)
    moved = order != old and bool(order)
    tool = Mutation("move_release", "release move", moved, "release moved" if moved else "already there",
                    [{"release": release_id, "field": "order", "from": old, "to": order}] if moved else [])
    if moved:
        record(ctx, "release move", None, {"order": (old, order)}, release=release_id)
    order = order or old
    return Result({"id": release_id, "order": order, "position": order.index(release_id) + 1},
                  next_(ctx.cmd("next"), "the picker follows the new order"),
                  ["Releases in order: " + ", ".join(order)], tool)


def release_remove(ctx: Ctx, release_id: str) -> Result:
    _known(ctx, release_id)
    plan = ctx.plan()
    used = sorted((n for n in plan.nodes.values() if n.release == release_id),
                  key=lambda n: (n.id.split("-")[0], int(n.id.rsplit("-", 1)[1])))
    if used:
        others = [r.id for r in plan.project.releases if r.id != release_id]
        shown = ", ".join(n.id for n in used[:5]) + (f" and {len(used) - 5} more" if len(used) > 5 else "")
        first = used[0]
        action = fix(ctx.cmd("edit", first.id, set=[f"release={others[0]}"]),
                     "move its nodes to another release first, then remove it",
                     or_=ctx.cmd("list", release=release_id)) if others else \
            fix(ctx.cmd("list", release=release_id), "the nodes that use it")
        raise CommandError("release_in_use", f"release {release_id} is used by {len(used)} node(s): {shown}",
                           action, exit_code=EXIT_CONFLICT, category="conflict", source=("release", release_id),
                           details={"nodes": [n.id for n in used]},
                           mutation=Mutation("remove_release", "release remove", False, "nodes use it"))
    removed: list[Any] = []

    def change(doc: Any) -> None:
        releases = _releases(doc)
        at = _index(releases, release_id)
        if at is not None:
            removed.append(releases.pop(at))

    rewrite_project(ctx, change)
    if removed:
        record(ctx, "release remove", None, {}, release=release_id)
    tool = Mutation("remove_release", "release remove", bool(removed),
                    "release removed" if removed else "already gone",
                    [{"release": release_id, "op": "remove"}] if removed else [])
    left = [r.id for r in ctx.plan().project.releases]
    return Result({"id": release_id, "removed": bool(removed), "order": left},
                  next_(ctx.cmd("release list"), "the releases left"),
                  [f"Removed release {release_id}" if removed else f"Release {release_id} was already gone"], tool)
