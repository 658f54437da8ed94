"""Contract cases of the verify commands (see __init__.py)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from testkit.contract_cases import AgentCase, err, ok

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "HOME": "/nonexistent"}
TRUE_QUOTE = ("backend/app/main.py:1-1", "The FastAPI application: one router per area of the shop.")


def commit_the_shop(root: Path) -> None:
    """The demo shop's code committed (quotes are checked against HEAD); the plan stays uncommitted."""
    for args in (["init", "-q"], ["add", "backend", "frontend"], ["commit", "-q", "-m", "the shop"]):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=GIT_ENV)


PARTIAL = ("verify", "SHOP-18", "--verdict", "partial", "--evidence", TRUE_QUOTE[0], "--quote", TRUE_QUOTE[1],
           "--missing", "no route deletes an account")

CASES: dict = {
    "verify": (ok("verify", "SHOP-18"),
               err(5, "verify", "SHOP-999"),
               err(3, "verify", "SHOP-12"),
               ok("verify", "--next", "--agent", "bot-1"),
               ok("verify", "--next", "--sample", "--agent", "bot-1"),  # no surface here lends a model
               err(2, "verify", "SHOP-18", "--sample", "--verdict", "absent", "--agent", "bot-1"),
               ok(*PARTIAL, "--agent", "bot-1", setup=commit_the_shop),
               err(2, "verify", "SHOP-18", "--verdict", "partial", "--agent", "bot-1"),
               err(1, "verify", "SHOP-18", "--verdict", "shipped", "--evidence", TRUE_QUOTE[0], "--quote",
                   "The Flask application: one router per area of the shop.", "--agent", "bot-1",
                   setup=commit_the_shop)),
}
AGENT_CASES: dict = {
    "verify": (AgentCase(("verify", "--next"), 0),
               AgentCase(("verify", "SHOP-18"), 0),
               AgentCase(PARTIAL, 0, setup=commit_the_shop),
               AgentCase(("verify", "SHOP-18", "--verdict", "partial"), 2),
               AgentCase(("verify", "SHOP-12"), 3),
               AgentCase(("verify", "SHOP-18", "--verdict", "absent", "--missing", "nothing deletes it"), 1)),
}
NO_AGENT: set[str] = set()
