"""A cloned repository's own `.gitattributes` sends files that are no node files to Leafwise's merge driver
(`* merge=leafwise`): the driver merges them as git's own driver would (`git merge-file`), and where git
cannot merge a file as text (a binary file) the file stays ours, byte for byte, as git's driver leaves it;
no markers are written into it. Through the real `leafwise` console script git runs as the driver, on a
real `git clone`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
       "LEAFWISE_AGENT": "", "GIT_CONFIG_NOSYSTEM": "1"}


def run(cwd: Path, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, **ENV, "HOME": str(cwd)}
    done = subprocess.run(list(argv), cwd=cwd, capture_output=True, env=env)
    if check:
        assert done.returncode == 0, f"{argv}: {done.stdout!r}{done.stderr!r}"
    return done


def test_a_binary_file_sent_to_the_driver_stays_ours_byte_for_byte(tmp_path: Path):
    leafwise = str(Path(sys.executable).parent / "leafwise")
    origin = tmp_path / "origin"
    origin.mkdir()
    run(origin, "git", "init", "-q", "-b", "main")
    run(origin, leafwise, "init", "--prefix", "P1")
    (origin / ".gitattributes").write_text("* merge=leafwise\n")
    (origin / "logo.bin").write_bytes(b"\0\1\2base\n")
    (origin / "notes.txt").write_text("a\nb\nc\nd\ne\n")
    run(origin, "git", "add", "-A")
    run(origin, "git", "commit", "-qm", "hostile attributes")
    clone = tmp_path / "clone"
    run(tmp_path, "git", "clone", "-q", str(origin), str(clone))
    run(clone, leafwise, "merge-driver", "--install")
    run(clone, "git", "checkout", "-qb", "other")
    (clone / "logo.bin").write_bytes(b"\0\1\2theirs\n")
    (clone / "notes.txt").write_text("a\nB\nc\nd\ne\n")
    run(clone, "git", "commit", "-qam", "theirs")
    run(clone, "git", "checkout", "-q", "main")
    (clone / "logo.bin").write_bytes(b"\0\1\2ours\n")
    (clone / "notes.txt").write_text("a\nb\nc\nd\nE\n")
    run(clone, "git", "commit", "-qam", "ours")
    merged = run(clone, "git", "merge", "other", check=False)
    assert merged.returncode == 1, merged.stdout + merged.stderr
    assert (clone / "logo.bin").read_bytes() == b"\0\1\2ours\n"  # markers were written into it before
    assert (clone / "notes.txt").read_text() == "a\nB\nc\nd\nE\n"  # a text file merges cleanly, as git merges it
    unmerged = run(clone, "git", "ls-files", "-u").stdout.decode()
    assert "logo.bin" in unmerged and "notes.txt" not in unmerged
    assert b"it is left as ours, unmerged" in merged.stdout + merged.stderr
