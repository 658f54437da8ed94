"""Contract cases of the merging commands (see __init__.py): `merge-driver` as git runs it (%O %A %B %P
with the three sides written beside the plan), and `--install` in a folder that is no git repository."""

from __future__ import annotations

from pathlib import Path

from testkit.contract_cases import AgentCase, err, ok

NODE = ".leafwise/nodes/SHOP-18.yaml"
SIDES = ("base.yaml", "ours.yaml", "theirs.yaml")


def _sides(root: Path, ours: tuple[str, str], theirs: tuple[str, str]) -> None:
    base = (root / NODE).read_text()
    (root / "base.yaml").write_text(base)
    (root / "ours.yaml").write_text(base.replace(*ours))
    (root / "theirs.yaml").write_text(base.replace(*theirs))


def different_fields(root: Path) -> None:
    """Ours renames SHOP-18, theirs starts it: they merge."""
    _sides(root, ("title: Delete my account (GDPR)", "title: Delete my account"),
           ("status: draft", "status: in-progress\nassignee: bot-1"))


def one_field_two_ways(root: Path) -> None:
    """Both sides set SHOP-18's status, to different values: a real conflict."""
    _sides(root, ("status: draft", "status: cancelled"), ("status: draft", "status: in-progress"))


def an_alias_in_theirs(root: Path) -> None:
    """Theirs holds a YAML alias the loader refuses: git's plain conflict is left."""
    _sides(root, ("status: draft", "status: cancelled"), ("title: Delete", "title: &t Delete"))
    (root / "theirs.yaml").write_text((root / "theirs.yaml").read_text() + "summary: *t\n")


DRIVER = ("merge-driver", *SIDES, NODE)

CASES: dict = {
    "merge-driver": (ok(*DRIVER, setup=different_fields),
                     err(1, *DRIVER, setup=one_field_two_ways),
                     err(1, *DRIVER, setup=an_alias_in_theirs),
                     err(2, "merge-driver", "base.yaml"),
                     err(5, "merge-driver", "--install")),
}
AGENT_CASES: dict = {
    "merge-driver": (AgentCase(DRIVER, 0, different_fields),
                     AgentCase(DRIVER, 1, one_field_two_ways),
                     AgentCase(("merge-driver", "--install"), 5)),
}
NO_AGENT: set[str] = set()
