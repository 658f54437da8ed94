"""retrieve.py: the comment above a TypeScript option is its document."""

from __future__ import annotations

from testkit import node, write_plan
from testkit.repos import commit_all, reconcile, write_files

from leafwise.commands.reconcile.text import identifier_concepts

TYPES = (
    "export interface LoggerOptions {\n"
    "  /**\n"
    "   * The lowest level that is written.\n"
    "   */\n"
    "  level?: string;\n"
    "  /**\n"
    "   * A string that is prepended to every log message.\n"
    "   */\n"
    "  msgPrefix?: string;\n"
    "  // Milliseconds between two flushes of the destination\n"
    "  flushInterval?: number\n"
    "}\n"
)


def test_the_comment_above_a_typescript_option_names_it(tmp_path):
    write_files(tmp_path, {"logger.d.ts": TYPES, "src/index.ts": "export function noop(): void {}\n"})
    write_plan(tmp_path, [node("T-1", "Prepend a string to every log message", release="R1"),
                          node("T-2", "Flush the destination at an interval", release="R1")])
    commit_all(tmp_path)
    got = reconcile(tmp_path, "--explain")
    code = {i: next(x for x in s["explain"]["sources"] if x["category"] == "code") for i, s in got.items()}
    assert (code["T-1"]["name"], code["T-1"]["path"], code["T-1"]["line"]) == ("msgPrefix", "logger.d.ts", 9)
    assert {"prepend", "string"} <= set(code["T-1"]["matched"]), code["T-1"]
    assert (code["T-2"]["name"], code["T-2"]["line"]) == ("flushInterval", 11)


CLI = (
    "import argparse\n\n\n"
    "def parser():\n"
    "    p = argparse.ArgumentParser()\n"
    "    sub = p.add_subparsers()\n"
    "    ensure = sub.add_parser(\n"
    "        'ensurepath',\n"
    "        help='Ensure the directories of installed programs are on your PATH',\n"
    "        description='Adds the binary directory to the PATH environment variable of your shell.',\n"
    "    )\n"
    "    ensure.add_argument('--force', action='store_true', help='Add it even when it is already there')\n"
    "    return p\n"
)
COMMANDER = (
    "const { program } = require('commander')\n"
    "program.option('-d, --dry-run', 'print what would be copied without copying anything')\n"
)


def test_a_subcommand_and_a_flag_carry_their_help_text(tmp_path):
    write_files(tmp_path, {"tool/cli.py": CLI, "bin/copy.js": COMMANDER})
    write_plan(tmp_path, [node("T-1", "Put the binary directory on the shell's PATH environment variable",
                               release="R1"),
                          node("T-2", "Print what would be copied without copying", release="R1")])
    commit_all(tmp_path)
    got = reconcile(tmp_path, "--explain")
    code = {i: next(x for x in s["explain"]["sources"] if x["category"] == "code") for i, s in got.items()}
    assert (code["T-1"]["kind"], code["T-1"]["name"], code["T-1"]["line"]) == ("cli", "ensurepath", 8), code["T-1"]
    assert {"binary", "environment"} <= set(code["T-1"]["matched"]), code["T-1"]
    assert (code["T-2"]["kind"], code["T-2"]["name"], code["T-2"]["path"], code["T-2"]["line"]) == (
        "flag", "dry-run", "bin/copy.js", 2), code["T-2"]


def test_a_compound_is_one_concept_however_the_code_spells_it():
    # the title's "line numbers" meets glow's `--line-numbers` flag and `showLineNumbers`
    assert identifier_concepts("Show line numbers") >= {"linenumber"}
    for spelled in ("line-numbers", "showLineNumbers", "line_numbers", "linenumbers"):
        assert "linenumber" in identifier_concepts(spelled), spelled
    assert identifier_concepts("frontMatter") == identifier_concepts("front matter") == frozenset({"frontmatter"})
    # only the two words side by side: "number of lines" stays two words
    assert "linenumber" not in identifier_concepts("the number of lines")
