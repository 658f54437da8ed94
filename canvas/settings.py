"""Per-user canvas settings (the theme, hidden closed work, the attention bell) in a small JSON file.

The file is `settings.json` in the person's config folder (`store.config_dirs.config_dir()`:
`$LEAFWISE_CONFIG_DIR`, else where the platform keeps it, `~/.config/leafwise` on Linux);
`LEAFWISE_SETTINGS` names another file, and the app takes an explicit path so tests never touch a
real home folder. It is read by `store/reader.py` (a regular file, no link, within the settings
cap and depth); one that cannot be read gives the defaults and says why in `Settings.problem`,
naming the file.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from leafwise.store import atomic, reader
from leafwise.store.config_dirs import config_dir

SETTINGS_ENV = "LEAFWISE_SETTINGS"
FILE_NAME = "settings.json"


def default_path() -> Path:
    explicit = os.environ.get(SETTINGS_ENV)
    if explicit:
        return Path(explicit).expanduser()
    return config_dir() / FILE_NAME


@dataclass
class Settings:
    theme: str | None = None
    hide_closed: bool = False
    attention: bool = True  # bell and desktop notification when an agent blocks or asks
    problem: str | None = field(default=None, compare=False)  # why the file gave the defaults (not saved)

    @classmethod
    def read(cls, path: Path) -> Settings:
        try:
            data = reader.read_json(path, reader.SETTINGS)
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError) as exc:  # reader.Refused too: a link, a FIFO, too large, not JSON
            return cls(problem=f"{path}: {exc} (the defaults are used)")
        if not isinstance(data, dict):
            return cls(problem=f"{path}: not a JSON object (the defaults are used)")
        theme = data.get("theme")
        return cls(theme=theme if isinstance(theme, str) else None,
                   hide_closed=bool(data.get("hide_closed", False)),
                   attention=bool(data.get("attention", True)))

    def write(self, path: Path) -> bool:
        """Save atomically; a read-only home only costs the memory of the choice."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            saved = {k: v for k, v in asdict(self).items() if k != "problem"}
            atomic.replace(path, json.dumps(saved, indent=1).encode())
            return True
        except OSError:
            return False
