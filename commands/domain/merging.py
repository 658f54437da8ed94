"""git's merge driver for node files (`leafwise merge-driver %O %A %B %P`), and setting it up.

git runs the driver for every `.leafwise/nodes/*.yaml` a merge touches on both sides (the attribute
`install` writes). It reads the base (%O), ours (%A) and theirs (%B), merges them key by key
(`store/node_merge.py`), writes the result into %A and exits 0; with a field both sides changed it
writes git's conflict markers around that field's lines only and exits 1, and git records the
file as conflicted. A side the key-wise merge refuses (too large, YAML the loader refuses, not a
node, added on both sides) gets git's plain conflict markers instead, so nothing is ever lost and
`validate` names the file.

The driver runs inside git with the merge's temporary files; it reads only those three files and
writes only %A.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from leafwise.commands.contract import (
    EXIT_FAILURE,
    EXIT_NOT_FOUND,
    EXIT_USAGE,
    CommandError,
    Mutation,
    Result,
    clean,
    done,
    fix,
    next_,
)
from leafwise.commands.registry import Ctx
from leafwise.store import git, reader
from leafwise.store.ids import canonical_id
from leafwise.store.node_merge import ABSENT, FieldConflict, MergeRefused, NodeMerge, merge_node, plain_conflict
from leafwise.store.paths import PLAN_DIR
from leafwise.store.writer import atomic_write

DRIVER = "leafwise"  # the name in `merge=leafwise` and in git's `merge.leafwise.*` config
ATTRIBUTE = f"nodes/*.yaml merge={DRIVER}"  # in .leafwise/.gitattributes: relative to .leafwise/
DRIVER_NAME = "Leafwise: node files merged key by key"
# The most of one side the driver reads: a side over the node file limit gets git's plain conflict,
# written from the whole side; one beyond this is left as git leaves a binary file (ours, unmerged).
MAX_SIDE_BYTES = 4 * reader.NODE.cap
NOT_A_REPOSITORY = "not a git repository"  # git's own words when no repository holds the folder
OPERATION = "merge-driver"  # the mutation's tool: a CLI-only command has no MCP tool name


@dataclass(frozen=True, slots=True)
class Installed:
    """What `install` set up: the attribute (always), git's config (None: not a git repository)."""

    attributes: Path
    driver: str | None
    problem: str = ""


def driver_command() -> str:
    """git's `merge.leafwise.driver`: this installation's own `leafwise`, by its full path, so a git
    started outside the virtualenv (an IDE, a hook, another shell) runs the same one."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == "leafwise" and argv0.is_file():
        program = [str(argv0.absolute())]
    else:  # run as a module (python -m …): the same interpreter, the same module
        program = [sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli"]
    return shlex.join(program) + " merge-driver %O %A %B %P"


def install(root: Path) -> Installed:
    """Set the driver up for the plan at `root`: the attribute in `.leafwise/.gitattributes` (kept
    with the plan, so every clone has it) and the driver in this clone's git config."""
    attributes = root / PLAN_DIR / ".gitattributes"
    _add_attribute(root / PLAN_DIR, attributes)
    command = driver_command()
    try:  # --replace-all: a value already there (two, or one a cloned config planted) is ours after
        git.run_git(root, "config", "--replace-all", f"merge.{DRIVER}.name", DRIVER_NAME)
        git.run_git(root, "config", "--replace-all", f"merge.{DRIVER}.driver", command)
    except git.GitError as exc:
        return Installed(attributes, None, str(exc))
    return Installed(attributes, command)


def _add_attribute(plan_dir: Path, attributes: Path) -> None:
    """`nodes/*.yaml merge=leafwise` appended to the plan's attributes unless a line says it already."""
    try:
        text = reader.read_text(attributes, reader.SETTINGS, under=plan_dir, strict=True)
    except FileNotFoundError:
        text = ""
    except (reader.Refused, UnicodeDecodeError) as exc:  # a clone's file: named, never a bare "the settings"
        rel = f"{PLAN_DIR}/{attributes.name}"
        raise CommandError("unreadable_attributes", f"{rel} cannot be read ({clean(str(exc), 200)}); the merge "
                           "driver's line is not added", fix(f"rm {rel}", "remove it (a file this large or not text is "
                           "no attributes file), then run the command again: it writes the driver's line anew"),
                           exit_code=EXIT_FAILURE, category="refused", source=("plan", None)) from None
    if ATTRIBUTE in (line.strip() for line in text.splitlines()):
        return
    atomic_write(attributes, (text + ("\n" if text and not text.endswith("\n") else "") + ATTRIBUTE + "\n").encode())


