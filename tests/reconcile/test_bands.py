"""Reconcile's bands: `shipped` only for what measured at least 0.95 precision where it was not tuned
(a passing declared check, a commit that says it closes the node), closed by `--apply`; what the lexical
rules find is `likely`, a lead for `leafwise verify`, never closed unattended (and so is a partial the
search scored high: a lead on the words, at a lower confidence); a title word the code never
names keeps a draft from being even that; the evidence leads with the definition the rule matched."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml
from testkit import node, run_cli, write_plan
from testkit.code_samples import LIBRARY
from testkit.repos import write_files

from leafwise.commands.reconcile.engine import LEAD_CONFIDENCE
from leafwise.commands.reconcile.retrieve import MEASURED

TITLE = "Throttle calls to a rate per second"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "PATH": "/usr/bin:/bin:/usr/local/bin"}


def commit_all(root: Path, message: str = "snapshot") -> None:
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", message]):
        subprocess.run(["git", *args], cwd=root, check=True, env=GIT_ENV, capture_output=True)


def _reconcile(root: Path, *args: str) -> dict:
    res = run_cli("reconcile", "--json", *args, cwd=root)
    assert res.code == 0, res.stderr
    return json.loads(res.stdout)


def _by_id(env: dict) -> dict[str, dict]:
    return {s["id"]: s for s in env["result"]["suggestions"]}


def _status(root: Path, node_id: str) -> str:
    return yaml.safe_load((root / f".leafwise/nodes/{node_id}.yaml").read_text())["status"]


def test_a_draft_that_only_matches_by_words_is_likely_and_never_applied(tmp_path):
    write_files(tmp_path, LIBRARY)
    write_plan(tmp_path, [node("T-1", TITLE, release="R1")])
    commit_all(tmp_path)

    env = _reconcile(tmp_path)
    [found] = env["result"]["suggestions"]
    assert (found["verdict"], found["confidence"]) == ("likely", MEASURED)
    assert found["evidence"][0]["name"] == "throttle_calls"
    assert env["result"]["counts"] == {"shipped": 0, "likely": 1, "partial": 0, "none": 0}
    assert env["_next_action"]["command"] == "leafwise verify T-1"  # a lead for the verify loop

    # whatever threshold a caller sets, --apply does not close a likely
    env = _reconcile(tmp_path, "--apply", "--min-confidence", "0")
    assert env["result"]["applied"] == []
    assert [(r["id"], r["verdict"]) for r in env["result"]["refused"]] == [("T-1", "likely")]
    assert _status(tmp_path, "T-1") == "draft"
    assert env["_next_action"]["command"] == "leafwise verify T-1"


def test_a_lead_on_the_words_is_likely_below_a_rule_and_never_applied(tmp_path):
    # the words meet in a function's body and nothing else says the same: no rule's bar is met
    write_files(tmp_path, {**LIBRARY, "pkg/jobs.py": (
        "def run_job(store):\n"
        "    archive = store.compress_archive(level=9)\n"
        "    store.schedule_nightly(archive)\n")})
    write_plan(tmp_path, [node("T-1", TITLE, release="R1"), node("T-2", "Compress the nightly archive", release="R1")])
    commit_all(tmp_path)

    found = _by_id(_reconcile(tmp_path))
    assert (found["T-1"]["verdict"], found["T-1"]["lead"]) == ("likely", "rule")
    assert (found["T-2"]["verdict"], found["T-2"]["lead"], found["T-2"]["confidence"]) == \
        ("likely", "words", LEAD_CONFIDENCE)
    assert LEAD_CONFIDENCE < MEASURED and found["T-2"]["missing"]  # it says what no rule found

    env = _reconcile(tmp_path, "--apply", "--min-confidence", "0")
    assert env["result"]["applied"] == []
    assert sorted((r["id"], r["verdict"]) for r in env["result"]["refused"]) == [("T-1", "likely"), ("T-2", "likely")]
    assert _status(tmp_path, "T-2") == "draft"


def test_a_passing_declared_check_and_a_closing_commit_are_shipped_and_closed(tmp_path):
    write_files(tmp_path, {**LIBRARY, "pkg/report.py": "def build_report(rows):\n    return rows\n"})
    write_plan(tmp_path, [node("T-1", "Monthly report of the orders", release="R1",
                               done_when=[{"symbol": "build_report"}]),
                          node("T-2", "Ledger reconciliation for finance", release="R1")])
    commit_all(tmp_path)
    (tmp_path / "pkg/ledger.py").write_text("def balance(entries):\n    return sum(entries)\n")
    commit_all(tmp_path, "Ledger balances, closes T-2")

    found = _by_id(_reconcile(tmp_path))
    assert found["T-1"]["verdict"] == "shipped" and found["T-1"]["evidence"][0]["kind"] == "declared"
    assert found["T-2"]["verdict"] == "shipped" and found["T-2"]["evidence"][0]["kind"] == "commit"

    env = _reconcile(tmp_path, "--apply")
    assert sorted(a["id"] for a in env["result"]["applied"]) == ["T-1", "T-2"]
    assert _status(tmp_path, "T-1") == _status(tmp_path, "T-2") == "done"


@pytest.mark.slow
def test_a_title_word_the_code_never_names_blocks_shipped(tmp_path):
    # "async" is a word of code structure the concept index leaves out; no file of this code says it
    write_files(tmp_path, LIBRARY)
    write_plan(tmp_path, [node("T-1", "Throttle async calls to a rate per second", release="R1"),
                          node("T-2", TITLE, release="R1")])
    commit_all(tmp_path)

    found = _by_id(_reconcile(tmp_path))
    assert found["T-1"]["verdict"] == "partial"
    assert found["T-1"]["missing"][0] == "no code file names the title's word(s): async"
    assert found["T-2"]["verdict"] == "likely"  # the same code, the title without the word

    # the word in a docs page only is still not code naming it; in a source file it is
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/async.md").write_text("# Async\n\nAsync calls are throttled too.\n")
    commit_all(tmp_path, "docs")
    assert _by_id(_reconcile(tmp_path, "--node", "T-1"))["T-1"]["verdict"] == "partial"
    (tmp_path / "pkg/limits.py").write_text((tmp_path / "pkg/limits.py").read_text()
                                            + "\n\nasync def athrottle(rate):\n    return rate\n")
    commit_all(tmp_path, "async")
    assert _by_id(_reconcile(tmp_path, "--node", "T-1"))["T-1"]["verdict"] == "likely"


TYPES = {
    "pkg/types.py": (
        'class ParamType:\n    """The base class of every parameter type."""\n\n\n'
        'class UUIDParameterType(ParamType):\n    name = "uuid"\n\n    def convert(self, value):\n        return value\n\n\n'
        'class DateTime(ParamType):\n    """The DateTime parameter type converts date strings into datetime objects."""\n\n'
        '    name = "datetime"\n\n    def convert(self, value):\n        return value\n'),
    "tests/test_types.py": "def test_datetime_parameter_type_parses_a_date():\n    assert True\n",
    "docs/types.md": "# Parameter types\n\nThe `DateTime` parameter type reads a date and time.\n",
    "pkg/units.py": LIBRARY["pkg/units.py"],
}


def test_evidence_leads_with_the_definition_the_rule_matched(tmp_path):
    # The definition-name rule's best is `UUIDParameterType` (it names "parameter" and "type" by its own
    # name); the sources rule matched `DateTime`, whose docstring, test and docs say all of the title.
    write_files(tmp_path, TYPES)
    write_plan(tmp_path, [node("T-1", "Date and time parameter type", release="R1")])
    commit_all(tmp_path)

    env = _reconcile(tmp_path, "--explain")
    [found] = env["result"]["suggestions"]
    assert "meaning: best: symbol UUIDParameterType (pkg/types.py:5) covers 0.77 of the title's weight, " \
           "0.77 by its own name" in found["explain"]["rules"]
    assert found["verdict"] == "likely"
    assert [(e["kind"], e["name"], e["path"], e["line"]) for e in found["evidence"][:2]] == \
        [("definition", "DateTime", "pkg/types.py", 12),
         ("doc", "The `DateTime` parameter type reads a date and time.", "docs/types.md", 3)]
    assert all(e["name"] != "UUIDParameterType" for e in found["evidence"])
    assert found["reason"].startswith("a lead to verify: definition DateTime (pkg/types.py:12)")
