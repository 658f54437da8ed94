"""The person's folders have one home (`store/config_dirs.py`, platformdirs); trust keeps its approvals there."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from leafwise.store import config_dirs, trust
from testkit import source_files

ROOT = Path(__file__).resolve().parents[2]


def test_the_override_names_the_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("LEAFWISE_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setenv("LEAFWISE_CACHE_DIR", str(tmp_path / "cache"))
    assert config_dirs.config_dir() == tmp_path / "cfg" and config_dirs.cache_dir() == tmp_path / "cache"
    assert trust.store_path() == tmp_path / "cfg" / "trust.json"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG folders are Linux's")
def test_without_the_override_the_platform_decides(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("LEAFWISE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("LEAFWISE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    assert config_dirs.config_dir() == tmp_path / "xdg-config" / "leafwise"
    assert config_dirs.cache_dir() == tmp_path / "xdg-cache" / "leafwise"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert config_dirs.config_dir() == tmp_path / "home" / ".config" / "leafwise"


def test_an_approval_is_written_private_in_the_config_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("LEAFWISE_CONFIG_DIR", str(tmp_path / "cfg"))
    trust.allow(tmp_path / "plan", ["make check"])
    assert (tmp_path / "cfg" / "trust.json").stat().st_mode & 0o777 == 0o600
    assert trust.is_trusted(tmp_path / "plan", "make check")
    trust.allow(tmp_path, ["make check"])  # a plan whose tree holds the approvals file: it counts for nothing
    assert not trust.is_trusted(tmp_path, "make check") and trust.is_trusted(tmp_path / "plan", "make check")


def test_no_other_module_works_out_the_config_folder() -> None:
    found = []
    for folder in ("store", "commands"):
        for path in source_files(ROOT / folder):
            text = path.read_text(encoding="utf-8")
            if path.name != "config_dirs.py" and ("XDG_CONFIG_HOME" in text or '".config"' in text):
                found.append(str(path.relative_to(ROOT)))
    assert found == []
