"""The CLI's hot path stays light: store/ and commands/ never pull in the heavy libraries."""

from __future__ import annotations

import subprocess
import sys

HEAVY = {"textual", "networkx", "mcp", "rich", "ruamel", "jsonschema", "watchfiles"}


def loaded_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_store_and_commands_import_no_heavy_library() -> None:
    assert loaded_after("import leafwise.store, leafwise.commands") & HEAVY == set()


def test_the_whole_registry_imports_no_heavy_library() -> None:
    assert loaded_after("from leafwise.commands.registry import load_all; load_all()") & HEAVY == set()


def test_building_the_cli_imports_no_heavy_library() -> None:
    assert loaded_after("from leafwise.commands.surfaces.cli import build; build()") & HEAVY == set()


def test_a_warm_next_reads_only_the_cache(tmp_path) -> None:
    """With the cache valid, `next` parses no YAML at all: yaml is never imported."""
    from testkit import node, run_cli, write_plan

    write_plan(tmp_path, [node("T-1", "A", release="R1")])
    assert run_cli("next", cwd=tmp_path).code == 0  # builds the cache
    code = ("import sys, os; os.chdir(%r); from leafwise.commands.surfaces.cli import main\n"
            "try:\n    main(['next', '--json'])\nexcept SystemExit: pass\n"
            "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)" % str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(proc.stderr.split())
    assert '"marker": "next"' in proc.stdout
    assert loaded & (HEAVY | {"yaml", "filelock"}) == set()
