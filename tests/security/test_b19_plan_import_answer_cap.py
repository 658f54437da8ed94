"""import's answer lists at most `contract.MAX_ITEMS` skips, notes, near-duplicates and releases.

Found in the bypass round of session 19: the answer cap (`bounded`) covered import's rows only. A CSV of
20,000 rows naming missing parents and 5,000 rows without a title, imported with --partial --dry-run,
answered 5,000 skips and 20,001 notes (--json 2.1 MB; the text 25,404 lines). Each list is now cut at
MAX_ITEMS with its length in `listed_of`, and the text says how many more."""

from __future__ import annotations

from leafwise.commands.contract import MAX_ITEMS
from testkit import node, run_cli, write_plan


def test_every_list_in_the_import_answer_is_bounded(tmp_path):
    env = {"LEAFWISE_CONFIG_DIR": str(tmp_path / "config"), "LEAFWISE_CACHE_DIR": str(tmp_path / "cache")}
    root = tmp_path / "plan"
    write_plan(root, [node("P1-1", "Epic", release="R1")], prefix="P1")
    rows = ["id,title,parent", *(f"T{i},Task {i},MISSING{i}" for i in range(3000)), *(f"S{i},," for i in range(1500))]
    (root / "in.csv").write_text("\n".join(rows) + "\n")
    answer = run_cli("import", "csv", "in.csv", "--dry-run", "--partial", "--json", cwd=root, env=env).json["result"]
    assert answer["skipped"] == 1500 and len(answer["skips"]) == MAX_ITEMS, len(answer["skips"])
    assert len(answer["notes"]) == MAX_ITEMS and answer["listed_of"]["notes"] == 3001, len(answer["notes"])
    assert answer["listed_of"]["skips"] == 1500
    text = run_cli("import", "csv", "in.csv", "--dry-run", "--partial", cwd=root, env=env).stdout
    assert text.count("  skipped ") == MAX_ITEMS and "… 500 more skipped (of 1500" in text
    assert text.count("  note: ") == MAX_ITEMS and "… 2001 more notes (of 3001" in text
    assert len(text.splitlines()) < 2 * MAX_ITEMS + 500  # 4,900 on the old code
