"""Code in a language no scanner of reconcile's index reads (Rust, PHP, Java …) reaches the verify packet as
passages through the real CLI, each such file competing as a document does (not held to the one passage a
configuration file may take), and a data schema (`schema.prisma`) is searched as a configuration file is; a
template stays the document the index makes of it, and a test file, a dot-folder's code, another language's
catalogue of UI strings (`app/Locale/fr_FR/translations.php`) and a minified bundle stay out."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from testkit import node, run_cli_in_process, write_plan

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}

CLI_RS = """use clap::{Arg, Command};

pub fn build_command() -> Command {
    Command::new("bench")
        .arg(
            Arg::new("warmup")
                .long("warmup")
                .help("Perform NUM warmup runs before the actual benchmark."),
        )
        .arg(
            Arg::new("export-markdown")
                .long("export-markdown")
                .help("Export the timing summary as a Markdown table to the given FILE."),
        )
}
"""
RUNNER_RS = """pub struct Benchmark { warmup_count: u64 }

impl Benchmark {
    pub fn run(&self) {
        if self.warmup_count > 0 {
            for _ in 0..self.warmup_count {
                self.warmup_run();
            }
        }
    }
}
"""
MARKDOWN_RS = """pub struct MarkdownExporter {}

impl MarkupExporter for MarkdownExporter {
    fn table_row(&self, cells: &[&str]) -> String {
        format!("| {} |\\n", cells.join(" | "))
    }
}
"""
SCHEMA = """model Collection {
  id             Int          @id @default(autoincrement())
  name           String
  parentId       Int?
  subCollections Collection[] @relation("SubCollections")
}
"""
CODE = {
    "src/cli.rs": CLI_RS,
    "src/benchmark/runner.rs": RUNNER_RS,
    "src/export/markdown.rs": MARKDOWN_RS,
    "src/main.rs": "fn main() {\n    let app = cli::build_command();\n}\n",
    "prisma/schema.prisma": SCHEMA,
    "scripts/plot.py": "def plot_times(path):\n    '''Plot the times of a JSON export.'''\n    return path\n",
    "templates/runs.html": "<h1>Warmup runs</h1>\n<p>The warmup runs before the benchmark.</p>\n",
    "tests/integration_tests.rs": "#[test]\nfn warmup_runs_before_benchmark() {\n    // warmup runs warmup\n}\n",
    ".cargo/tools/warmup.rs": "fn warmup_runs_before_benchmark_warmup() {}\n",
    # another language's catalogue of the UI's strings, and a bundle: the same words again, no feature
    "app/Locale/fr_FR/translations.php": "<?php\nreturn array(\n  'Warmup runs before the benchmark' => "
                                         "'Tours de chauffe avant le benchmark',\n);\n",
    "app/Locale/sr_Latn_RS/translations.php": "<?php\nreturn array(\n  'Warmup runs before the benchmark' => "
                                              "'Zagrevanje pre benchmarka',\n);\n",
    "assets/js/app.min.js": "var a=function(){return 'warmup runs before the benchmark'};" * 120 + "\n",
}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=GIT_ENV)


def repository(root: Path, leaves: list[tuple[str, str]]) -> Path:
    for rel, text in CODE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "app")
    write_plan(root, [node(i, t, release="R1") for i, t in leaves])
    return root


def places(root: Path, node_id: str) -> list[dict]:
    res = run_cli_in_process("verify", node_id, "--json", cwd=root)
    assert res.code == 0, res.stdout + res.stderr
    return res.json["result"]["places"]


@pytest.mark.slow
def test_rust_code_reaches_the_packet_file_by_file(tmp_path: Path):
    root = repository(tmp_path / "repo", [("T-1", "Do a few warmup runs before the benchmark"),
                                          ("T-2", "Export the results as a Markdown table"),
                                          ("T-3", "Collections inside other collections")])
    warmup = places(root, "T-1")
    paths = [p["path"] for p in warmup]
    # two Rust files, each its own place: passages of code no scanner reads are not held to one per packet
    assert "src/cli.rs" in paths and "src/benchmark/runner.rs" in paths, warmup
    cli = next(p for p in warmup if p["path"] == "src/cli.rs")
    assert cli["kind"] == "code" and cli["start"] <= 7 <= cli["end"] and "warmup" in cli["snippet"], cli
    assert ".cargo/tools/warmup.rs" not in paths, paths
    # a Rust test is the index's test now (generic_source.py), never a passage
    assert all(p["kind"] == "test" and not p["why"].startswith("passage")
               for p in warmup if p["path"] == "tests/integration_tests.rs"), warmup
    assert not [p for p in paths if "/Locale/" in p or p.endswith(".min.js")], paths
    template = [p for p in warmup if p["path"] == "templates/runs.html"]
    assert all(not p["why"].startswith("passage") for p in template), template  # the index's own document
    export = [p["path"] for p in places(root, "T-2")]
    assert "src/export/markdown.rs" in export and "src/cli.rs" in export, export
    schema = [p for p in places(root, "T-3") if p["path"] == "prisma/schema.prisma"]
    assert schema and "subcollections" in schema[0]["snippet"].lower(), schema


def test_passages_of_unscanned_code_are_not_held_to_one():
    from leafwise.commands.domain import verify_packet
    from leafwise.commands.reconcile.artifacts import Artifact

    def passage(rel: str, score: float):
        return (score, Artifact("passage", "lines 1-6", rel, 1, "", frozenset({"warmup"})), ["warmup"])

    ranked = [passage("src/cli.rs", 0.9), passage("deploy/compose.yml", 0.85), passage("src/runner.rs", 0.8),
              passage("nginx.conf", 0.7), passage("app/Main.java", 0.6), passage("tests/cli_test.rs", 0.5)]
    kept = [t[1].path for t in verify_packet.few_passages(ranked)]
    assert kept == ["src/cli.rs", "deploy/compose.yml", "src/runner.rs", "app/Main.java"], kept
