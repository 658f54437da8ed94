"""retrieve.py on a JS library, a CLI and a Next.js app: one word
of a longer title is not the feature; a mixed-case name (PyPI) is one word; "logs in a thread" is
no "log in"; a word the repository names under another form (installed → installation) is its
background. Small real repositories through the real CLI, and the real text functions."""

from __future__ import annotations

from collections import Counter

from testkit import node, write_plan
from testkit.repos import FILLER, commit_all, reconcile, write_files

from leafwise.commands.reconcile.match import Stats, weigh
from leafwise.commands.reconcile.text import identifier_concepts

LOGGER = {
    "logkit/format.py": FILLER,
    "logkit/time.py": (
        "def timestamp(record):\n"
        '    """The timestamp of a record, in UTC."""\n'
        "    return record.created\n"),
    "tests/test_time.py": "def test_timestamp_of_a_record():\n    assert True\n",
    "README.md": "# logkit\n\nEvery record carries a timestamp.\n\nTimestamps are epoch milliseconds.\n",
}


def _verdict(root, files: dict[str, str], title: str) -> dict:
    write_files(root, files)
    write_plan(root, [node("T-1", title, release="R1")])
    commit_all(root)
    return reconcile(root, "--node", "T-1", "--explain")["T-1"]


def test_one_word_of_a_longer_title_is_not_the_feature(tmp_path):
    got = _verdict(tmp_path / "zone", LOGGER, "Timestamps in the server's local time zone")
    assert got["verdict"] not in ("shipped", "likely"), got["explain"]["rules"]
    # the same code ships the title it is about: the rule does not silence a one-concept title
    short = _verdict(tmp_path / "short", LOGGER, "Timestamps on every record")
    assert short["verdict"] == "likely", short["explain"]["rules"]
    assert short["evidence"][0]["path"] == "logkit/time.py"


def test_a_mixed_case_name_is_one_word():
    assert identifier_concepts("PyPI") == frozenset({"pypi"})
    assert identifier_concepts("macOS iOS") == identifier_concepts("macos ios")  # not "mac" + "os"
    assert identifier_concepts("pypi_package_url") >= {"pypi", "url"}
    # camel case still splits where its parts are words
    assert identifier_concepts("GitHub attachAuthUser") == identifier_concepts("git hub attach auth user")


def test_a_plural_noun_before_in_a_is_no_phrasal_verb():
    assert "login" not in identifier_concepts("Process logs in a separate worker thread")
    assert "login" in identifier_concepts("Log in with an emailed link")
    stats = Stats(100, Counter({"log": 3, "worker": 2}))
    assert "login" not in weigh("Process logs in a separate worker thread", "", stats).weights
    assert "login" in weigh("Log in with a link", "", stats).weights


def test_a_word_named_often_under_another_form_is_background():
    df = Counter({"instal": 40, **{f"w{i}": 1 for i in range(60)}})
    stats = Stats(100, df, frozenset({"instal"}))
    assert stats.background("installation")
    assert not stats.background("thread")
    w = weigh("Move the installation to another folder", "", stats)
    assert "background" in w.why["installation"]


def test_pages_about_developing_the_project_are_not_feature_docs():
    from leafwise.commands.reconcile.documents import kind_of

    assert kind_of("README.md") == "docs" and kind_of("docs/usage.md") == "docs"
    for rel in ("CONTRIBUTING.md", "SECURITY.md", "docs/CODE_OF_CONDUCT.md", ".github/ISSUE_TEMPLATE/bug.md",
                ".github/pull_request_template.md"):
        assert kind_of(rel) is None, rel


def test_a_fixture_of_the_tests_does_not_agree_as_a_test(tmp_path):
    from leafwise.commands.reconcile.artifacts import Artifact
    from leafwise.commands.reconcile.retrieve import category

    def doc(name: str, path: str) -> Artifact:
        return Artifact("test", name, path, 1, "", frozenset({"environment"}))

    assert category(doc("test_env_vars", "tests/test_env.py")) == "test"
    assert category(doc("TestEnv.test_it", "tests/test_env.py")) == "test"
    assert category(doc("pipx_temp_env", "tests/conftest.py")) == "other"
    assert category(doc("sets env vars for the child", "test/env.test.js")) == "test"
