"""CSV export's formula guard: a cell a spreadsheet could run, also behind any Unicode space, gets
one quote before it, and import takes exactly that quote off again."""

from __future__ import annotations

import pytest
import csv
import json
import sys
import unicodedata
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from leafwise.commands.adoption.csv_format import as_written, formula_safe
from leafwise.store import PlanPaths, load_plan
from testkit import run_cli_in_process

SPACES = sorted({chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()
                 or unicodedata.category(chr(c)) == "Zs"} | {"\u200b", "\ufeff", "\u2060"})
blank = st.text(st.sampled_from(SPACES + ["'"]), max_size=4)
formula = st.builds(lambda lead, start, rest: lead + start + rest, blank, st.sampled_from("=+-@"), st.text())


@pytest.mark.slow
@given(formula)
def test_a_formula_behind_spaces_or_quotes_is_guarded(cell: str) -> None:
    safe = formula_safe(cell)
    assert safe == "'" + cell and as_written(safe) == cell


@given(st.one_of(formula, st.text(), blank.map(lambda b: b + "plain")))
def test_import_takes_off_exactly_the_quote_export_put_on(cell: str) -> None:
    assert as_written(formula_safe(cell)) == cell
    safe = formula_safe(cell)
    after = safe.lstrip("".join(SPACES))
    assert not after.startswith(("=", "+", "-", "@")), "a spreadsheet trimming spaces would see a formula"


def test_descriptions_behind_unicode_spaces_round_trip_through_the_cli(plan_root: Path, kit, tmp_path: Path) -> None:
    texts = [f"{space}=HYPERLINK(\"x\")" for space in ("\u00a0", "\u3000", "\u2009", "\u202f", " ")] + \
        ["\u00a0'=kept quote", " plain", "\t@SUM(1)"]
    ids = []
    for number, body in enumerate(texts):  # written into the node file as a person's editor would
        added = run_cli_in_process("add", f"Cell {number}", "--json", cwd=plan_root)
        ids.append(json.loads(added.stdout)["result"]["id"])
        node = plan_root / ".leafwise/nodes" / f"{ids[-1]}.yaml"
        node.write_text(node.read_text() + f"description: {json.dumps(body)}\n", encoding="utf-8")
    plan = load_plan(PlanPaths(plan_root))
    assert [plan.nodes[i].data["description"] for i in ids] == texts
    path = tmp_path / "plan.csv"
    assert run_cli_in_process("export", "csv", str(path), cwd=plan_root).code == 0
    rows = {r["id"]: r for r in csv.DictReader(path.open(encoding="utf-8", newline=""))}
    for node_id, body in zip(ids, texts):
        written = rows[node_id]["description"]
        assert written == formula_safe(body) and not written.lstrip("".join(SPACES)).startswith(("=", "+", "@"))
    copy = tmp_path / "copy"
    copy.mkdir()
    assert run_cli_in_process("init", "--name", "Copy", "--prefix", "CP", cwd=copy).code == 0
    assert run_cli_in_process("import", "csv", str(path), cwd=copy).code == 0
    back = {n["title"]: n.get("description") for n in kit.imported(copy).values()}
    assert [back[f"Cell {n}"] for n in range(len(texts))] == texts
