"""Many sources searched together (retrieve.py, documents.py): a code document that covers the
title plus tests, UI text or docs that agree; docs alone stay partial; words in another sense
in two different places prove nothing; what docs say the project does not do is not evidence."""

from __future__ import annotations

from leafwise.commands.reconcile.engine import LEAD_CONFIDENCE
from testkit import node, write_plan
from testkit.code_samples import LIBRARY
from testkit.repos import commit_all, reconcile, write_files


def test_a_library_definition_with_its_docstring_is_shipped_with_file_and_line(tmp_path):
    write_files(tmp_path, LIBRARY)
    commit_all(tmp_path)
    write_plan(tmp_path, [node("T-1", "Throttle calls to a rate per second", release="R1")])
    found = reconcile(tmp_path)["T-1"]
    assert found["verdict"] == "likely"
    assert ("pkg/limits.py", 4) in {(e["path"], e["line"]) for e in found["evidence"]}
    assert all(e["path"] and e["line"] for e in found["evidence"])


def test_words_in_two_different_places_are_a_trap_not_a_shipped_feature(tmp_path):
    # "legacy" lives in an importer, "export" in an exporter: nothing exports to Legacy.
    write_files(tmp_path, LIBRARY)
    commit_all(tmp_path)
    write_plan(tmp_path, [node("T-1", "Export recipes as a Legacy archive", release="R1")])
    found = reconcile(tmp_path)["T-1"]
    assert found["verdict"] != "shipped" and found.get("lead") != "rule"  # at most a lead on the words


def test_a_feature_only_the_docs_describe_is_partial_and_says_no_code_names_it(tmp_path):
    write_files(tmp_path, LIBRARY)
    commit_all(tmp_path)
    write_plan(tmp_path, [node("T-1", "Automatic nightly backups of every collection", release="R1")])
    found = reconcile(tmp_path)["T-1"]
    assert found["verdict"] == "partial"
    assert any(e["path"] == "README.md" for e in found["evidence"])
    assert any("no code names" in m for m in found["missing"])


def test_what_the_docs_say_the_project_does_not_do_is_no_evidence(tmp_path):
    write_files(tmp_path, LIBRARY)
    commit_all(tmp_path)
    write_plan(tmp_path, [node("T-1", "Automatic cloud sync", release="R1")])
    found = reconcile(tmp_path)["T-1"]
    assert found["verdict"] == "none"
    assert not found["evidence"]


APP = {
    "server/routes/sharing.py": (
        "from fastapi import APIRouter\n\nrouter = APIRouter(prefix='/recipes')\n\n\n"
        "@router.post('/{slug}/share-link')\n"
        "def create_share_link(slug: str):\n"
        '    """A public link anyone can open to read the recipe."""\n'
        "    return {'token': slug}\n"),
    "tests/test_sharing.py": "def test_create_share_link_for_a_recipe(client):\n    assert client\n",
    "frontend/components/RecipeShareDialog.vue": (
        "<template>\n  <v-dialog>\n    <h2>Share this recipe with a link</h2>\n"
        "    <v-btn>Copy link</v-btn>\n  </v-dialog>\n</template>\n"
        "<script>\nexport default { name: 'RecipeShareDialog' }\n</script>\n"),
    "frontend/lang/en-US.json": '{\n  "recipe": {\n    "share-recipe-link": "Share a recipe with a link"\n  }\n}\n',
}


def test_a_route_with_its_test_and_ui_text_is_a_shipped_app_feature(tmp_path):
    write_files(tmp_path, APP)
    commit_all(tmp_path)
    write_plan(tmp_path, [node("T-1", "Share a recipe with someone through a link", release="R1")])
    found = reconcile(tmp_path)["T-1"]
    assert found["verdict"] == "likely"
    paths = {e["path"] for e in found["evidence"]}
    assert "server/routes/sharing.py" in paths
    assert paths & {"frontend/components/RecipeShareDialog.vue", "frontend/lang/en-US.json"}


def test_explain_lists_each_source_and_the_rule_that_decided(tmp_path):
    write_files(tmp_path, APP)
    commit_all(tmp_path)
    write_plan(tmp_path, [node("T-1", "Share a recipe with someone through a link", release="R1")])
    ex = reconcile(tmp_path, "--explain", "--node", "T-1")["T-1"]["explain"]
    cats = {s["category"] for s in ex["sources"]}
    assert {"code", "ui", "test"} <= cats
    assert any(r.startswith("sources: head concept") for r in ex["rules"])
    assert ex["rules"][0] == "sources: shipped"


def test_a_lead_on_the_words_tells_a_person_where_the_code_names_it_and_what_would_make_it_shipped(tmp_path):
    # the words meet in a function's body (not its name), and nothing else says the same: no rule's bar
    # is met, so it is a lead on the words, at the lower confidence, keeping what it lacks
    write_files(tmp_path, {**LIBRARY, "pkg/jobs.py": (
        "def run_job(store):\n"
        "    archive = store.compress_archive(level=9)\n"
        "    store.schedule_nightly(archive)\n")})
    commit_all(tmp_path)
    write_plan(tmp_path, [node("T-1", "Compress the nightly archive", release="R1")])
    found = reconcile(tmp_path)["T-1"]
    assert (found["verdict"], found["lead"], found["confidence"]) == ("likely", "words", LEAD_CONFIDENCE)
    assert found["missing"] == ["no test, UI text or docs say the same: "
                                "body run_job (pkg/jobs.py:1) names 76% of the title"]


def test_a_partial_on_one_word_of_the_title_says_so(demo_plan):
    # the demo shop's wishlist DELETE route names "delete" of "Delete my account (GDPR)", nothing else
    found = reconcile(demo_plan)["SHOP-18"]
    assert found["verdict"] == "partial"
    assert found["missing"] == ["only one of the title's words is there: route DELETE /api/wishlist/{product_id} "
                                "(backend/app/routers/wishlist.py:26) names 46% of the title"]


def test_a_lead_on_the_words_says_in_its_reason_that_no_rule_was_met(tmp_path):
    write_files(tmp_path, {**LIBRARY, "pkg/jobs.py": (
        "def run_job(store):\n"
        "    archive = store.compress_archive(level=9)\n"
        "    store.schedule_nightly(archive)\n")})
    commit_all(tmp_path)
    write_plan(tmp_path, [node("T-1", "Compress the nightly archive", release="R1")])
    found = reconcile(tmp_path)["T-1"]
    assert found["lead"] == "words"
    assert found["reason"] == "a lead to verify (the words, no rule met): body run_job (pkg/jobs.py:1)"
