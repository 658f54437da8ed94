"""`format_assignment` and `parse_assignment` agree: what the canvas writes back, `edit` reads as it was."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from testkit import node, run_cli, write_plan

from leafwise.commands.domain.assignments import format_assignment, parse_assignment
from leafwise.store.schema import LIST_FIELDS

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@given(TEXT | st.sampled_from(["\"a' b\"", "'x\" y'", "[it's \"odd\"]", " 'q\" ", "null", "~", ""]))
def test_any_text_comes_back_or_is_refused(value: str) -> None:
    line = format_assignment("title", value)
    if line is not None:
        assert parse_assignment(line) == ("title", value)
    else:
        assert '"' in value and "'" in value


# list items go through YAML, which refuses control characters (tags and ids have none)
@given(st.lists(st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12), max_size=4))
def test_lists_and_nothing_come_back(items: list[str]) -> None:
    assert parse_assignment(format_assignment("tags", items)) == ("tags", items)
    assert parse_assignment(format_assignment("description", None)) == ("description", None)


# YAML that parse_yaml refuses (aliases, tags, non-text keys, broken syntax), inside a list's brackets
REFUSED_LIST_BODIES = ("&a x, *a", "*x", "!!binary aGk=", "!!python/object/apply:os.system [id]", "{1: x}",
                       "{true: y}", "a, [b", "'unclosed")


@given(st.sampled_from(LIST_FIELDS), st.sampled_from(REFUSED_LIST_BODIES))
def test_a_list_value_yaml_refuses_is_a_usage_error_naming_the_field(key: str, body: str) -> None:
    """Found by h22c's attack: `edit --set 'tags=[&a x, *a]'` answered internal_error (the list branch
    let parse_yaml's error through); now a ValueError (edit's usage answer) naming the field and the quotes."""
    try:
        parse_assignment(f"{key}=[{body}]")
    except ValueError as exc:
        assert str(exc).startswith(f"{key}: ") and f'{key}="..."' in str(exc)
    else:  # a body that happens to be valid YAML for this key comes back as a list
        pass


def test_the_cli_answers_a_refused_list_with_a_fix(tmp_path) -> None:
    root = write_plan(tmp_path, [node("T-1", "Alpha", release="R1")])
    answer = run_cli("edit", "T-1", "--set", "tags=[&a x, *a]", "--json", cwd=root)
    assert answer.code == 2 and answer.json["error"]["code"] != "internal_error"
    assert answer.json["_next_action"]["marker"] == "fix"
