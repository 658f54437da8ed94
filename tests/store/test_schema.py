"""The node schema is declared once (`store/schema.py`): the loader, `edit` and the JSON Schema agree."""

from __future__ import annotations

import ast
from pathlib import Path

import jsonschema
import pytest
from leafwise.store import schema
from leafwise.store.loader import SchemaError, check_node
from leafwise.store.schema import BY_NAME, FIELDS, KNOWN_FIELDS, LIST_FIELDS, READ_ONLY_FIELDS, json_schema
from testkit import node, run_cli, source_files, walked, write_plan

ROOT = Path(__file__).resolve().parents[2]
GOOD = {"id": "T-1", "title": "A task", "status": "draft", "parent": "T-0", "release": "R1", "assignee": "a",
        "blocked_reason": None, "summary": "s", "depends_on": ["T-2"], "tags": ["x"], "trigger": None,
        "cascade": "manual", "docs": ["docs/a.md"], "diagrams": [], "evidence": [{"note": "ok"}],
        "created": "2026-11-29T20:00:00Z", "updated": "2026-11-29T20:00:00Z", "description": "d",
        "priority": "high", "follows": "T-3", "done_when": [{"file": "a.py"}]}
# A value of another kind, for each kind the loader refuses.
WRONG = {"text": ["a list"], "value": {"a": 1}, "texts": "a, b", "list": "a text", "choice": "sideways",
         "status": "finished", "id": "t 1"}


def accepts(data: dict) -> bool:
    try:
        check_node(dict(data), "T-1")
    except SchemaError:
        return False
    return True


def valid(data: dict) -> bool:
    return jsonschema.Draft202012Validator(json_schema()).is_valid(data)


def test_the_json_schema_is_a_valid_schema_and_holds_every_field() -> None:
    jsonschema.Draft202012Validator.check_schema(json_schema())
    assert list(json_schema()["properties"]) == [f.name for f in FIELDS]
    assert json_schema()["required"] == ["id", "title", "status"]


def test_a_node_with_every_field_right_passes_both() -> None:
    assert set(GOOD) == set(KNOWN_FIELDS)  # the sample covers every field a person sets
    assert accepts(GOOD) and valid(GOOD)
    assert accepts({"id": "T-1", "title": "t", "status": "done", "unknown_key": [1, {"x": 2}]})


@pytest.mark.parametrize("field", [f for f in FIELDS if f.strict], ids=lambda f: f.name)
def test_a_strict_field_of_another_kind_is_refused_by_both(field) -> None:
    data = {**GOOD, field.name: WRONG[field.kind]}
    with pytest.raises(SchemaError) as info:
        check_node(data, "T-1")
    assert info.value.key == field.name
    assert not valid(data)


@pytest.mark.parametrize("field", [f for f in FIELDS if not f.strict], ids=lambda f: f.name)
def test_a_lax_field_keeps_its_planted_value_but_the_schema_says_what_it_should_be(field) -> None:
    planted = {"timestamp": 12, "text": ["x"], "choice": "urgent", "value": {"a": 1}, "list": "x",
               "status": "finished", "mapping": "x"}[field.kind]
    assert accepts({**GOOD, field.name: planted})
    assert not valid({**GOOD, field.name: planted})


@pytest.mark.parametrize("missing", schema.REQUIRED_FIELDS)
def test_required_fields_are_required_by_both(missing: str) -> None:
    data = {k: v for k, v in GOOD.items() if k != missing}
    assert not accepts(data) and not valid(data)


def test_edit_knows_the_declared_fields_and_refuses_the_read_only_ones(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "Task")])
    res = run_cli("edit", "T-1", "--set", "colour=red", "--json", cwd=tmp_path)
    assert res.code == 2 and res.json["error"]["details"]["known"] == list(KNOWN_FIELDS)
    for name in sorted(READ_ONLY_FIELDS):
        res = run_cli("edit", "T-1", "--set", f"{name}=x", cwd=tmp_path)
        assert res.code == 2 and f"{name} cannot be edited" in res.stderr
    res = run_cli("edit", "T-1", "--add", "priority=high", cwd=tmp_path)
    assert res.code == 2 and ", ".join(LIST_FIELDS) in res.stderr
    for name in KNOWN_FIELDS:
        assert BY_NAME[name].help and BY_NAME[name].origin == "person"


# The lists derived from FIELDS: a literal holding the same names elsewhere is a second copy.
DERIVED = {name: frozenset(getattr(schema, name)) for name in
           ("FIELD_ORDER", "KNOWN_FIELDS", "LIST_FIELDS", "TEXT_FIELDS", "READ_ONLY_FIELDS", "EDITABLE_FIELDS")}


def field_lists(path: Path):
    for item in walked(path.read_text(encoding="utf-8")):
        if isinstance(item, (ast.Tuple, ast.List, ast.Set)) and len(item.elts) >= 3:
            names = [e.value for e in item.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(names) == len(item.elts):
                yield item.lineno, frozenset(names)


def test_no_other_module_writes_out_a_field_list() -> None:
    copies = []
    for folder in ("store", "commands"):
        for path in source_files(ROOT / folder):
            if path == ROOT / "store" / "schema.py":
                continue
            copies += [f"{path.relative_to(ROOT)}:{line}: {name}" for line, names in field_lists(path)
                       for name, derived in DERIVED.items() if names == derived]
    assert copies == []
