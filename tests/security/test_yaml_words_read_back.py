"""Text a command writes is read back as that text (`store/roundtrip.py` `_represent_text`).

Found in session 19's attack (h22h): the writer (ruamel) resolves plain scalars by YAML 1.2, the
loader (PyYAML) by YAML 1.1. So `ask P1-2 "Ship it?" --option yes --option no` wrote `- yes` and
`- no`, and `show` listed the options as `1. True 2. False` (`decide` recorded the choice True);
`block --reason off` stored the reason False, `edit --set assignee=no` the assignee False and
`summary=1:20` the summary 80. Now such text is written quoted. Generated over every word YAML 1.1
reads as a bool, sexagesimal numbers and random text, through the writer alone and the real CLI.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from leafwise.store.roundtrip import dump_yaml
from leafwise.store.safe_yaml import parse_yaml
from testkit import node_data, run_cli, run_cli_in_process, write_plan

BOOLEAN_WORDS = [w for word in ("yes", "no", "on", "off", "true", "false", "y", "n", "null", "~")
                 for w in (word, word.capitalize(), word.upper())]
NUMBERS = ["1:20", "-1:30", "190:20:30", "1:20.5", "+1:00", "0b101", "017", "0x1F", "1_000", ".5", "1e3", "+.inf"]
texts = st.one_of(st.sampled_from(BOOLEAN_WORDS + NUMBERS),
                  st.text(alphabet="0123456789:._-+eEbxoOyYnNsSfalFAL ~", min_size=1, max_size=12),
                  st.text(max_size=30))


@settings(max_examples=400, deadline=None)
@given(texts)
def test_every_text_the_writer_writes_is_read_back_as_that_text(value):
    doc = {"summary": value, "tags": [value], "decision": {"question": "q", "options": [value, "b"]}}
    assert parse_yaml(dump_yaml(doc)) == doc


def test_yes_no_options_blocked_reasons_and_values_stay_text_through_the_cli(tmp_path):
    root = write_plan(tmp_path / "plan", [{"id": "T-1", "title": "Task", "status": "draft", "release": "R1"},
                                          {"id": "T-2", "title": "Other", "status": "draft", "release": "R1"}])
    asked = run_cli("ask", "T-1", "Ship it?", "--option", "yes", "--option", "no", cwd=root)
    assert asked.code == 0, asked.stdout + asked.stderr
    shown = run_cli("show", "T-1", "--json", cwd=root).json["result"]
    assert shown["decision"]["options"] == ["yes", "no"]
    assert "1. yes" in run_cli_in_process("show", "T-1", cwd=root).stdout
    decided = run_cli_in_process("decide", "T-1", "--option", "2", cwd=root)
    assert decided.code == 0, decided.stdout + decided.stderr
    assert node_data(root, "T-1")["decision"]["answer"]["choice"] == "no"
    assert run_cli_in_process("block", "T-2", "--reason", "off", cwd=root).code == 0
    assert node_data(root, "T-2")["blocked_reason"] == "off"
    for setting, field, value in (("assignee=no", "assignee", "no"), ("summary=1:20", "summary", "1:20"),
                                  ("description=ON", "description", "ON")):
        res = run_cli_in_process("edit", "T-2", "--set", setting, cwd=root)
        assert res.code == 0, res.stdout + res.stderr
        assert node_data(root, "T-2")[field] == value, setting
    updates = json.dumps([{"id": "T-2", "set": {"summary": "Off", "assignee": "yes"}}])
    res = run_cli("bulk", "-", cwd=root, stdin=updates)
    assert res.code == 0, res.stdout + res.stderr
    assert (node_data(root, "T-2")["summary"], node_data(root, "T-2")["assignee"]) == ("Off", "yes")
