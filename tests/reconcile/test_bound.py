"""Rules of retrieve.py/tags.py, each on a small real repository through the real CLI:
words must be bound (a function body whose name does not name the head concept is weaker than a
definition that does), a switch branch is a bound document of its own, .vue script parts and
settings constants are parsed, and WordNet's related words count (below the word itself)."""

from __future__ import annotations

from testkit import node, write_plan
from testkit.repos import commit_all, reconcile, write_files

FILLER = "".join(f"def convert_{u}_to_base(value):\n    return value\n\n\n" for u in (
    "gram", "ounce", "pound", "litre", "cup", "spoon", "pinch", "dash", "quart", "pint", "gallon", "stone",
    "metre", "inch", "foot", "yard", "mile", "second", "minute", "hour", "day", "week", "month", "year",
    "kelvin", "celsius", "fahrenheit", "joule", "calorie", "watt"))


def _repo(tmp_path, files):
    write_files(tmp_path, {"pkg/units.py": FILLER, **files})
    write_plan(tmp_path, [node("T-1", "A public status page for customers", release="R1")])
    commit_all(tmp_path)
    return reconcile(tmp_path, "--node", "T-1", "--explain")["T-1"]


STATUS_DOCS = {
    "README.md": "# pkg\n\nA public status page shows customers which services are up.\n",
    "pkg/messages.py": "BANNER = 'The public status page for customers'\n",
}


def test_words_bound_in_a_definition_name_ship_but_the_same_words_loose_in_a_body_do_not(tmp_path):
    bound = _repo(tmp_path / "bound", {**STATUS_DOCS, "pkg/views.py": (
        "def public_status_page(request):\n"
        '    """The public status page customers see."""\n'
        "    return render(request, statuses())\n")})
    loose = _repo(tmp_path / "loose", {**STATUS_DOCS, "pkg/views.py": (
        "def profile(request):\n"
        "    statuses = list_check_statuses(request.user)\n"
        "    page = paginate(statuses, public=False)\n"
        "    customers = request.user.customers\n"
        "    return render(request, page, customers)\n")})
    assert bound["verdict"] == "likely", bound["explain"]["rules"]
    assert any(e["path"] == "pkg/views.py" and e["line"] == 1 for e in bound["evidence"])
    assert loose["verdict"] != "shipped" and loose.get("lead") != "rule", loose["evidence"]  # a words lead at most


GO_PAGER = '''package ui

import "github.com/atotto/clipboard"

type model struct{ document string }

func (m model) update(key string) model {
	switch key {
	case "q":
		return m
	case "c":
		clipboard.WriteAll(m.document) // copy the document
		return m
	}
	return m
}
'''


def test_a_switch_branch_is_bound_evidence_with_its_own_line(tmp_path):
    write_files(tmp_path, {"pkg/units.py": FILLER, "ui/pager.go": GO_PAGER,
                      "README.md": "# glowish\n\nPress c to copy the document you are reading to the clipboard.\n"})
    write_plan(tmp_path, [node("T-1", "Copy the document to the clipboard", release="R1")])
    commit_all(tmp_path)
    got = reconcile(tmp_path, "--node", "T-1", "--explain")["T-1"]
    assert got["verdict"] == "likely", got["explain"]["rules"]
    lead = got["evidence"][0]
    assert (lead["path"], lead["line"]) == ("ui/pager.go", 11) and lead["name"].startswith("update: case")


def test_vue_script_parts_and_settings_constants_are_definitions_at_their_lines(tmp_path):
    vue = ("<template>\n  <div>{{ total }}</div>\n</template>\n\n<script setup lang=\"ts\">\n"
           "function exportShoppingList(items: string[]) {\n  return items.join('\\n')\n}\n</script>\n")
    write_files(tmp_path, {"pkg/units.py": FILLER, "web/ShoppingList.vue": vue,
                      "pkg/settings.py": "import os\n\nSECURITY_MAX_LOGIN_ATTEMPTS = 5\n"})
    write_plan(tmp_path, [node("T-1", "Export a shopping list", release="R1"),
                          node("T-2", "Limit login attempts", release="R1")])
    commit_all(tmp_path)
    got = reconcile(tmp_path, "--explain")
    code = {s["id"]: next(x for x in s["explain"]["sources"] if x["category"] == "code") for s in got.values()}
    assert (code["T-1"]["name"], code["T-1"]["path"], code["T-1"]["line"]) == (
        "exportShoppingList", "web/ShoppingList.vue", 6)
    assert (code["T-2"]["name"], code["T-2"]["path"], code["T-2"]["line"]) == (
        "SECURITY_MAX_LOGIN_ATTEMPTS", "pkg/settings.py", 3)


def test_a_wordnet_synonym_matches_below_the_word_itself(tmp_path):
    write_files(tmp_path, {"pkg/units.py": FILLER, "pkg/shop.py": (
        "def buy_gift_card(amount):\n"
        '    """Buy a gift card for a friend."""\n'
        "    return amount\n")})
    write_plan(tmp_path, [node("T-1", "Purchase a gift card", release="R1"),
                          node("T-2", "Buy a gift card", release="R1")])
    commit_all(tmp_path)
    got = reconcile(tmp_path, "--explain")
    concepts = {c["word"].lower(): c for c in got["T-1"]["explain"]["concepts"]}
    assert "buy" in concepts["purchase"]["lexical"], concepts
    code = {s["id"]: next(x for x in s["explain"]["sources"] if x["category"] == "code") for s in got.values()}
    assert code["T-1"]["name"] == "buy_gift_card" and code["T-1"]["related"] == [concepts["purchase"]["concept"]]
    assert code["T-1"]["score"] < code["T-2"]["score"]
