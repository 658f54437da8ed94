"""The CLI's hot path stays light: store/ and commands/ never pull in the heavy libraries."""

from __future__ import annotations

import subprocess
import sys

HEAVY = {"textual", "networkx", "mcp", "rich", "ruamel", "rapidfuzz", "jsonschema", "watchfiles"}


def loaded_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_store_and_commands_import_no_heavy_library() -> None:
    assert loaded_after("import leafwise.store, leafwise.commands") & HEAVY == set()


def test_the_whole_registry_imports_no_heavy_library() -> None:
    assert loaded_after("from leafwise.commands.registry import load_all; load_all()") & HEAVY == set()


def test_building_the_cli_imports_no_heavy_library() -> None:
    assert loaded_after("from leafwise.commands.cli import build; build()") & HEAVY == set()
