"""A hint's value is never cut (`commands/text.py` `quote`): the line an agent runs is the value.

Found in session 17's attack (h22c): `quote` cut every hint value at 200 characters with `…`. A node
whose `docs:` list is longer than that with one dangling entry got `Fix: leafwise edit T-1 --set
'docs=[a, b, …, docs/caf…'`: run as given it stored a list missing its tail and holding a `…` entry
that names no file (the next validate asks again); a plan given with a `--root` over 200 characters got
hints whose `--root` names a folder that does not exist; doctor's `rm 'name…'` named no file. Generated:
lists of doc paths of many lengths, each run through the real CLI's validate, its `Fix:` run as given.
"""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from leafwise.commands.text import QUOTE_LIMIT, clean, quote
from testkit import node_data, run_cli, run_cli_in_process, write_plan

NAME = st.text(st.sampled_from("abcdefghij-_é0123456789"), min_size=1, max_size=40)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(st.characters(blacklist_categories=("Cs",)), max_size=300),
                 st.text(st.characters(blacklist_categories=("Cs",)), min_size=190, max_size=QUOTE_LIMIT + 50)))
def test_a_quoted_value_splits_back_to_the_whole_shown_value(text):
    shown = clean(text, None)
    if not shown:
        return
    words = shlex.split(quote(text))
    assert words == ([shown] if len(shown) <= QUOTE_LIMIT else [f"<the value of {len(shown):,} characters>"])


@settings(max_examples=12, deadline=None)
@given(st.lists(NAME, min_size=4, max_size=40, unique=True), st.integers(0, 1_000))
def test_validates_fix_for_a_dangling_doc_keeps_every_other_doc(tmp_path_factory, names, at):
    root = tmp_path_factory.mktemp("docs")
    docs = [f"docs/{n}.md" for n in names]
    gone = docs[at % len(docs)]
    write_plan(root, [{"id": "T-1", "title": "Task", "status": "draft", "release": "R1", "docs": docs}])
    for rel in docs:
        if rel != gone:
            (root / ".leafwise" / rel).write_text("# doc\n")
    res = run_cli_in_process("validate", cwd=root)
    fixes = [line.strip()[len("to fix: "):] for line in res.stdout.splitlines() if line.strip().startswith("to fix:")]
    assert len(fixes) == 1, res.stdout
    words = shlex.split(fixes[0])
    assert words[0] == "leafwise"
    ran = run_cli_in_process(*words[1:], cwd=root)
    assert ran.code == 0, ran.stdout + ran.stderr
    assert node_data(root, "T-1")["docs"] == [d for d in docs if d != gone]
    assert run_cli_in_process("validate", cwd=root).code == 0


def test_a_long_root_is_carried_whole_in_every_hint(tmp_path):
    root = tmp_path
    for _ in range(6):
        root = root / ("deep-folder-" * 4)
    write_plan(root, [{"id": "T-1", "title": "Task", "status": "draft", "release": "R1"}])
    assert len(str(root)) > 250
    res = run_cli("--root", str(root), "next", cwd=tmp_path)
    hint = next(line for line in res.stdout.splitlines() if line.startswith("Next:"))
    words = shlex.split(hint[len("Next:"):])
    assert words[words.index("--root") + 1] == str(root), hint
    assert run_cli(*words[1:], cwd=tmp_path).code == 0
