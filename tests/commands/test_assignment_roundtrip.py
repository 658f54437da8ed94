"""`format_assignment` and `parse_assignment` agree: what the canvas writes back, `edit` reads as it was."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from leafwise.commands.domain.assignments import format_assignment, parse_assignment

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
