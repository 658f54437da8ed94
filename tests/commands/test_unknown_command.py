"""A mistyped command word: the suggestion never turns a question into a change of the plan."""

from __future__ import annotations

import pytest
from testkit import run_cli, write_plan


@pytest.mark.parametrize(("word", "meant"), [("status", "context"), ("stat", "context"), ("strat", "start"),
                                             ("complet", "complete"), ("lst", "list"), ("tre", "tree")])
def test_a_mistyped_word_suggests_the_command_it_means(tmp_path, word, meant):
    write_plan(tmp_path, [])
    answer = run_cli(word, cwd=tmp_path)
    assert answer.code == 2
    assert answer.stderr.splitlines()[0] == f"Error: no command {word!r}; did you mean {meant}?", answer.stderr


def test_no_mutating_command_is_suggested_for_a_word_that_only_looks_like_it(tmp_path):
    from leafwise.commands.registry import load_all
    from leafwise.commands.surfaces.cli import closest_command

    registry = load_all()
    names = sorted({name.split()[0] for name in registry})
    for word in ("state", "stats", "compute", "blocker", "editor", "adder", "undo", "stop", "commit"):
        close = closest_command(word, names)
        assert close is None or not registry[close].mutating, (word, close)
    assert closest_command("compelte", names) == "complete"
