"""Renames and replacements: evidence of the old name is evidence that "Rename X to Y"
has not happened. Small real repositories through the real CLI."""

from __future__ import annotations

from testkit import node, write_plan
from testkit.repos import commit_all, reconcile, write_files

from leafwise.commands.reconcile.transition import parse

OLD = (
    "import random\n\n\n"
    "class wait_random_exponential:\n"
    '    """Random wait with exponentially widening window: full jitter backoff between attempts."""\n\n'
    "    def __call__(self, attempt):\n"
    "        return random.uniform(0, 2 ** attempt)\n"
)
OLD_TEST = (
    "from backoff.wait import wait_random_exponential\n\n\n"
    "def test_wait_random_exponential():\n"
    "    assert 0 <= wait_random_exponential()(3) <= 8\n"
)
README = ("# backoff\n\nRetry with `wait_random_exponential`: full jitter, an exponentially widening random "
          "wait between attempts.\n")
NEW = (
    "import random\nimport warnings\n\n\n"
    "class wait_full_jitter:\n"
    '    """Random wait with exponentially widening window: full jitter backoff between attempts."""\n\n'
    "    def __call__(self, attempt):\n"
    "        return random.uniform(0, 2 ** attempt)\n\n\n"
    "class wait_random_exponential(wait_full_jitter):\n"
    '    """Deprecated: the old name of wait_full_jitter."""\n\n'
    "    def __init__(self):\n"
    "        warnings.warn('wait_random_exponential is deprecated, use wait_full_jitter', DeprecationWarning)\n"
)
NEW_TEST = (
    "from backoff.wait import wait_full_jitter\n\n\n"
    "def test_wait_full_jitter():\n"
    "    assert 0 <= wait_full_jitter()(3) <= 8\n"
)
TITLE = "Rename wait_random_exponential to wait_full_jitter"


def _run(root, files):
    write_files(root, {"README.md": README, "backoff/__init__.py": "", **files})
    write_plan(root, [node("T-1", TITLE, release="R1")])
    commit_all(root)
    return reconcile(root, "--node", "T-1", "--explain")["T-1"]


def test_the_old_name_still_in_the_code_is_no_evidence_of_a_rename(tmp_path):
    got = _run(tmp_path, {"backoff/wait.py": OLD, "tests/test_wait.py": OLD_TEST})
    assert got["verdict"] not in ("shipped", "likely"), got["explain"]["rules"]
    assert any("'wait_random_exponential' is still in the code (backoff/wait.py:4)" in m for m in got["missing"]), \
        got["missing"]
    assert "rename/replace: not happened" in got["explain"]["rules"]


def test_a_rename_ships_when_the_new_name_is_there_and_the_old_one_deprecated_or_gone(tmp_path):
    deprecated = _run(tmp_path / "deprecated", {"backoff/wait.py": NEW, "tests/test_wait.py": NEW_TEST})
    assert deprecated["verdict"] == "likely", deprecated["explain"]["rules"]
    first = deprecated["evidence"][0]
    assert (first["name"], first["path"], first["line"]) == ("wait_full_jitter", "backoff/wait.py", 5), first
    assert any(e["path"] == "backoff/wait.py" and e["line"] > 5 for e in deprecated["evidence"]), \
        deprecated["evidence"]  # where the old name is marked deprecated
    gone = _run(tmp_path / "gone", {"backoff/wait.py": NEW.split("\n\n\nclass wait_random_exponential")[0] + "\n",
                                    "tests/test_wait.py": NEW_TEST})
    assert gone["verdict"] == "likely", gone["explain"]["rules"]
    assert gone["evidence"][0]["name"] == "wait_full_jitter"


def test_only_a_change_from_one_thing_to_another_is_a_transition():
    assert (parse("Rename wait_random_exponential to wait_full_jitter").old,
            parse("Rename wait_random_exponential to wait_full_jitter").new) == ("wait_random_exponential",
                                                                                   "wait_full_jitter")
    assert vars(parse("Replace the SQLite cache with Redis")) == {"old": "SQLite cache", "new": "Redis"}
    assert vars(parse("Migrate from moment to date-fns")) == {"old": "moment", "new": "date-fns"}
    assert vars(parse("Deprecate `fetch_all` in favour of `iter_pages`")) == {"old": "fetch_all", "new": "iter_pages"}
    for feature in ("Move the settings button to the header", "Import recipes from Paprika",
                    "Ping a check by a readable name instead of its UUID",
                    "Use uv instead of pip to create environments", "Convert markdown to HTML",
                    "Retries can be switched off with an environment variable"):
        assert parse(feature) is None, feature
