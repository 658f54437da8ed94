"""What a `shipped` from the many-sources rules is worth: the share that was right on repositories
the engine was never tuned on (retrieve.MEASURED), below `--apply`'s default threshold, so a person
confirms it; with a threshold a person chose, `--apply` closes it."""

from __future__ import annotations

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


def test_a_many_sources_shipped_is_left_to_a_person_by_default(tmp_path):
    _library_with_a_draft(tmp_path)
    res = run_cli("reconcile", "--json", cwd=tmp_path)
    assert res.code == 0, res.stderr
    env = json.loads(res.stdout)
    [found] = env["result"]["suggestions"]
    assert (found["verdict"], found["confidence"]) == ("shipped", MEASURED)
    assert "a person confirms" in env["_next_action"]["reason"]

    res = run_cli("reconcile", "--apply", "--json", cwd=tmp_path)
    env = json.loads(res.stdout)
    assert env["result"]["applied"] == []
    assert env["result"]["refused"][0]["reason"] == f"confidence {MEASURED} below {DEFAULT_MIN_CONFIDENCE}"
    assert _status(tmp_path) == "draft"


def test_apply_closes_it_at_a_threshold_a_person_chose(tmp_path):
    _library_with_a_draft(tmp_path)
    res = run_cli("reconcile", "--apply", "--min-confidence", str(MEASURED), "--json", cwd=tmp_path)
    assert res.code == 0, res.stderr
    assert [a["id"] for a in json.loads(res.stdout)["result"]["applied"]] == ["T-1"]
    assert _status(tmp_path) == "done"
