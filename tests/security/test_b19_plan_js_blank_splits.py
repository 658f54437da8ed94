"""js_source's patterns never try every split of a run of blanks (`\\s*X?\\s*` written `\\s*(?:X\\s*)?`).

Found in the bypass round of session 19: `_HANDLER` (`\\)\\s*;?\\s*$`), `_PATH_ATTR` and `_ELEMENT`
(`[=:]\\s*\\{?\\s*`) and `SYMBOL` (`function\\s*\\*?\\s*`) on Python's `re` tried every way two `\\s*`
around an optional character can share a run of blanks: a committed server.js line
`app.get('/a', h)` + 40,000 spaces + `x`, a `<Route path=` + 40,000 spaces + `x>` and `function` +
40,000 spaces + `x` cost reconcile seconds each (quadratic: a 300,000-space line, under the scanned-code
cap, minutes; 2,000 short lines keep the file from reading as minified). The linear-matching test's long-run cases missed them: the run follows a class character
(`,a)`), not a literal run. The rewritten patterns match what the old ones did (an oracle over generated
lines) and reconcile stays fast through the real CLI."""

from __future__ import annotations

import random
import re

from leafwise.commands.reconcile import js_source
from testkit import cli_fork
from testkit.repos import LEAFWISE, plan_repo, run

OLD = {
    "_HANDLER": r""",\s*(?:require\(\s*['"]([^'"]+)['"]\s*\)|([A-Za-z_$][\w.$]*))\s*\)\s*;?\s*$""",
    "_PATH_ATTR": r"""\bpath\s*[=:]\s*\{?\s*['"`]([^'"`]*)['"`]""",
    "_ELEMENT": r"""(?:element\s*[=:]\s*\{?\s*<|[Cc]omponent\s*[=:]\s*\{?\s*)([A-Z]\w*)""",
}
PIECES = ["let ", "const ", "=>", " = ", "async ", ",", " ", "\t", ";", ")", "(", "h", "a.b", "{", "<", "X", "path", "=", ":", "'", '"', "/a", "element",
          "Component", "require(", "'./x'", "*", "function", "f"]


def test_the_rewritten_patterns_match_as_the_old_ones():
    rng = random.Random(19)
    for name, old in OLD.items():
        old_re, new_re = re.compile(old), getattr(js_source, name)
        for _ in range(3000):
            text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14)))
            a, b = old_re.search(text), new_re.search(text)
            assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups())), (name, text)
    symbol_old = re.compile(js_source.SYMBOL.pattern.replace(r"function\s*(?:\*\s*)?", r"function\s*\*?\s*")
                            .replace("{1,300}", "+").replace("{0,300}", "*"))
    for _ in range(3000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14)))
        a, b = symbol_old.search(text), js_source.SYMBOL.search(text)
        assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups())), text


def test_a_clone_of_blank_runs_in_route_lines_keeps_reconcile_fast(tmp_path):
    root = plan_repo(tmp_path / "clone")
    run_ = " " * 40_000
    (root / "server.js").write_text("const app = express();\n"
                                    f"app.get('/a', h){run_}x\n"
                                    f"const r = <Route path={run_}x element={run_}y Component:{run_}z />;\n"
                                    f"function{run_}x\n" + "// a short line\n" * 2_000)  # not minified
    run(root, "git", "add", "server.js", ".leafwise")
    run(root, "git", "commit", "-q", "-m", "routes")
    code, out, err, cpu, _rss = cli_fork.run_measured(["reconcile", "--json"], root, {"LEAFWISE_AGENT": ""}, None, 300)
    assert code == 0, out + err
    assert cpu < 3.0, f"reconcile took {cpu:.1f} CPU s"


def test_a_clone_of_unclosed_declarations_on_one_line_keeps_reconcile_fast(tmp_path):
    """SYMBOL's type annotation and parameter list are bounded: each of 30,000 'let a:' (or 'let a = (')
    on one line scanned to the line's end (8,000 of them: 2.65 s)."""
    root = plan_repo(tmp_path / "clone")
    (root / "types.js").write_text("let a:" * 30_000 + "\n" + "let b = (" * 20_000 + "\n" + "// a short line\n" * 2_000)
    run(root, "git", "add", "types.js", ".leafwise")
    run(root, "git", "commit", "-q", "-m", "types")
    code, out, err, cpu, _rss = cli_fork.run_measured(["reconcile", "--json"], root, {"LEAFWISE_AGENT": ""}, None, 300)
    assert code == 0, out + err
    assert cpu < 3.0, f"reconcile took {cpu:.1f} CPU s"
