"""retrieve.py: a docs paragraph that says nearly all of a title, with code that names the
same in what it is called, shows a feature shipped; the paragraph alone, or with the words only loose
in a function body, does not. Small real repositories through the real CLI."""

from __future__ import annotations

from testkit import node, write_plan
from testkit.repos import commit_all, reconcile, write_files

README = "# newsletter\n\nEvery week the app sends a digest email to each subscriber.\n"
FILLER = "".join(f"def format_{w}(value):\n    return value\n\n\n" for w in (
    "title", "author", "date", "footer", "header", "link", "image", "quote", "table", "list", "code", "price"))


def _reconcile(root, code: dict[str, str]):
    write_files(root, {"README.md": README, "news/format.py": FILLER, **code})
    write_plan(root, [node("T-1", "Send a weekly digest email to subscribers", release="R1")])
    commit_all(root)
    return reconcile(root, "--node", "T-1", "--explain")["T-1"]


def test_docs_that_say_the_title_and_code_named_for_it_ship_with_the_code_first(tmp_path):
    got = _reconcile(tmp_path, {"news/digest.py": "def send_subscriber_digest(recipients):\n    return [r for r in recipients]\n"})
    assert got["verdict"] == "likely", got["explain"]["rules"]
    assert (got["evidence"][0]["path"], got["evidence"][0]["line"]) == ("news/digest.py", 1)
    assert any(e["path"] == "README.md" and e["line"] == 3 for e in got["evidence"])
    assert any(r.startswith("sources: docs README.md:3") for r in got["explain"]["rules"]), got["explain"]["rules"]


def test_docs_alone_or_words_loose_in_a_body_stay_partial(tmp_path):
    alone = _reconcile(tmp_path / "alone", {})
    loose = _reconcile(tmp_path / "loose", {"news/jobs.py": (
        "def nightly(recipients):\n"
        "    digest = build(recipients)\n"
        "    send(digest, weekly=True, email=True)\n")})
    assert alone["verdict"] == "partial", alone["explain"]["rules"]
    assert loose["verdict"] != "shipped" and loose.get("lead") != "rule", loose["explain"]["rules"]
