"""What an agent quotes for `shipped` must be code, in the project's own file (h22g): a decoy `src/impоrt.rs`
(a Cyrillic о) holding the feature's line as a comment was accepted and completed the leaf, shown as
`src/impоrt.rs:1-1`, a twin of the real file's name. A path whose part mixes scripts where one letter passes
for another is refused (`verify_quotes._mixed_scripts`; generated over look-alike letters, with real non-Latin
names kept), and a quote taken only from comments or prose lines is no code (`text_line`). Real git, real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testkit.repos import LEAFWISE, plan_repo, run

LINE = "pub fn import_users_csv() { read_csv(users); }"
LOOK_ALIKES = {"cyrillic o": "imp\u043ert", "greek omicron": "imp\u03bfrt", "fullwidth o": "imp\uff4frt",
               "mathematical o": "imp\U0001d5c8rt", "armenian o": "imp\u0585rt",
               "zero width around a cyrillic o": "imp\u200b\u043e\u200brt",
               "fullwidth word": "\uff49\uff4d\uff50\uff4f\uff52\uff54", "cyrillic word that looks latin": "\u0430\u0440\u0440"}
OWN_NAMES = ["src/café_import.rs", "src/данные.rs", "src/日本語ファイル.rs", "src/импорт_данных.rs", "src/한국어.rs",
             "src/サーバー.rs", "src/µtils.rs", "src/naïve_crème.rs", "src/Ελληνικά.rs"]


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("looks") / "repo"
    plan_repo(root)
    for i in range(1, 24):
        run(root, LEAFWISE, "add", f"Import users from CSV, case {i}")
    (root / "src").mkdir()
    (root / "src" / "import.rs").write_text(f"// TODO: {LINE}\n")  # the real file: not done yet
    for word in LOOK_ALIKES.values():
        (root / "src" / f"{word}.rs").write_text(f"{LINE}\n")
    for name in OWN_NAMES:
        (root / name).write_text(f"{LINE}\n")
    (root / "src" / "notes.rs").write_text(f"// {LINE}\n/* {LINE} */\n# {LINE}\n")
    (root / "src" / "wordy.py").write_text("def pick(value, default):\n    return value if value is not None else default\n"
                                          "    raise ValueError(f'{value} must be a line number of the file')\n")
    run(root, "git", "add", "-A")
    run(root, "git", "commit", "-q", "-m", "code")
    return root


def verdict(repo: Path, node: str, kind: str, place: str, quote: str = LINE) -> dict:
    done = run(repo, LEAFWISE, "verify", node, "--verdict", kind, "--evidence", place, "--quote", quote,
               *(["--missing", "the rest"] if kind != "shipped" else []), "--agent", "mallory", "--json", code=None)
    return json.loads(done.stdout)


def test_a_look_alike_path_is_refused(repo: Path) -> None:
    for name, word in LOOK_ALIKES.items():
        answer = verdict(repo, "P1-1", "shipped", f"src/{word}.rs:1-1")
        assert answer["status"] == "error" and answer["error"]["code"] == "evidence_look_alike_path", (name, answer)
        assert word not in answer["error"]["message"]  # named by its code points, not drawn as a twin


def test_names_in_one_script_or_with_east_asian_letters_are_the_projects_own(repo: Path) -> None:
    for i, name in enumerate(OWN_NAMES, start=2):
        answer = verdict(repo, f"P1-{i}", "shipped", f"{name}:1-1")
        assert answer["status"] == "ok", (name, answer)


@pytest.mark.parametrize("line", [1, 2, 3], ids=["//", "/*", "#"])
def test_a_comment_is_no_code_for_shipped_but_may_back_a_partial(repo: Path, line: int) -> None:
    shipped = verdict(repo, f"P1-{11 + line}", "shipped", f"src/notes.rs:{line}-{line}")
    assert shipped["status"] == "error" and shipped["error"]["code"] == "evidence_not_code", shipped
    partial = verdict(repo, f"P1-{14 + line}", "partial", f"src/notes.rs:{line}-{line}")
    assert partial["status"] == "ok", partial


CODE_LINES = ["return value if value is not None else default", "#[derive(Debug, Clone)]", "#include <stdio.h>",
              "*ptr = value;", "SELECT name FROM users WHERE id = 1", "if user is not None and user in admins:",
              "for item in items if item is not None", "raise ValueError(f'{name} must be a line number')",
              "message = 'the value of this field must be set to a number'", "let mut configs = vec![];"]
TEXT_LINES = ["Note that \\flag{hidden} will include files and folders like \\fB.git\\fP", "# a comment",
              "regardless of \\flag{no-ignore-vcs}. To exclude such paths when using", "// TODO: not written yet",
              "Sets the width of the line numbers in every result,", "* Returns the value of the flag.",
              "affected by \\flag{hidden} and its related flags instead."]


def test_code_lines_with_many_words_are_code_and_sentences_are_not() -> None:
    from leafwise.commands.domain.verify_quotes import text_line

    assert [line for line in CODE_LINES if text_line(line)] == []
    assert [line for line in TEXT_LINES if not text_line(line)] == []


@pytest.mark.parametrize("line", [2, 3])
def test_an_honest_quote_of_a_wordy_code_line_is_code(repo: Path, line: int) -> None:
    quote = (repo / "src" / "wordy.py").read_text().splitlines()[line - 1].strip()
    answer = verdict(repo, f"P1-{18 + line}", "shipped", f"src/wordy.py:{line}-{line}", quote)
    assert answer["status"] == "ok", answer
