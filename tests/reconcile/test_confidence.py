"""What a match of the many-sources rules is worth: the share that was right on repositories the engine
was never tuned on (retrieve.MEASURED), reported as `likely`; `--apply` never closes it, whatever the
threshold; a person may close it with a note."""

from __future__ import annotations

import pytest
import json

import yaml
from testkit import node, run_cli, write_plan
from testkit.repos import commit_all, write_files

from testkit.code_samples import LIBRARY
from leafwise.commands.reconcile.retrieve import MEASURED
from leafwise.commands.domain.reconciling import DEFAULT_MIN_CONFIDENCE

TITLE = "Throttle calls to a rate per second"


def _library_with_a_draft(tmp_path):
    write_files(tmp_path, LIBRARY)
    commit_all(tmp_path)
    write_plan(tmp_path, [node("T-1", TITLE, release="R1")])


def _status(tmp_path) -> str:
    return yaml.safe_load((tmp_path / ".leafwise/nodes/T-1.yaml").read_text())["status"]


def test_the_measured_confidence_is_below_the_default_threshold():
    assert MEASURED < DEFAULT_MIN_CONFIDENCE


def test_a_many_sources_match_is_likely_and_left_to_verification(tmp_path):
    _library_with_a_draft(tmp_path)
    res = run_cli("reconcile", "--json", cwd=tmp_path)
    assert res.code == 0, res.stderr
    env = json.loads(res.stdout)
    [found] = env["result"]["suggestions"]
    assert (found["verdict"], found["confidence"]) == ("likely", MEASURED)
    assert env["_next_action"]["command"] == "leafwise verify T-1"

    res = run_cli("reconcile", "--apply", "--json", cwd=tmp_path)
    env = json.loads(res.stdout)
    assert env["result"]["applied"] == []
    assert env["result"]["refused"][0]["verdict"] == "likely"
    assert _status(tmp_path) == "draft"


@pytest.mark.slow
def test_no_threshold_closes_a_likely_but_a_person_may_with_a_note(tmp_path):
    _library_with_a_draft(tmp_path)
    res = run_cli("reconcile", "--apply", "--min-confidence", "0", "--json", cwd=tmp_path)
    assert res.code == 0, res.stderr
    assert json.loads(res.stdout)["result"]["applied"] == []
    assert _status(tmp_path) == "draft"
    res = run_cli("reconcile", "--close", "T-1", "--note", "read pkg/limits.py: it throttles", "--json",
                  cwd=tmp_path, env={"LEAFWISE_USER": "Pat Person"})
    assert res.code == 0, res.stderr
    assert _status(tmp_path) == "done"
