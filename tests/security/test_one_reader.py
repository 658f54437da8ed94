"""One reader: no module in store/, commands/ or canvas/ reads file content except through
store/reader.py (lstat + O_NOFOLLOW + O_NONBLOCK, regular files only, a byte cap per kind, JSON and
YAML parsed with depth caps). The scan is of the code's syntax tree, so a new `open(` or
`.read_text(` anywhere fails here, naming the file and line.

Every read is switched. The one list left, NOT_FILE_CONTENT, names calls the scan sees that read no
file content (Leafwise's own output, a file opened to write), file by file with how many; it may only
shrink: an entry that no longer matches fails too, so it is removed. (A child process's `--json`
answer, which the demo agent parses, is not a file either, but it is parsed by `reader.load_json`
within the ANSWER kind's caps, so it needs no entry.)"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path
from testkit import source_files, walked

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("store", "commands", "canvas")
READER = "store/reader.py"

# Calls the scan sees that read no file content: what they parse is Leafwise's own output.
NOT_FILE_CONTENT: dict[tuple[str, str], int] = {
    ("commands/surfaces/tool_answers.py", "json.loads"): 1,  # json.loads(json.dumps(envelope)): its own answer
    ("canvas/demo/launch.py", "open"): 1,  # the demo's own log, opened for writing
}


def _call_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name) and func.id == "open":
        return "open"
    if isinstance(func, ast.Attribute):
        owner = func.value.id if isinstance(func.value, ast.Name) else None
        if owner == "reader":  # the gateway itself: reader.read_text(...)
            return None
        if func.attr in ("read_text", "read_bytes"):
            return f".{func.attr}"
        if (owner, func.attr) in (("os", "walk"), ("json", "loads"), ("json", "load"), ("io", "open"),
                                  ("gzip", "open"), ("codecs", "open")):
            return f"{owner}.{func.attr}"
        if func.attr == "open" and owner not in ("os", "webbrowser"):  # path.open(): a read or write
            return ".open"
        # a recursive walk that is not the reader's (an explicit stack, no link entered, a limit):
        # pathlib's rglob recurses in Python frames (a folder 1,100 deep raised RecursionError in
        # `context`) and has no limit; Path.walk and glob's `**` are the same walk
        if func.attr in ("rglob", "walk") and owner != "os":
            return f".{func.attr}"
        if func.attr in ("glob", "iglob") and (any(k.arg == "recursive" for k in call.keywords) or any(
                isinstance(a, ast.Constant) and isinstance(a.value, str) and "**" in a.value for a in call.args)):
            return f".{func.attr}(**)"
    return None


def offenders() -> dict[tuple[str, str], list[int]]:
    found: dict[tuple[str, str], list[int]] = {}
    for top in SCANNED:
        for path in source_files(ROOT / top):
            rel = path.relative_to(ROOT).as_posix()
            if rel == READER:
                continue
            for node in walked(path.read_text()):
                if isinstance(node, ast.Call) and (name := _call_name(node)):
                    found.setdefault((rel, name), []).append(node.lineno)
    return found


def test_every_read_of_file_content_goes_through_the_reader():
    found = offenders()
    allowed = Counter(NOT_FILE_CONTENT)
    new = {k: v for k, v in found.items() if len(v) > allowed.get(k, 0)}
    assert not new, "reads outside store/reader.py (use reader.read_bytes / read_text / read_json / " \
                    "read_yaml / walk): " + "; ".join(f"{f}:{lines} {call}(" for (f, call), lines in new.items())


def test_the_allow_list_only_shrinks():
    found = offenders()
    stale = {k: n for k, n in Counter(NOT_FILE_CONTENT).items()
             if len(found.get(k, [])) < n}
    assert not stale, f"switched to the reader: lower or remove these NOT_FILE_CONTENT entries: {stale}"


def test_the_store_and_reconcile_have_no_exception():
    owned = [k for k in NOT_FILE_CONTENT if k[0].startswith(("store/", "commands/reconcile/"))]
    assert not owned


def test_the_scan_sees_each_kind_of_read():
    code = ("open('x')\nPath('x').read_text()\np.read_bytes()\nos.walk('.')\njson.loads(b)\n"
            "json.load(fh)\np.open('rb')\ngzip.open('x')\nfolder.rglob('*')\np.walk()\n"
            "glob.glob('a/**/*.md', recursive=True)\nfolder.glob('**/*.yaml')\n")
    names = [_call_name(n) for n in walked(code) if isinstance(n, ast.Call)]
    assert {"open", ".read_text", ".read_bytes", "os.walk", "json.loads", "json.load", ".open",
            "gzip.open", ".rglob", ".walk", ".glob(**)"} <= set(names)
    plain = "reader.walk(root)\nfolder.glob('*.yaml')\n"
    assert [_call_name(n) for n in walked(plain) if isinstance(n, ast.Call)] == [None, None]