def setup(ctx: Ctx) -> Result:
    """`merge-driver --install`: the driver in the clone of the plan found from here."""
    paths = ctx.paths()
    made = install(paths.repo)
    rel = f"{PLAN_DIR}/.gitattributes"
    mutation = Mutation(OPERATION, "install", made.driver is not None, "", [{"file": rel, "op": "write"}])
    if made.driver is None and NOT_A_REPOSITORY not in made.problem:
        mutation.reason = "git's config refused the driver"
        raise CommandError(  # a config git cannot write (a bad line, a lock): installing again fails the same
            "git_config_failed", f"git's config of {paths.repo} cannot take the driver ({clean(made.problem, 300)})",
            fix("git config --list --show-origin",
                f"find the file and line git names, repair it (or git config --unset-all merge.{DRIVER}.driver), "
                "then install again"),
            exit_code=EXIT_FAILURE, category="io", source=("plan", None), mutation=mutation)
    if made.driver is None:
        mutation.reason = "not a git repository"
        raise CommandError(
            "not_a_git_repository", f"{paths.repo} is not in a git repository ({made.problem}); "
                                    f"{rel} names the driver, but git's config cannot hold it here",
            fix(ctx.cmd("merge-driver", install=True), "make the folder a git repository (git init), then install"),
            exit_code=EXIT_NOT_FOUND, category="not_found", source=("plan", None), mutation=mutation)
    mutation.reason = "driver installed"
    mutation.changes.append({"git_config": f"merge.{DRIVER}.driver", "op": "set", "to": made.driver})
    return Result({"attributes": rel, "driver": made.driver, "installed": True},
                  done("node files now merge key by key in this clone; commit .leafwise/.gitattributes"),
                  [f"Installed the key-wise merge driver for {PLAN_DIR}/nodes/*.yaml",
                   f"  {rel}: {ATTRIBUTE}", f"  git config merge.{DRIVER}.driver: {made.driver}"],
                  mutation)


def init_note(ctx: Ctx, root: Path) -> tuple[dict[str, object], list[str]]:
    """What `init` says of the driver it installs: (its result's entry, its text lines)."""
    made = install(root)
    if made.driver is not None:
        return {"installed": True, "driver": made.driver}, ["  node files merge key by key (git merge driver set up)"]
    later = ctx.cmd("merge-driver", install=True)
    why = NOT_A_REPOSITORY if NOT_A_REPOSITORY in made.problem else clean(made.problem, 120)
    return ({"installed": False, "reason": why, "install": later},
            [f"  {why}: node files merge key by key once {later} runs in the clone"])


