"""A decision's options are read by one rule (`store/schema.py` `decision_options`).

Found in session 19's attack (h22h), on a cloned plan through the real CLI: a node blocked on a planted
decision whose `options` is no list of texts. `options: 5` made `show` (text and `--json`) and `decide`
answer internal_error (TypeError); `options: abc` listed a, b and c and `decide --option 1` recorded
the choice "a"; a mapping's keys (`{--force: 1, --agent: 2}`) were recorded as the choice `--force`, a
nested list as a list. Now `show` says the options are unreadable and `decide` refuses, recording
nothing. A list of texts, numbers (and an old file's `yes`/`no`, which YAML 1.1 reads as booleans)
stays answerable.
"""

from __future__ import annotations

import pytest
from leafwise.store.schema import decision_options
from testkit import node_data, run_cli, run_cli_in_process, write_plan

UNREADABLE = ["abc", "5", "{--force: 1, --agent: 2}", "[[a, b], c]", "[x, null]", "[x, {y: z}]", "''", "{}"]
ANSWERABLE = {"[x, y]": ["x", "y"], "[1, 2.5]": ["1", "2.5"], "[yes, no]": ["True", "False"],
              "[--yes, -h]": ["--yes", "-h"]}


def plan(root, options: str):
    root = write_plan(root, [{"id": "T-1", "title": "Task", "status": "draft", "release": "R1"}])
    path = root / ".leafwise" / "nodes" / "T-1.yaml"
    path.write_text(path.read_text().replace("status: draft", "status: blocked\nblocked_reason: asked")
                    + f"decision:\n  question: Which?\n  options: {options}\n")
    return root


@pytest.mark.parametrize("options", UNREADABLE)
def test_options_that_are_no_list_of_texts_are_shown_as_such_and_never_answered(tmp_path, options):
    root = plan(tmp_path / "plan", options)
    before = (root / ".leafwise" / "nodes" / "T-1.yaml").read_bytes()
    shown = run_cli_in_process("show", "T-1", cwd=root)
    assert shown.code == 0 and "its options are no list of texts" in shown.stdout, shown.stdout + shown.stderr
    assert run_cli_in_process("show", "T-1", "--json", cwd=root).code == 0
    decided = run_cli("decide", "T-1", "--option", "1", "--json", cwd=root)
    assert decided.code == 4 and decided.json["error"]["code"] == "bad_decision", decided.stdout
    assert (root / ".leafwise" / "nodes" / "T-1.yaml").read_bytes() == before


@pytest.mark.parametrize("options", list(ANSWERABLE))
def test_a_list_of_texts_stays_answerable(tmp_path, options):
    root = plan(tmp_path / "plan", options)
    assert decision_options(node_data(root, "T-1")["decision"]) == ANSWERABLE[options]
    decided = run_cli_in_process("decide", "T-1", "--option", "2", cwd=root)
    assert decided.code == 0, decided.stdout + decided.stderr
    assert node_data(root, "T-1")["decision"]["answer"]["choice"] == ANSWERABLE[options][1]
