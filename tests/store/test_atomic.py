"""Files are replaced at once, in one home (`store/atomic.py`)."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from leafwise.store import atomic
from testkit import walked

ROOT = Path(__file__).resolve().parents[2]


def test_replace_leaves_the_new_file_and_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "f.json"
    atomic.replace(target, b"one\n")
    atomic.replace(target, b"two\n", durable=False)
    assert target.read_bytes() == b"two\n" and os.listdir(target.parent) == ["f.json"]
    assert target.stat().st_mode & 0o777 == 0o666 & ~atomic.umask()
    atomic.replace(target, b"secret\n", mode=0o600)
    assert target.stat().st_mode & 0o777 == 0o600


def test_create_never_overwrites(tmp_path: Path) -> None:
    target = tmp_path / "T-1.yaml"
    atomic.create(target, b"first\n")
    with pytest.raises(atomic.Exists):
        atomic.create(target, b"second\n")
    assert target.read_bytes() == b"first\n" and os.listdir(tmp_path) == ["T-1.yaml"]


def test_a_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "f"
    atomic.replace(target, b"old")

    def broken(*_args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        atomic.replace(target, b"new")
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["f"]


def test_replace_never_writes_through_a_link_at_the_temp_name(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_bytes(b"untouched")
    target = tmp_path / "plan" / "f"
    target.parent.mkdir()
    os.symlink(outside, target)
    atomic.replace(target, b"new")  # the link itself is replaced, never followed
    assert outside.read_bytes() == b"untouched" and not target.is_symlink() and target.read_bytes() == b"new"


REPLACING = {("os", "replace"), ("os", "rename"), ("tempfile", "mkstemp"), ("tempfile", "NamedTemporaryFile")}


def test_no_other_store_module_replaces_a_file_itself() -> None:
    found = []
    for path in sorted((ROOT / "store").rglob("*.py")):
        if path.name == "atomic.py":
            continue
        for item in walked(path.read_text(encoding="utf-8")):
            if (isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name)
                    and (item.value.id, item.attr) in REPLACING):
                found.append(f"{path.relative_to(ROOT)}:{item.lineno}: {item.value.id}.{item.attr}")
    assert found == []
