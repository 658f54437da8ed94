"""`bulk`'s `set` values are set as the JSON gives them (`commands/domain/bulk.py` `_assignment`).

Found in session 19's attack (h22h), through the real CLI: `bulk` turned each `set` value into an
`edit --set FIELD=VALUE` word as it was, so edit's own reading of the word applied to JSON text: the
summary "~" or "null" cleared the summary, "'quoted'" and "\\"dq\\"" lost their quotes, "  padded  " its
spaces, and "[a, b]" or "{a: b}" was read as YAML and refused. Now a text value reaches the field as
that text; lists, null, numbers and a list field's `a,b` text keep their meaning.
"""

from __future__ import annotations

import json

from hypothesis import example, given, settings
from hypothesis import strategies as st
from testkit import node_data, run_cli, write_plan

TEXTS = ["~", "null", "Null", "  padded  ", "'quoted'", '"dq"', "[a, b]", "{a: b}", "yes", "a=b", "x,y",
         "it's \"both\"", "# not a comment", "- item", "&a", "*a", "!!python/name:os.system"]


def plan(root):
    return write_plan(root, [{"id": "T-1", "title": "Task", "status": "draft", "release": "R1"}])


def bulk(root, updates):
    return run_cli("bulk", "-", cwd=root, stdin=json.dumps(updates))


def test_every_text_reaches_the_summary_as_it_is(tmp_path):
    root = plan(tmp_path / "plan")
    for text in TEXTS:
        res = bulk(root, [{"id": "T-1", "set": {"summary": text}}])
        assert res.code == 0, (text, res.stdout, res.stderr)
        assert node_data(root, "T-1")["summary"] == text, text


@settings(max_examples=120, deadline=None)
@given(st.text(alphabet=" ~'\"[]{}:,#&*!-=abnul", min_size=1, max_size=10).filter(lambda t: t.strip()))
@example(" ['\"")  # both quotes, and a bracket after a blank: the edit word would be read as broken YAML
def test_generated_texts_reach_the_description_as_they_are(tmp_path_factory, text):
    root = plan(tmp_path_factory.mktemp("bulk"))
    res = bulk(root, [{"id": "T-1", "set": {"description": text}}])
    if res.code == 1 and "'" in text and '"' in text:  # no edit word says it: refused, never another value
        assert "cannot be set exactly" in res.stdout, (text, res.stdout)
        assert "description" not in node_data(root, "T-1")
        return
    assert res.code == 0, (text, res.stdout, res.stderr)
    assert node_data(root, "T-1")["description"] == text


def test_lists_null_and_numbers_keep_their_meaning(tmp_path):
    root = plan(tmp_path / "plan")
    assert bulk(root, [{"id": "T-1", "set": {"tags": ["a", "b"], "summary": 5}}]).code == 0
    assert (node_data(root, "T-1")["tags"], node_data(root, "T-1")["summary"]) == (["a", "b"], "5")
    assert bulk(root, [{"id": "T-1", "set": {"tags": "x,y", "summary": None}}]).code == 0
    assert node_data(root, "T-1")["tags"] == ["x", "y"] and node_data(root, "T-1").get("summary") is None
