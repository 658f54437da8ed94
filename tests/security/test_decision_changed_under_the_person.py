"""A person's answer is recorded only for the decision they read (`decisions.decide`: `expect`, and the
question and options checked again under the node's lock).

Found in session 19's attack (h22j): T-1 asks "Keep the current setup" or "Move"; the person reads it with
`show T-1`; the asking agent (or a pull) rewrites option 1 to "Drop the production database"; the person's
`decide T-1 --option 1` recorded the drop. The canvas re-read the file before answering, but a rewrite
between that read and decide's write still went through. Now `--expect TEXT` (which the canvas always
passes: the option it showed) refuses a changed option, and a rewrite while decide runs is refused too;
nothing is recorded either way."""

from __future__ import annotations

import json

import pytest
from testkit import node, node_data, run_cli, write_plan

ASKED = {"question": "Which setup?", "options": ["Keep the current setup", "Move to the new cluster"]}
REWRITES = {"option text": {"options": ["Drop the production database", "Move to the new cluster"]},
            "order": {"options": ["Move to the new cluster", "Keep the current setup"]},
            "a look-alike": {"options": ["Keep the current setup\u200b; drop the database", "Move to the new cluster"]}}


def _plan(tmp_path):
    return write_plan(tmp_path, [node("T-1", "Pick a setup", release="R1", status="blocked",
                                      blocked_reason="a choice", decision=dict(ASKED))])


@pytest.mark.parametrize("rewrite", list(REWRITES))
def test_an_option_rewritten_after_the_person_read_it_is_not_answered(tmp_path, rewrite):
    root = _plan(tmp_path)
    shown = run_cli("show", "T-1", "--json", cwd=root).json["result"]
    read = shown["decision"]["options"][0]
    path = root / ".leafwise" / "nodes" / "T-1.yaml"
    data = node_data(root, "T-1")
    data["decision"] = {**ASKED, **REWRITES[rewrite]}
    path.write_text(json.dumps(data))  # JSON is YAML: the asking agent's rewrite, or a pull's
    before = path.read_bytes()
    res = run_cli("decide", "T-1", "--option", "1", "--expect", read, "--json", cwd=root)
    assert res.code == 3 and res.json["error"]["code"] == "decision_changed", res.stdout
    assert path.read_bytes() == before, "nothing recorded"
    assert res.json["_next_action"]["command"] == "leafwise show T-1"


def test_the_option_the_person_read_is_answered(tmp_path):
    root = _plan(tmp_path)
    res = run_cli("decide", "T-1", "--option", "1", "--expect", "Keep the current setup", cwd=root)
    assert res.code == 0, res.stderr
    assert node_data(root, "T-1")["decision"]["answer"]["choice"] == "Keep the current setup"


def test_a_rewrite_while_decide_runs_is_not_answered(tmp_path, monkeypatch):
    """The window between decide's read and its write under the lock: the question or options it read
    are checked again against the file as the lock gives it."""
    from leafwise.commands.domain import decisions
    from testkit import run_cli_in_process

    root = _plan(tmp_path)
    path = root / ".leafwise" / "nodes" / "T-1.yaml"
    real_write = decisions.write

    def rewritten_first(ctx, node, edit):
        data = node_data(root, "T-1")
        data["decision"] = {**ASKED, **REWRITES["option text"]}
        path.write_text(json.dumps(data))
        return real_write(ctx, node, edit)

    monkeypatch.setattr(decisions, "write", rewritten_first)
    res = run_cli_in_process("decide", "T-1", "--option", "1", "--json", cwd=root)
    assert res.json["error"]["code"] == "decision_changed", res.stdout
    assert "answer" not in node_data(root, "T-1")["decision"]
