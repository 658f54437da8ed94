"""A mapping key in a plan file is text (`store/safe_yaml.py` `_loader`'s `construct_mapping`).

Found in session 17's attack (h22c): a committed node file with a key that YAML reads as no string
(`1: one`, `true: x`, `null: x`, `1.5: x`, `0x1f: x`, `1:20: x` …) loaded as a valid node (validate:
0 errors), and then `leafwise show` answered internal_error (`key + ':'`: TypeError), the canvas crashed
on showing a node with a `null:` key (`f"{label:>9}"` of None), and every write (`edit`, `start`, `complete`) answered
internal_error (ruamel: `1` and `true` are one key to Python, a DuplicateKeyError) — PyYAML itself
keeps the last of `1:` and `true:` silently. Generated: every YAML spelling of a key that is no text,
top level and nested, in node files, project.yaml and cycle files.
"""

from __future__ import annotations

import itertools

import pytest
from leafwise.store import reader, safe_yaml
from leafwise.store.node_files import read_node_file
from testkit import run_cli, run_cli_in_process, write_plan

# every YAML 1.1 spelling PyYAML's safe loader resolves to something other than a string
NUMBERS = ("1", "-7", "0", "0x1f", "017", "1_000", "1:20", "0b101", "+12")
FLOATS = ("1.5", "-0.0", "1.0e+3", ".inf", "-.Inf", ".nan", "6.8523015e+5", "190:20:30.15")
BOOLS = ("true", "false", "True", "FALSE", "yes", "No", "on", "OFF", "Yes")
NULLS = ("null", "~", "Null", "NULL")
TAGGED = ("!!int 5", "!!bool yes", "!!float 2", "!!null ''")
COMPLEX = ("[a]", "[a, b]", "{a: 1}", "? [a]")
KEYS = NUMBERS + FLOATS + BOOLS + NULLS + TAGGED + COMPLEX


def node_text(key: str, nested: bool) -> str:
    line = f"{key}: v"
    body = f"decision:\n  question: q\n  {line}\n" if nested else f"{line}\n"
    return f"id: T-1\ntitle: Task\nstatus: draft\nrelease: R1\n{body}"


@pytest.mark.parametrize(("key", "nested"), list(itertools.product(KEYS, (False, True))))
def test_a_key_that_is_no_text_is_that_files_problem_with_its_line(tmp_path, key, nested):
    path = tmp_path / "T-1.yaml"
    path.write_text(node_text(key, nested))
    loaded = read_node_file(path)
    assert loaded.data is None, (key, loaded.data)
    message, line, code = loaded.error
    assert code == "yaml_error" and "a key must be text" in message, loaded.error
    assert line == (7 if nested else 5), loaded.error


@pytest.mark.parametrize("key", KEYS)
def test_every_reader_of_plan_yaml_refuses_it(key):
    for text in (f"{key}: v\n", f"a:\n  {key}: v\n", f"a:\n- {key}: v\n"):
        with pytest.raises(reader.Refused) as refused:
            safe_yaml.load_yaml(text.encode(), reader.CYCLE)
        assert "a key must be text" in str(refused.value)


def test_text_keys_still_load_quoted_or_not():
    data = safe_yaml.parse_yaml('id: T-1\n"1": one\n\'true\': t\n!!str 5: five\n"null": n\nx: {"2": b}\n')
    assert data == {"id": "T-1", "1": "one", "true": "t", "5": "five", "null": "n", "x": {"2": "b"}}


def test_show_edit_and_the_canvas_on_a_planted_number_key(tmp_path):
    root = write_plan(tmp_path / "plan", {"T-1": node_text("1", False) + "true: boolkey\n",
                                          "T-2": "id: T-2\ntitle: Other\nstatus: draft\nrelease: R1\n"})
    for args in (("show", "T-1"), ("show", "T-1", "--json"), ("validate", "--json"),
                 ("edit", "T-1", "--set", "title=x"), ("start", "T-1", "--agent", "bot")):
        res = run_cli_in_process(*args, cwd=root)
        assert "internal_error" not in res.stdout + res.stderr and "Traceback" not in res.stdout + res.stderr, \
            (args, res.stdout[-800:], res.stderr[-800:])
    res = run_cli("validate", cwd=root)  # a real process: the problem names the file and line
    assert res.code != 0 and "T-1.yaml:5" in res.stdout and "a key must be text" in res.stdout, res.stdout


@pytest.mark.anyio
async def test_the_canvas_shows_the_node_with_a_null_key(tmp_path):
    from leafwise.canvas.widgets.node_detail import NodeDetail
    from testkit.canvas import canvas, ready, tree, until

    root = write_plan(tmp_path / "plan", {"T-1": node_text("null", False),
                                          "T-2": "id: T-2\ntitle: Other\nstatus: draft\nrelease: R1\n"})
    app = canvas(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(app, pilot)
        for key in tree(app).visible_keys():
            tree(app).move_cursor_to(key)
            await until(pilot, lambda key=key: app.screen.query_one(NodeDetail).key == key, what=key)
        await pilot.press("down", "up")
        await pilot.pause()
        assert app.is_running


@pytest.mark.parametrize("value", ["{1: x}", "{true: 1}", "[a, {null: b}]", "{? [a]: b}"])
def test_edit_says_why_a_yaml_value_with_such_a_key_is_refused(tmp_path, value):
    """`parse_yaml` puts the problem first: `edit --set` shows the error's first line, which was only
    PyYAML's "while constructing a mapping"."""
    root = write_plan(tmp_path / "plan", {"T-1": node_text("title", False).replace("title: v\n", "")})
    res = run_cli_in_process("edit", "T-1", "--set", f"summary={value}", cwd=root)
    assert res.code != 0 and "a key must be text" in res.stderr, res.stderr
    with pytest.raises(Exception, match="^YAML does not parse: a key must be text"):
        safe_yaml.parse_yaml(f"a: {value}\n")
