"""A change that would take a node file past the loader's value cap is refused as that change's problem
(`commands/domain/nodes.py` `write`, `would_break`; `renumbering.renumber`).

Found in session 19's attack (h22h), on a cloned plan: a node file holding 9,985 tags (under the cap of
10,000 values a file may hold, so it loads). `comment`, `edit --add tags=zz` and `renumber` answered
internal_error (exit 1, `ConstructorError: more than 10,000 values in one file`): the writer's check of
its own new bytes failed with a YAML error the commands did not expect. Now each answers exit 2
`invalid_value` "the change would break …" and nothing is written. Over several distances to the cap.
"""

from __future__ import annotations

import pytest
from testkit import run_cli, run_cli_in_process, write_plan

CHANGES = [("comment", "T-1", "--text", "one more"), ("edit", "T-1", "--add", "tags=zz"),
           ("edit", "T-1", "--set", "description=more"), ("renumber", "T-1")]


@pytest.mark.parametrize("tags", [9_980, 9_985, 9_990])
def test_a_change_past_the_value_cap_is_refused_and_writes_nothing(tmp_path, tags):
    root = write_plan(tmp_path / "plan", [{"id": "T-1", "title": "Task", "status": "draft", "release": "R1",
                                           "tags": [f"t{i}" for i in range(tags)]}])
    nodes = root / ".leafwise" / "nodes"
    before = (nodes / "T-1.yaml").read_bytes()
    assert run_cli_in_process("show", "T-1", cwd=root).code == 0
    refused = 0
    for args in CHANGES:
        res = run_cli_in_process(*args, "--json", cwd=root)
        assert res.code in (0, 2), (args, res.stdout, res.stderr)
        if res.code == 2:
            refused += 1
            assert res.json["error"]["code"] == "invalid_value" and "10,000 values" in res.json["error"]["message"]
            assert (nodes / "T-1.yaml").read_bytes() == before, args
            assert sorted(p.name for p in nodes.iterdir()) == ["T-1.yaml"], args
        else:
            before = (nodes / "T-1.yaml").read_bytes()
    assert refused >= 2
    res = run_cli("comment", "T-1", "--text", "and another", cwd=root)
    assert res.code == 2 and "the change would break" in res.stderr, res.stdout + res.stderr
