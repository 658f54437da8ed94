"""A clone's `.leafwise/.gitattributes` over the reader's cap or not UTF-8: `merge-driver --install`, `team
init` and `team join` answered "Error: the settings is over the limit of 4,194,304 bytes" with `Fix: leafwise
merge-driver --help` (or a bare "not UTF-8 text"), naming no file. Now the file is named, with its step,
and the step works."""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit import run_cli
from testkit.gitserver import git

BODIES = {"oversized": b"a" * (4 * 1024 * 1024 + 10), "utf-16": b"\xff\xfe" + "nodes/*.yaml merge=x".encode("utf-16-le"),
          "latin-1": "caf\xe9\n".encode("latin-1")}


@pytest.mark.parametrize("kind", sorted(BODIES))
def test_an_unreadable_attributes_file_is_named_with_a_step_that_works(tmp_path, kind):
    work = tmp_path / "plan"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    assert run_cli("init", "--name", "P", "--prefix", "P", cwd=work).code == 0
    attributes = work / ".leafwise" / ".gitattributes"
    attributes.write_bytes(BODIES[kind])
    done = run_cli("merge-driver", "--install", cwd=work, timeout=60)
    words = done.stdout + done.stderr
    assert done.code != 0 and ".leafwise/.gitattributes cannot be read" in words, words
    assert "Fix: rm .leafwise/.gitattributes" in words and "internal_error" not in words, words
    attributes.unlink()
    again = run_cli("merge-driver", "--install", cwd=work, timeout=60)
    assert again.code == 0, again.stdout + again.stderr
    assert "nodes/*.yaml merge=leafwise" in attributes.read_text()
