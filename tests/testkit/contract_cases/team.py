"""Contract cases of the team commands (see __init__.py).

A success case needs a clone with a remote: `in_a_clone` makes the demo plan a git repository whose
origin is a bare repository beside it (file://, so the copies each surface runs on share that remote);
`team_on` also turns team mode on there. Without them the demo plan has no team: exit 1, Fix: team init.
"""

from __future__ import annotations

from pathlib import Path

from testkit.contract_cases import AgentCase, Case
from testkit.gitserver import bare_repo, git
from testkit import run_cli


def in_a_clone(root: Path) -> None:
    repo = bare_repo(root.parent)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "plan")
    git(root, "remote", "add", "origin", repo.as_uri())
    git(root, "push", "-q", "origin", "main")


def team_on(root: Path) -> None:
    in_a_clone(root)
    assert run_cli("team", "init", cwd=root).code == 0


CASES: dict = {
    "team status": (Case(("team", "status"), 0, setup=team_on), Case(("team", "status"), 1),
                    Case(("team", "status"), 5, where="empty")),
    "team doctor": (Case(("team", "doctor"), 0, setup=team_on), Case(("team", "doctor"), 1)),
    "team init": (Case(("team", "init"), 0, setup=in_a_clone), Case(("team", "init", "--remote", "nowhere"), 1,
                                                                    setup=in_a_clone)),
    "team join": (Case(("team", "join"), 0, setup=team_on), Case(("team", "join"), 1)),
    "team sync": (Case(("team", "sync"), 0, setup=team_on), Case(("team", "sync"), 1)),
    "team repair": (Case(("team", "repair", "--dry-run"), 0, setup=team_on), Case(("team", "repair"), 1)),
    "team claim": (Case(("team", "claim", "--next", "--agent", "a1"), 0, setup=team_on),
                   Case(("team", "claim", "--next"), 2, setup=team_on)),
}
AGENT_CASES: dict = {
    "team init": (AgentCase(("team", "init"), 0, setup=in_a_clone), AgentCase(("team", "init"), 1)),
    "team join": (AgentCase(("team", "join"), 0, setup=team_on), AgentCase(("team", "join"), 1)),
    "team sync": (AgentCase(("team", "sync"), 0, setup=team_on), AgentCase(("team", "sync"), 1)),
    "team repair": (AgentCase(("team", "repair", "--dry-run"), 0, setup=team_on), AgentCase(("team", "repair"), 1)),
    "team claim": (AgentCase(("team", "claim", "--next"), 0, setup=team_on),
                   AgentCase(("team", "claim", "SHOP-999"), 5, setup=team_on)),
}
NO_AGENT: set[str] = {"team status", "team doctor"}
