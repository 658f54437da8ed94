#!/usr/bin/env python3
"""Extract each labelled repository at its pinned commit (stdlib only).

    python3 materialise.py [--mirror-root /work/.mirror] [--target bench/.reconcile_repos]
                           [--force] [labels.yaml ...]

With no yaml files given, every <name>.yaml beside this script (except
SPLIT.yaml) is used. For each file, the `repo: owner/name` and `commit: <sha>`
lines are read and the mirror `<mirror-root>/<owner>+<name>/repo` (a bare git
dir made by the search tool's `fetch` verb) is archived at that commit into
`<target>/<name>` (name = the yaml file's stem). A target folder that already
exists and is not empty is skipped (use --force to re-extract).

Snapshots lack files of 4 MiB and more (and Git LFS content), so `git archive`
can fail on a missing blob; then the tree is written file by file and the
missing blobs are listed and skipped.
"""

from __future__ import annotations

import argparse
import io
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def read_pin(path: Path) -> tuple[str, str]:
    repo = commit = None
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^repo:\s*['\"]?([\w.-]+/[\w.-]+)['\"]?\s*(#.*)?$", line)
        if m:
            repo = m.group(1)
        m = re.match(r"^commit:\s*['\"]?([0-9a-fA-F]{40})['\"]?\s*(#.*)?$", line)
        if m:
            commit = m.group(1)
    if not repo or not commit:
        raise ValueError(f"{path}: needs top-level 'repo: owner/name' and 'commit: <40 hex>' lines")
    return repo, commit


def git(git_dir: Path, *args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, **kw)


def extract_file_by_file(git_dir: Path, commit: str, dest: Path) -> list[str]:
    """Fallback when `git archive` fails: write every blob that exists, return the missing paths."""
    listing = git(git_dir, "ls-tree", "-r", "-z", "--full-tree", commit, check=True).stdout
    missing: list[str] = []
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, raw_path = entry.split(b"\t", 1)
        mode, kind, sha = meta.decode().split()
        rel = raw_path.decode("utf-8", "surrogateescape")
        if kind != "blob":  # submodules (commit entries) are skipped, as git archive does
            continue
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        blob = git(git_dir, "cat-file", "blob", sha)
        if blob.returncode != 0:
            missing.append(rel)
            continue
        if mode == "120000":
            try:
                out.symlink_to(blob.stdout.decode("utf-8", "surrogateescape"))
            except OSError:
                out.write_bytes(blob.stdout)
            continue
        out.write_bytes(blob.stdout)
        if mode == "100755":
            out.chmod(0o755)
    return missing


def materialise(yaml_path: Path, mirror_root: Path, target_root: Path, force: bool) -> bool:
    name = yaml_path.stem
    repo, commit = read_pin(yaml_path)
    git_dir = mirror_root / repo.replace("/", "+") / "repo"
    dest = target_root / name
    if dest.is_dir() and any(dest.iterdir()) and not force:
        print(f"skip  {name}: {dest} already exists")
        return True
    if not (git_dir / "HEAD").exists():
        print(f"MISSING {name}: no mirror at {git_dir}.\n"
              f"        Bring it here with the search tool: fetch(source=\"github:{repo}\") "
              f"then run this script again.")
        return False
    if git(git_dir, "cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
        print(f"MISSING {name}: mirror {git_dir} has no commit {commit}.\n"
              f"        Call fetch(source=\"github:{repo}\") again; if the newest snapshot moved on, "
              f"the pinned commit may no longer be in it.")
        return False
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    archive = git(git_dir, "archive", "--format=tar", commit)
    if archive.returncode == 0:
        try:
            with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
                if hasattr(tarfile, "data_filter"):  # Python 3.12+ (and security backports)
                    tar.extractall(dest, filter="data")
                else:
                    tar.extractall(dest)
            print(f"ok    {name}: {repo}@{commit[:12]} -> {dest}")
            return True
        except (tarfile.TarError, OSError) as exc:  # e.g. a member refused by the 'data' filter
            print(f"note  {name}: tar extraction failed ({exc}); writing files one by one")
    shutil.rmtree(dest)
    dest.mkdir(parents=True)
    missing = extract_file_by_file(git_dir, commit, dest)
    print(f"ok    {name}: {repo}@{commit[:12]} -> {dest} (file by file; {len(missing)} blob(s) absent "
          f"from the snapshot: {', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''})")
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("yaml", nargs="*", type=Path, help="label files (default: every *.yaml beside this script)")
    ap.add_argument("--mirror-root", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--target", type=Path, default=Path("bench/.reconcile_repos"))
    ap.add_argument("--force", action="store_true", help="re-extract even if the target folder exists")
    args = ap.parse_args(argv)
    files = args.yaml or sorted(p for p in HERE.glob("*.yaml") if p.name != "SPLIT.yaml")
    if not files:
        print("no label files found", file=sys.stderr)
        return 2
    ok = True
    for path in files:
        try:
            ok &= materialise(path, args.mirror_root, args.target, args.force)
        except (ValueError, subprocess.CalledProcessError) as exc:
            print(f"ERROR {path.name}: {exc}")
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
