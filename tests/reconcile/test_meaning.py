"""The meaning-based path: tree-sitter definitions (Go included), word weights from general
English, and `reconcile --explain`."""

from __future__ import annotations

import json

from testkit import node, run_cli, write_plan


def _files(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


LIB = {
    "backoff/wait.py": "class wait_random:\n    def __init__(self, min=0, max=1):\n        pass\n\n\n"
                       "class wait_fixed:\n    def __init__(self, wait=1):\n        pass\n",
    "backoff/stop.py": "def stop_after_attempt(n):\n    return n\n",
    "cmd/main.go": "package main\n\nfunc renderMarkdownPager(path string) error {\n\treturn nil\n}\n",
}


def _run(tmp_path, *args):
    res = run_cli("reconcile", "--json", *args, cwd=tmp_path)
    assert res.code == 0, res.stderr
    return {s["id"]: s for s in json.loads(res.stdout)["result"]["suggestions"]}


def test_a_library_definition_named_by_the_title_is_shipped_with_file_and_line(tmp_path):
    _files(tmp_path, LIB)
    write_plan(tmp_path, [node("T-1", "Wait a random time", release="R1"),
                          node("T-2", "A circuit breaker that stops calling a failing service", release="R1")])
    found = _run(tmp_path)
    assert found["T-1"]["verdict"] == "likely"
    assert ("backoff/wait.py", 1) in {(e["path"], e["line"]) for e in found["T-1"]["evidence"]}
    assert found["T-2"]["verdict"] not in ("shipped", "likely")  # "stop" is in the code, the breaker is not


def test_go_definitions_are_read_with_tree_sitter(tmp_path):
    _files(tmp_path, LIB)
    write_plan(tmp_path, [node("T-1", "Render markdown in a pager", release="R1")])
    found = _run(tmp_path, "--explain")["T-1"]
    names = {(c["name"], c["path"], c["line"]) for c in found["explain"]["candidates"]}
    assert ("renderMarkdownPager", "cmd/main.go", 3) in names


def test_explain_gives_the_concepts_their_weights_and_the_rules(tmp_path):
    _files(tmp_path, LIB)
    write_plan(tmp_path, [node("T-1", "Wait a random time", release="R1")])
    ex = _run(tmp_path, "--explain", "--node", "T-1")["T-1"]["explain"]
    weights = {c["word"]: c["weight"] for c in ex["concepts"]}
    assert weights["random"] > weights["wait"]  # "wait" is commoner English
    assert any(r.startswith("meaning: best:") for r in ex["rules"])
    text = run_cli("reconcile", "--explain", "--node", "T-1", cwd=tmp_path)
    assert "Why T-1 is likely" in text.stdout and "candidate evidence" in text.stdout
