"""`trust --allow` tells the person when their approvals file lies in a tree a clone brings, instead of
recording an approval that never counts (`store.trust.planted_store`).

Found in session 19's attack (h22k): with HOME at a repository's top (a sandbox, a devcontainer) and the
plan in a subfolder, the approvals file `<top>/.config/leafwise/trust.json` is refused for that plan
(its author could have committed it), but `trust --allow HASH --yes` wrote the approval there and
answered as if done, while `validate` still waited for a person. Now it refuses (exit 3), names the tree,
writes nothing, and says to set LEAFWISE_CONFIG_DIR outside every repository.
"""

from __future__ import annotations

import subprocess

import pytest
from testkit import node, run_cli, write_plan


@pytest.mark.parametrize("sub", ["sub", "a/b"])
def test_an_approval_in_a_clones_tree_is_refused_and_said(tmp_path, sub):
    top = tmp_path / "home"
    plan = write_plan(top / sub, [node("P1-1", "Epic", release="R1"),
                                  node("P1-2", "Leaf", parent="P1-1", done_when=[{"command": "echo checked"}])],
                      prefix="P1")
    subprocess.run(["git", "init", "-q"], cwd=top, check=True)
    # the person's folders where a HOME at the repository's top puts them
    full = {"HOME": str(top), "LEAFWISE_CONFIG_DIR": str(top / ".config" / "leafwise")}
    key = run_cli("trust", "--json", cwd=plan, env=full).json["result"]["commands"][0]["hash"]
    res = run_cli("trust", "--allow", key, "--yes", "--json", cwd=plan, env=full)
    assert res.code == 3 and res.json["error"]["code"] == "approvals_inside_plan", res.stdout
    assert str(top) in res.json["error"]["message"]
    assert "LEAFWISE_CONFIG_DIR" in res.json["_next_action"]["condition"] + res.json["_next_action"]["reason"]
    assert not (top / ".config" / "leafwise" / "trust.json").exists(), "nothing written in vain"
    outside = tmp_path / "person-config"
    ok = run_cli("trust", "--allow", key, "--yes", cwd=plan, env={**full, "LEAFWISE_CONFIG_DIR": str(outside)})
    assert ok.code == 0 and (outside / "trust.json").exists(), ok.stdout + ok.stderr
