"""Code that does the opposite of what a title asks is not evidence of it (engine._opposite,
meaning.opposites): an importer does not ship "Export recipes to Paprika", `disable_sync` does not
ship "Enable sync"; the same code still ships the title it does match."""

from __future__ import annotations

from leafwise.commands.reconcile.meaning import opposites
from leafwise.commands.reconcile.text import concept
from testkit import node, write_plan
from testkit.repos import commit_all, reconcile, write_files

IMPORTER = {
    "recipes/paprika.py": (
        '"""Bring recipes in from other apps."""\n\n\n'
        "def import_paprika_recipes(archive_path):\n"
        '    """Read a .paprikarecipes archive and create a recipe for each entry."""\n'
        "    return []\n"),
    "recipes/test_paprika.py": (
        "from recipes.paprika import import_paprika_recipes\n\n\n"
        "def test_import_paprika_recipes():\n    assert import_paprika_recipes('x') == []\n"),
    "README.md": "# Recipes\n\nImport your recipes from Paprika.\n",
}


def test_wordnet_antonyms_and_the_un_prefix_both_ways():
    assert concept("import") in opposites(concept("export"))
    assert concept("export") in opposites(concept("import"))
    assert concept("disable") in opposites(concept("enable"))
    assert "unfollow" in opposites(concept("follow")) and "follow" in opposites("unfollow")
    assert concept("export") not in opposites(concept("export"))


def test_an_importer_does_not_ship_an_export_and_the_row_says_why(tmp_path):
    write_files(tmp_path, IMPORTER)
    commit_all(tmp_path)
    write_plan(tmp_path, [node("T-1", "Export recipes to Paprika", release="R1"),
                          node("T-2", "Import recipes from Paprika", release="R1")])
    found = reconcile(tmp_path)
    assert found["T-2"]["verdict"] == "likely"  # the same code, the title it does match
    assert found["T-1"]["verdict"] == "partial"
    assert found["T-1"]["missing"][0] == ("the code does the opposite of 'export': "
                                          "symbol import_paprika_recipes (recipes/paprika.py:4)")
    assert found["T-1"]["confidence"] < 0.8  # never closed by an unattended --apply


def test_code_that_names_both_directions_still_ships(tmp_path):
    files = dict(IMPORTER)
    files["recipes/paprika.py"] += ("\n\ndef export_paprika_recipes(recipes):\n"
                                    '    """Write the recipes as a .paprikarecipes archive."""\n'
                                    "    return b''\n")
    files["recipes/test_paprika.py"] += "\n\ndef test_export_paprika_recipes():\n    assert True\n"
    files["README.md"] += "\nExport your recipes to Paprika.\n"
    write_files(tmp_path, files)
    commit_all(tmp_path)
    write_plan(tmp_path, [node("T-1", "Export recipes to Paprika", release="R1")])
    found = reconcile(tmp_path)["T-1"]
    assert found["verdict"] == "likely"
    assert found["evidence"][0]["name"] == "export_paprika_recipes"


def test_an_opposite_the_title_itself_names_is_no_veto(tmp_path):
    # WordNet opposes "delete" and "record"; a title about deleting records is not contradicted by
    # a definition named after records.
    write_files(tmp_path, {
        "app/records.py": ("def expire_records(days):\n"
                           '    """Delete records older than a number of days."""\n    return 0\n'),
        "app/test_records.py": "def test_expire_records_deletes_old_records():\n    assert True\n",
        "README.md": "# App\n\nOld records are deleted after a number of days.\n",
    })
    commit_all(tmp_path)
    write_plan(tmp_path, [node("T-1", "Delete old records", release="R1")])
    found = reconcile(tmp_path)["T-1"]
    assert found["verdict"] == "likely", found
