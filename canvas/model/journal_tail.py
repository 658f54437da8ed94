"""The journal lines the forecast needs, read once and then only as the file grows.

The forecast (`commands.core.forecast`) looks only at lines that mention "done"
(`DONE_MARK`); on a 50,000-line journal reading and splitting the whole file on
every redraw of the progress view cost more than the forecast itself. This keeps
those lines and the offset read up to; a journal that shrank or was replaced (a
git checkout, a trim) is read again from the start. Plain Python, no Textual.

The journal is untrusted (anyone can edit it): it is opened by `store/reader.py`
(a regular file, no link followed), each read takes at most the reader's journal
cap (the rest waits for the next read), and each kept line is a typed
`commands.events.Event` (read by `reader.load_json` within a journal line's caps):
a line that is not a JSON object, or is over its cap, is not kept.
"""

from __future__ import annotations

import os
from pathlib import Path

from leafwise.commands.core.forecast import DONE_MARK
from leafwise.commands.events import Event
from leafwise.store import reader

HEAD = 64  # the file's first bytes, kept: a rewrite to the same size or larger shows there


class DoneLines:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines: list[bytes] = []  # the kept lines as written, for the forecast
        self.events: list[Event] = []  # the same lines, typed
        self._offset = 0
        self._inode: int | None = None
        self._head = b""

    def read(self) -> list[bytes]:
        """The journal's complete lines that mention "done" and hold an event, up to its end now (or
        up to the reader's journal cap past the last read)."""
        try:
            chunk = self._grown()
        except (FileNotFoundError, reader.Refused):
            self._reset(None, b"")
            return self.lines
        end = chunk.rfind(b"\n") + 1  # a torn last line waits for its end
        if not end and len(chunk) >= reader.JOURNAL.cap:  # one line longer than the cap: no event, skipped
            end = len(chunk)
        if end:
            for line in chunk[:end].split(b"\n"):
                event = _event(line) if DONE_MARK in line else None
                if event is not None:
                    self.lines.append(line)
                    self.events.append(event)
            self._offset += end
        return self.lines

    def _grown(self) -> bytes:
        """The bytes after the offset (from the start when the file was replaced or shrank)."""
        fd = reader.open_fd(self.path)
        try:
            info = os.fstat(fd)
            head = os.pread(fd, HEAD, 0)
            if info.st_ino != self._inode or info.st_size < self._offset or head[:len(self._head)] != self._head:
                self._reset(info.st_ino, head)
            self._head = head if len(head) > len(self._head) else self._head  # a short file's head grows
            os.lseek(fd, self._offset, os.SEEK_SET)
        except BaseException:
            os.close(fd)
            raise
        return reader.read_fd(fd, reader.JOURNAL.cap - 1)  # read_fd closes it; one past the cap is not read

    def _reset(self, inode: int | None, head: bytes) -> None:
        self.lines, self.events, self._offset, self._inode, self._head = [], [], 0, inode, head


def _event(line: bytes) -> Event | None:
    try:
        return Event.read(reader.load_json(line, reader.EVENT))
    except reader.Refused:
        return None
