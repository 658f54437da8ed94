"""Talking to the team's remote: `TeamError`, and `ask`, the one place a git that did not answer in
time reads as the remote not answering (remote.py re-exports both; branch.py uses them without it)."""

from __future__ import annotations

from typing import Any

from leafwise.store import git


class TeamError(Exception):
    """A team operation that could not be done; `kind` says which hint fits: "unreachable" (the remote
    did not answer), "refused" (the host refuses custom refs), "setup" (team mode not set up here)."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def ask(team: Any, subcommand: str, *args: str, deadline: float | None = None,
        stdin: bytes | None = None) -> git.GitAnswer:
    """`git <subcommand>` talking to the team's remote, its answer whatever the exit code. A git stopped
    at its deadline (a remote that accepts the connection and stays silent) or one that could not run is
    the remote not answering: TeamError("unreachable"), the one place that reads it so."""
    try:
        return git.run_git_remote(team.root, subcommand, *args, stdin=stdin,
                                  deadline=git.REMOTE_DEADLINE if deadline is None else deadline)
    except git.GitError as exc:
        raise TeamError(f"remote unreachable ({team.remote}): {exc}", "unreachable") from exc
