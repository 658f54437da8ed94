"""A title word no code names is not the crux the search must find: the rarest word the code does name is.
Before, "Retry depending on the value the function returned" came back `none` ("nothing in the code names
'depending'") on a library whose `retry_if_result` does it (tenacity on the development half; 11 of its 58
misses were such), and a weak partial of the entry-point search hid the sources search's lead. Small real
repositories through the real CLI."""

from __future__ import annotations

from testkit import node, write_plan
from testkit.repos import FILLER, commit_all, reconcile, write_files

RETRY = {
    "retrykit/util.py": FILLER,
    "retrykit/retry.py": (
        "class retry_if_result:\n"
        '    """Retry the call when the value the function returned matches a predicate."""\n\n'
        "    def __init__(self, predicate):\n"
        "        self.predicate = predicate\n\n"
        "    def __call__(self, outcome):\n"
        "        return self.predicate(outcome.result())\n\n\n"
        "class retry_if_exception:\n"
        '    """Retry the call when the function raised an exception matching a predicate."""\n\n'
        "    def __init__(self, predicate):\n"
        "        self.predicate = predicate\n"),
    "tests/test_retry.py": ("def test_retry_if_result_retries_on_returned_value():\n"
                            "    assert True\n"),
    "README.md": "# retrykit\n\nRetry a function until it succeeds.\n",
}


def _verdict(root, files: dict[str, str], title: str) -> dict:
    write_files(root, files)
    write_plan(root, [node("T-1", title, release="R1")])
    commit_all(root)
    return reconcile(root, "--node", "T-1")["T-1"]


def test_a_word_no_code_names_does_not_make_the_title_none(tmp_path):
    got = _verdict(tmp_path / "retry", RETRY, "Retry depending on the value the function returned")
    assert got["verdict"] == "likely", got
    assert "retrykit/retry.py" in {e["path"] for e in got["evidence"]}, got["evidence"]
    assert any("depending" in m for m in got["missing"]), got["missing"]  # still said: the code never names it


def test_a_title_whose_words_no_code_names_is_still_none(tmp_path):
    got = _verdict(tmp_path / "none", RETRY, "Encrypted payloads with rotating ciphers")
    assert got["verdict"] == "none", got


# shiori's "Search bookmarks by keyword" (fresh5, a development set since session 15), in small: the crux is a
# word the code names ("search"), the entry-point search's partial is led by an option naming that one word,
# and the sources search finds the flag whose help text says the whole title.
BOOKMARKS = {
    "cmd/print.go": ('package cmd\n\nimport "github.com/spf13/cobra"\n\nfunc printCmd() *cobra.Command {\n'
                     '\tcmd := &cobra.Command{Use: "print", Short: "Print the saved links"}\n'
                     '\tcmd.Flags().StringP("search", "s", "", "Search bookmark with specified keyword")\n'
                     '\treturn cmd\n}\n'),
    "model/bookmark.go": "package model\n\n// Bookmark is one saved link.\ntype Bookmark struct {\n\tID  int\n\tURL string\n}\n",
    **{f"model/bookmark_{verb}.go": f"package model\n\nfunc {verb}Bookmark(b Bookmark) Bookmark {{\n\treturn b\n}}\n"
       for verb in ("save", "delete", "update", "archive", "export", "share", "pin", "tag")},
    "bm/util.py": FILLER,
    "bm/tags.py": "def search(tags):\n    return tags\n",
    "webapp/src/client/apis/TagsApi.ts": "export interface TagsGetRequest {\n  withCount?: boolean;\n  search?: string;\n}\n",
    "internal/view/assets/js/page/home.js": "export function searchBookmarks(query) {\n  return query\n}\n",
    "web/src/App.tsx": "export function App() {\n  return <main>Saved links</main>\n}\n",
    "README.md": "# bm\n\nA bookmarks manager.\n",
}


def test_a_partial_on_one_word_gives_way_to_the_sources_lead(tmp_path):
    got = _verdict(tmp_path / "bookmarks", BOOKMARKS, "Search bookmarks by keyword")
    assert got["verdict"] == "likely", got
    assert got["evidence"][0]["path"] == "cmd/print.go", got["evidence"]