def merge_driver(ctx: Ctx, base: str | None, ours: str | None, theirs: str | None, path: str | None,
                 install_it: bool = False) -> Result:
    """git's merge driver (`base` %O, `ours` %A, `theirs` %B, `path` %P), or `--install`."""
    given = [v for v in (base, ours, theirs, path) if v]
    if install_it and not given:
        return setup(ctx)
    if install_it or not (base and ours and theirs):
        ctx.paths()  # the Fix installs into the plan found from here: a plan unsafe to use is named first
        raise CommandError(
            "usage", "merge-driver takes git's %O %A %B %P (git runs it in a merge), or --install alone",
            fix(ctx.cmd("merge-driver", install=True), "let git run the driver: install it in this clone"),
            exit_code=EXIT_USAGE, category="usage")
    rel = clean(path or ours, 300)
    if path and not _node_file(ctx, path):
        return _text_merge(ctx, Path(base), Path(ours), Path(theirs), rel)
    stem = Path(path).stem if path else None
    node_id = stem if stem and canonical_id(stem) == stem else None  # the loader checks the id against it
    sides = [_read_side(ctx, name, rel) for name in (base, ours, theirs)]
    try:
        merged = merge_node(*sides, node_id=node_id)
    except MergeRefused as exc:
        raise _refused(ctx, Path(ours), sides, rel, str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - a failure of the merge itself still leaves git's plain conflict
        raise _refused(ctx, Path(ours), sides, rel, f"the merge failed ({type(exc).__name__}: {exc})") from None
    target = Path(ours)
    if merged.text != sides[1]:
        atomic_write(target, merged.text)
    if merged.conflicts:
        raise _conflict(ctx, merged, rel)
    return Result({"file": rel, "merged": True, "taken": merged.taken, "conflicts": []},
                  next_(ctx.cmd("validate"), "git goes on with the merge; validate the plan after it"),
                  [f"Merged {rel} key by key" + (f": {_taken_words(merged.taken)}" if merged.taken else "")],
                  Mutation(OPERATION, "merge", True, "merged key by key", [{"file": rel, "op": "write"}]))


def _node_file(ctx: Ctx, path: str) -> bool:
    """Whether git's %P names a node file of this plan (`nodes/<name>.yaml` under the plan's folder).
    A clone's own `.gitattributes` can send any path to the driver (`*.py merge=leafwise`)."""
    paths = ctx.paths()
    try:
        nodes = paths.nodes.resolve().relative_to(paths.repo.resolve()).as_posix()
    except ValueError:
        return False
    where = PurePosixPath(path)
    return where.parent.as_posix() == nodes and where.suffix == ".yaml"


def _text_merge(ctx: Ctx, base: Path, ours: Path, theirs: Path, rel: str) -> Result:
    """A file that is no node file, merged as git's own driver merges text (`git merge-file`): the
    result in %A; with conflicts git's markers in it and a non-zero exit, as git would."""
    sides = [_read_side(ctx, str(name), rel) for name in (base, ours, theirs)]
    try:
        conflicts, merged = git.merge_file(ctx.paths().repo, ours, base, theirs,
                                           (f"{rel} (ours)", f"{rel} (base)", f"{rel} (theirs)"))
    except git.GitError as exc:
        # (a binary file, or a merge past what git may print back): %A stays ours, as git's own driver leaves it
        raise _refused(ctx, ours, sides, rel, f"git merge-file failed ({exc})", keep_ours=True) from None
    if merged != sides[1]:
        atomic_write(ours, merged)
    if conflicts:
        raise CommandError(
            "merge_conflict", f"{rel} is no node file: merged as git merges text, {conflicts} conflict(s) left "
            "inside git's markers", fix(ctx.cmd("validate"), "resolve the markers by hand, then validate"),
            exit_code=EXIT_FAILURE, category="conflict", source=("plan", None), details={"file": rel},
            mutation=Mutation(OPERATION, "merge", True, "text merge with conflicts", [{"file": rel, "op": "write"}]))
    return Result({"file": rel, "merged": True, "taken": {}, "conflicts": []},
                  next_(ctx.cmd("validate"), "git goes on with the merge"),
                  [f"Merged {rel} as text (it is no node file)"],
                  Mutation(OPERATION, "merge", True, "merged as text", [{"file": rel, "op": "write"}]))


def _read_side(ctx: Ctx, name: str, rel: str) -> bytes:
    """One of git's three files: a regular file, never through a link, at most MAX_SIDE_BYTES + 1."""
    try:
        return reader.read_bytes(name, reader.NODE, cap=MAX_SIDE_BYTES)
    except reader.Refused as exc:
        raise CommandError("merge_refused", f"{rel}: {exc}; the file is left as git has it",
                           fix(ctx.cmd("validate"), "git records the file as conflicted; validate names it"),
                           exit_code=EXIT_FAILURE, category="refused", source=("plan", None)) from None


def _refused(ctx: Ctx, target: Path, sides: list[bytes], rel: str, why: str,
             keep_ours: bool = False) -> CommandError:
    """git's plain conflict in %A (the whole difference between the sides inside markers), or %A left
    as ours when a side is beyond what the driver reads or git cannot merge it as text (`keep_ours`: a
    binary file; git's way with a file it cannot merge)."""
    _base, ours, theirs = sides
    whole = not keep_ours and all(len(side) <= MAX_SIDE_BYTES for side in sides)
    if whole:
        atomic_write(target, plain_conflict(ours, theirs))
    left = "git's plain conflict markers are left in it" if whole else "it is left as ours, unmerged"
    return CommandError(
        "merge_refused", f"{rel} is not merged key by key: {why}; {left}",
        fix(ctx.cmd("validate"), "git records the file as conflicted; validate names it, resolve it by hand"),
        exit_code=EXIT_FAILURE, category="refused", source=("plan", None),
        details={"file": rel, "reason": why},
        mutation=Mutation(OPERATION, "merge", whole, "plain conflict" if whole else "left unmerged",
                          [{"file": rel, "op": "write"}] if whole else []))


def _conflict(ctx: Ctx, merged: NodeMerge, rel: str) -> CommandError:
    fields = [c.field for c in merged.conflicts]
    return CommandError(
        "merge_conflict", f"both sides changed {', '.join(fields)} of {rel} "
                          f"({'; '.join(_sides_words(c) for c in merged.conflicts)}); conflict markers are "
                          f"left around {'it' if len(fields) == 1 else 'them'}, every other field is merged",
        fix(ctx.cmd("validate"), "validate names the conflict's line; keep one side by hand, then git add the file"),
        exit_code=EXIT_FAILURE, category="conflict", source=("plan", None),
        details={"file": rel, "fields": fields, "taken": merged.taken},
        mutation=Mutation(OPERATION, "merge", True, "merged but for a conflict", [{"file": rel, "op": "write"}]))


def _sides_words(conflict: FieldConflict) -> str:
    def word(value: object) -> str:
        return "removed" if value is ABSENT else clean(str(value), 60)

    return f"{conflict.field}: ours {word(conflict.ours)}, theirs {word(conflict.theirs)}"


def _taken_words(taken: dict[str, str]) -> str:
    """`status, summary from theirs; updated the newer; tags unioned`."""
    words = {"theirs": "from theirs", "ours": "from ours", "both": "the same on both", "newer": "the newer",
             "union": "unioned"}
    groups = {how: [k for k, h in taken.items() if h == how] for how in words}
    return "; ".join(f"{', '.join(keys)} {words[how]}" for how, keys in groups.items() if keys)
