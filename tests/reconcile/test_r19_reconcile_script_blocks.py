"""The `<script>` parts of a .vue/.svelte file are found in one pass (RE2) and joined once. With `re`, each
`<script>` that no `</script>` follows scanned to the end of the file: a committed `App.vue` of 49,000
`<script>` (392 KB, under the scanned-code cap) cost over a minute, so reconcile passed its deadline; and
each span was spliced into a copy of the whole text. The parts are the old rule's (oracle)."""

from __future__ import annotations

import random
import re
import subprocess
import time
from pathlib import Path

from leafwise.commands.reconcile import tags
from testkit.repos import LEAFWISE, plan_repo, run

_OLD = re.compile(r"<script\b[^>]*>(.*?)</script>", re.S | re.I)


def _oracle(text: str) -> str:
    spans = [m.span(1) for m in _OLD.finditer(text)]
    if not spans:
        return ""
    out = re.sub(r"[^\n]", " ", text)
    for a, b in spans:
        out = out[:a] + text[a:b] + out[b:]
    return out


def test_the_script_parts_are_the_old_rules() -> None:
    rnd = random.Random(19)
    words = ["<script>", "</script>", "<SCRIPT lang='ts'>", "é", "\n", "x", "<template>", "ß", "😀", " ", "<scripts>",
             "</ScRiPt>", "<script setup>", "const a = 1;"]
    for _ in range(3000):
        text = "".join(rnd.choice(words) for _ in range(rnd.randint(0, 24)))
        assert tags.script_part(text) == _oracle(text), repr(text)


def test_unclosed_and_many_script_blocks_are_quick() -> None:
    start = time.thread_time()
    tags.script_part("<script>" * 49000)
    tags.script_part("<script>x</script>" * 21000)
    assert time.thread_time() - start < 1.0


def test_reconcile_of_a_clone_with_unclosed_script_tags_answers(tmp_path: Path) -> None:
    src = tmp_path / "src"
    plan_repo(src)
    run(src, LEAFWISE, "add", "Export orders as CSV")
    (src / "web").mkdir()
    for name in ("App.vue", "Page.svelte"):
        (src / "web" / name).write_text("<template><div/></template>\n" + "<script>\n" * 43000)
    run(src, "git", "add", "-A")
    run(src, "git", "commit", "-q", "-m", "components")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(src), str(clone)], check=True, capture_output=True)
    start = time.monotonic()
    done = run(clone, LEAFWISE, "reconcile", "--json", code=None)
    assert done.returncode == 0, done.stdout + done.stderr
    assert time.monotonic() - start < 15
