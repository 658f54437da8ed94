"""The journal lines the forecast needs, read once and then only as the file grows.

The forecast (`commands.core.forecast`) looks only at lines that mention "done"
(`DONE_MARK`); on a 50,000-line journal reading and splitting the whole file on
every redraw of the progress view cost more than the forecast itself. This keeps
those lines and the offset read up to; a journal that shrank or was replaced (a
git checkout, a trim) is read again from the start. Plain Python, no Textual.
"""

from __future__ import annotations

import os
from pathlib import Path

from leafwise.commands.core.forecast import DONE_MARK


class DoneLines:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines: list[bytes] = []
        self._offset = 0
        self._inode: int | None = None
        self._head = b""  # the file's first bytes when last read: a rewrite with the same size shows here

    def read(self) -> list[bytes]:
        """The journal's complete lines that mention "done", up to its end now."""
        try:
            with open(self.path, "rb") as fh:
                info = os.fstat(fh.fileno())
                head = fh.read(64)
                if info.st_ino != self._inode or info.st_size < self._offset or head != self._head[:len(head)] \
                        or len(head) < len(self._head):
                    self.lines, self._offset, self._inode, self._head = [], 0, info.st_ino, head
                fh.seek(self._offset)
                chunk = fh.read()
        except FileNotFoundError:
            self.lines, self._offset, self._inode, self._head = [], 0, None, b""
            return self.lines
        end = chunk.rfind(b"\n") + 1  # a torn last line waits for its end
        if end:
            self.lines.extend(line for line in chunk[:end].split(b"\n") if DONE_MARK in line)
            self._offset += end
        return self.lines
