"""Per-user canvas settings (the theme, for now) in a small JSON file.

The file lives at `$XDG_CONFIG_HOME/leafwise/settings.json` (or
`~/.config/leafwise/settings.json`); `LEAFWISE_SETTINGS` names another file,
and the app takes an explicit path so tests never touch a real home folder.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

SETTINGS_ENV = "LEAFWISE_SETTINGS"


def default_path() -> Path:
    explicit = os.environ.get(SETTINGS_ENV)
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "leafwise" / "settings.json"


@dataclass
class Settings:
    theme: str | None = None
    hide_closed: bool = False
    attention: bool = True  # bell and desktop notification when an agent blocks or asks

    @classmethod
    def read(cls, path: Path) -> Settings:
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            return cls()
        if not isinstance(data, dict):
            return cls()
        theme = data.get("theme")
        return cls(theme=theme if isinstance(theme, str) else None,
                   hide_closed=bool(data.get("hide_closed", False)),
                   attention=bool(data.get("attention", True)))

    def write(self, path: Path) -> bool:
        """Save atomically; a read-only home only costs the memory of the choice."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".settings.", suffix=".tmp")
            with os.fdopen(fd, "w") as fh:
                json.dump(asdict(self), fh, indent=1)
            os.replace(tmp, path)
            return True
        except OSError:
            return False
