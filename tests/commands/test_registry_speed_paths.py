"""The registry's module table says where each command word lives, and `load_word` imports that module alone."""

from __future__ import annotations

import subprocess
import sys

import pytest

from leafwise.commands import registry


def test_every_declared_word_is_defined_in_its_module_and_no_other_word_exists() -> None:
    commands = registry.load_all()
    defined = {(spec.handler.__module__.rsplit(".", 1)[1], name.split()[0]) for name, spec in commands.items()}
    declared = {(module, word) for module, words in registry.MODULES.items() for word in words}
    assert defined == declared


def test_a_command_registered_outside_its_declared_module_is_refused() -> None:
    def handler(ctx):  # defined here, in a test module: no module of the table
        raise AssertionError("never run")

    with pytest.raises(ValueError, match="MODULES declares its word in agent_loop"):
        registry.command("start again", "a second home for start", mutating=False, tool=None)(handler)
    with pytest.raises(ValueError, match="no module"):
        registry.command("frobnicate", "a word no module declares", mutating=False, tool=None)(handler)
    assert "start again" not in registry.REGISTRY and "frobnicate" not in registry.REGISTRY


def test_a_loop_word_imports_its_handler_module_alone_and_an_unknown_word_loads_all() -> None:
    probe = ("import sys; from leafwise.commands.registry import load_word\n"
             "def seen(): return sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('leafwise.commands.handlers.'))\n"
             "for word in ('start', 'cycle', 'frobnicate'): print(sorted(load_word(word))[:1], seen())")
    lines = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.splitlines()
    assert lines[0] == "['start'] ['agent_loop']"
    assert lines[1].startswith("['cycle ") and lines[1].endswith(" ['agent_loop', 'cycles']")
    assert lines[2] == f"[] {sorted(registry.MODULES)}"
