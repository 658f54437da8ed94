"""The canvas's settings file lives in the person's config folder (`store.config_dirs`), written atomically."""

from __future__ import annotations

import json

from leafwise.canvas.app import make_canvas
from leafwise.canvas.settings import Settings, default_path
from leafwise.store.config_dirs import config_dir
from testkit import node, write_plan


def test_the_settings_file_is_in_the_config_folder_the_store_names(own_config_dir, monkeypatch, tmp_path):
    monkeypatch.delenv("LEAFWISE_SETTINGS", raising=False)
    assert default_path() == config_dir() / "settings.json" == own_config_dir / "settings.json"
    root = write_plan(tmp_path / "repo", [node("T-1", "Epic", release="R1")])
    app = make_canvas(root, watch=False)  # no explicit path: the person's own folder
    assert app.settings_path == own_config_dir / "settings.json"
    app.settings.theme = "leafwise-light"
    app.save_settings()
    assert json.loads((own_config_dir / "settings.json").read_text())["theme"] == "leafwise-light"
    assert Settings.read(own_config_dir / "settings.json").theme == "leafwise-light"
    assert [p.name for p in own_config_dir.iterdir()] == ["settings.json"]  # no temporary file left behind


def test_leafwise_settings_names_another_file(monkeypatch, tmp_path):
    monkeypatch.setenv("LEAFWISE_SETTINGS", str(tmp_path / "elsewhere.json"))
    assert default_path() == tmp_path / "elsewhere.json"
