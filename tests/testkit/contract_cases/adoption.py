"""Contract cases of the adoption commands (see __init__.py): import and export."""

from __future__ import annotations

from pathlib import Path

from testkit.contract_cases import AgentCase, err, ok

GOOD_CSV = "Summary,Status,Priority\nImport a ledger from CSV,To Do,High\nReconcile the ledger,Done,Low\n"
BAD_CSV = "Summary,Status\nImport a ledger from CSV,Someday maybe\n"  # a status no rule maps


def good_csv(root: Path) -> None:
    (root / "items.csv").write_text(GOOD_CSV, encoding="utf-8")


def bad_csv(root: Path) -> None:
    (root / "items.csv").write_text(BAD_CSV, encoding="utf-8")


CASES: dict = {
    "import": (ok("import", "csv", "items.csv", setup=good_csv),
               err(2, "import", "csv", "items.csv", setup=bad_csv),
               err(5, "import", "csv", "items.csv", "--release", "R9", setup=good_csv)),
    "export": (ok("export", "markdown"),
               err(2, "export", "markdown", "plan.md", "--journal"),
               err(5, "export", "json", where="empty")),
}
AGENT_CASES: dict = {
    "import": (AgentCase(("import", "csv", "items.csv"), 0, good_csv),
               AgentCase(("import", "csv", "items.csv"), 2, bad_csv)),
}
NO_AGENT: set[str] = {"export"}
