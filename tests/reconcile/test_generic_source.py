"""Languages no tree-sitter grammar of the index reads (Rust, PHP, Java, Kotlin, C#, …) are read by one line
scanner (generic_source.py): definitions with their comments and bodies, clap / picocli flags with their help,
console commands, routes (Laravel, kanboard's addRoute, Spring, ASP.NET, actix), human-text strings (a PHP
template's `t('…')`); tests as tests; another language's catalogue and a dot-folder's code left out. Through
the real index on a committed repository, and the real CLI: `leafwise reconcile` finds a lead in such code."""

from __future__ import annotations

from pathlib import Path

from testkit import node, run_cli, write_plan
from testkit.repos import commit_all, write_files

CLI_RS = '''use clap::{Arg, Command};

pub fn build_command() -> Command {
    Command::new("bench")
        .arg(
            Arg::new("warmup")
                .long("warmup")
                .help("Perform NUM warmup runs before the actual benchmark. This fills \\
                       the disk caches."),
        )
}

#[derive(Parser)]
pub struct Opts {
    /// Export the timing summary as a Markdown table.
    #[arg(long)]
    pub export_markdown: Option<String>,
}
'''
RUNNER_RS = '''/// Runs each command several times and keeps the fastest.
pub async fn run_benchmark(cmd: &str) -> Result<()> {
    let shell = spawn_shell();
    Ok(())
}

#[cfg(test)]
mod tests {
    fn runs_the_benchmark_twice() {}
}
'''
ROUTES_PHP = '''<?php
class RouteProvider {
    public function register(Container $container) {
        $container['route']->addRoute('board/:project_id', 'BoardViewController', 'show');
        Route::get('/invoices/{id}/refund', [InvoiceController::class, 'refund']);
        $request->get('name');
    }
}
'''
CONSOLE_PHP = '''<?php
namespace Kanboard\\Console;

/**
 * Remove two-factor authentication for a user
 */
class ResetTwoFactorCommand extends BaseCommand
{
    protected function configure()
    {
        $this
            ->setName('user:reset-2fa')
            ->setDescription('Remove two-factor authentication for a user');
    }
}
'''
TEMPLATE_PHP = '''<div class="page-header">
    <h2><?= t('Add a new swimlane') ?></h2>
</div>
'''
FR_PHP = '''<?php
return array(
  'Add a new swimlane' => 'Ajouter une nouvelle swimlane',
);
'''
JAVA = '''package app;

@RestController
public class OwnerController {
    /** Find owners by their last name. */
    @GetMapping("/owners/find")
    public String findOwners(Map<String, Object> model) {
        return "owners/findOwners";
    }

    @Option(names = {"-v", "--verbose"}, description = "Print every request and response")
    private boolean verbose;

    void rememberLastSearch(String name) {
        if (name != null) {
            last = name;
        }
    }
}
'''
CSHARP = '''namespace Shop.Api;

[ApiController]
public class OrdersController : ControllerBase
{
    [HttpPost("orders/{id}/cancel")]
    public async Task<IActionResult> CancelOrder(int id)
    {
        return Ok();
    }
}
'''
KOTLIN = '''package app

data class Invoice(val id: Long)

suspend fun sendReminderEmail(invoice: Invoice) {
    mailer.send("Your invoice is overdue")
}
'''
FILES = {"src/cli.rs": CLI_RS, "src/runner.rs": RUNNER_RS, "app/ServiceProvider/RouteProvider.php": ROUTES_PHP,
         "app/Console/ResetTwoFactorCommand.php": CONSOLE_PHP, "app/Template/swimlane/create.php": TEMPLATE_PHP,
         "app/Locale/fr_FR/translations.php": FR_PHP, "src/main/java/app/OwnerController.java": JAVA,
         "Api/OrdersController.cs": CSHARP, "src/main/kotlin/app/Invoices.kt": KOTLIN,
         "tests/OwnerControllerTest.java": JAVA.replace("OwnerController", "OwnerControllerTest"),
         ".cargo/tools/warmup.rs": "pub fn warmup_tool() {}\n"}


def index_of(root: Path):
    from leafwise.commands.reconcile.scan import build_index

    write_files(root, FILES)
    commit_all(root)
    return build_index(root, use_cache=False)


def test_definitions_flags_routes_commands_and_strings_of_every_such_language(tmp_path: Path):
    index = index_of(tmp_path)
    arts = {(a.kind, a.name): (a.path, a.line) for a in index.artifacts if a.kind != "module"}
    assert arts[("definition", "run_benchmark")] == ("src/runner.rs", 2)
    assert arts[("definition", "Opts")] == ("src/cli.rs", 14)
    assert arts[("test", "runs_the_benchmark_twice")] == ("src/runner.rs", 9)  # #[cfg(test)]: a test
    assert arts[("flag", "warmup")] == ("src/cli.rs", 6)
    assert arts[("flag", "export-markdown")] == ("src/cli.rs", 17)  # clap derive: the field's name
    assert arts[("flag", "verbose")][0] == "src/main/java/app/OwnerController.java"
    assert arts[("definition", "findOwners")] == ("src/main/java/app/OwnerController.java", 7)
    assert arts[("definition", "CancelOrder")] == ("Api/OrdersController.cs", 7)
    # no modifier: a type and a name opening a block (Java's package-private methods, Dart's); an `if` is none
    assert arts[("definition", "rememberLastSearch")] == ("src/main/java/app/OwnerController.java", 14)
    assert ("definition", "if") not in arts
    assert arts[("definition", "Invoice")] == ("src/main/kotlin/app/Invoices.kt", 3)
    assert arts[("definition", "sendReminderEmail")] == ("src/main/kotlin/app/Invoices.kt", 5)
    assert arts[("definition", "ResetTwoFactorCommand")] == ("app/Console/ResetTwoFactorCommand.php", 7)
    assert arts[("cli", "user:reset-2fa")] == ("app/Console/ResetTwoFactorCommand.php", 12)
    assert ("cli", "bench") not in arts  # the program itself, not a command of it
    routes = {a.name: (a.path, a.line, a.words) for a in index.artifacts if a.kind == "route"}
    assert {name: at[:2] for name, at in routes.items()} == {
        "ANY /board/:project_id": ("app/ServiceProvider/RouteProvider.php", 4),
        "GET /invoices/{id}/refund": ("app/ServiceProvider/RouteProvider.php", 5),
        "GET /owners/find": ("src/main/java/app/OwnerController.java", 6),
        "POST /orders/{id}/cancel": ("Api/OrdersController.cs", 6)}
    from leafwise.commands.reconcile.text import identifier_concepts

    assert identifier_concepts("findOwners") <= routes["GET /owners/find"][2]  # the handler below it
    assert identifier_concepts("CancelOrder") <= routes["POST /orders/{id}/cancel"][2]
    assert identifier_concepts("refund") <= routes["GET /invoices/{id}/refund"][2]
    docs = {(d.kind, d.name, d.path) for d in index.docs}
    flag_help = next(d for d in index.docs if d.kind == "flag" and d.name == "warmup")
    assert identifier_concepts("disk caches") <= flag_help.words  # the help's continued line too
    derive_help = next(d for d in index.docs if d.kind == "flag" and d.name == "export-markdown")
    assert identifier_concepts("timing summary") <= derive_help.words  # the doc comment above the attribute
    said = next(d for d in index.docs if d.kind == "definition" and d.name == "run_benchmark")
    assert identifier_concepts("fastest") <= said.words
    body = next(d for d in index.docs if d.kind == "body" and d.name == "run_benchmark")
    assert identifier_concepts("spawn_shell") <= body.words and identifier_concepts("fastest") <= body.context
    assert ("string", "Add a new swimlane", "app/Template/swimlane/create.php") in docs
    ui = next(d for d in index.docs if d.kind == "string" and d.name == "Add a new swimlane")
    assert ui.side == "ui"
    assert not [d for d in index.docs if "/Locale/" in d.path]  # French's catalogue of the same strings
    assert not [a for a in index.artifacts + index.docs if a.path.startswith(".cargo/")]
    assert not [a for a in index.artifacts if a.path.startswith("tests/") and a.kind in ("definition", "route")]


def test_reconcile_finds_a_lead_in_php_and_rust(tmp_path: Path):
    write_files(tmp_path, FILES)
    commit_all(tmp_path)
    write_plan(tmp_path, [node("T-1", "Reset a user's two-factor authentication from the command line"),
                          node("T-2", "Do warmup runs before the benchmark"),
                          node("T-3", "Export the timing summary as a Markdown table")])
    res = run_cli("reconcile", "--json", cwd=tmp_path)
    assert res.code == 0, res.stderr
    got = {s["id"]: s for s in res.json["result"]["suggestions"]}
    assert got["T-1"]["verdict"] in ("likely", "shipped"), got["T-1"]
    assert got["T-1"]["evidence"][0]["path"] == "app/Console/ResetTwoFactorCommand.php", got["T-1"]
    assert got["T-2"]["verdict"] in ("likely", "shipped"), got["T-2"]
    assert got["T-2"]["evidence"][0]["path"] == "src/cli.rs", got["T-2"]
    assert got["T-3"]["evidence"][0]["path"] == "src/cli.rs", got["T-3"]


def test_a_translated_readme_gives_no_documents(tmp_path: Path):
    from leafwise.commands.reconcile.scan import build_index

    readme = "# Tables\n\nDraw tables with borders and aligned columns.\n"
    write_files(tmp_path, {"README.md": readme, "README.fa.md": readme.replace("Tables", "جدول"),
                           "README.pt-BR.md": readme, "docs/api.js.md": readme, "src/user.id.ts": "export const x = 1\n"})
    commit_all(tmp_path)
    index = build_index(tmp_path, use_cache=False)
    docs = {d.path for d in index.docs if d.kind == "doc"}
    assert docs == {"README.md", "docs/api.js.md"}, docs  # another language's copy says the same again


def test_the_packet_holds_the_controller_a_chosen_route_hands_its_requests_to(tmp_path: Path):
    from testkit import run_cli_in_process

    files = {
        "app/ServiceProvider/RouteProvider.php": "<?php\nclass RouteProvider {\n    public function register($c) {\n"
        "        $c['route']->addRoute('task/:task_id/pieces', 'ChunkController', 'show');\n    }\n}\n",
        "app/Controller/ChunkController.php": "<?php\nclass ChunkController extends BaseController {\n"
        "    public function show() {\n        $this->response->html($this->helper->layout->render('chunk/show'));\n"
        "    }\n}\n",
    }
    write_files(tmp_path, files)
    commit_all(tmp_path)
    write_plan(tmp_path, [node("T-1", "Split a task into smaller pieces", release="R1")])
    res = run_cli_in_process("verify", "T-1", "--json", cwd=tmp_path)
    assert res.code == 0, res.stdout + res.stderr
    places = res.json["result"]["places"]
    assert places[0]["path"] == "app/ServiceProvider/RouteProvider.php", places
    handler = [p for p in places if p["path"] == "app/Controller/ChunkController.php"]
    assert handler and "hands it its requests" in handler[0]["why"], places


def test_overlapping_bodies_read_each_line_about_once(tmp_path: Path):
    """A planted file of `fn export_users_csv() {` on every line (399 KB, under the code cap): every function's
    body ran to MAX_BODY characters, so each line was read ~270 times (1.3 s of CPU per file, 14.5 s for ten
    files in `leafwise reconcile`). The bodies of one file read at most MAX_BODY_TEXT characters in all."""
    import time

    from leafwise.commands.reconcile import generic_source
    from leafwise.commands.reconcile.artifacts import Index, Source

    line = "fn export_users_csv() {\n"
    write_files(tmp_path, {"src/main.rs": line * (399_000 // len(line))})
    commit_all(tmp_path)
    text = (tmp_path / "src/main.rs").read_text()
    index = Index(tmp_path, ["src/main.rs"])
    started = time.process_time()
    generic_source.scan(index, Source("src/main.rs", text))
    spent = time.process_time() - started
    bodies = [d for d in index.docs if d.kind == "body"]
    assert bodies and "export" in " ".join(sorted(bodies[0].words))
    assert spent < 0.5, f"{spent:.2f} s of CPU for one file"  # 1.3 s before


def test_a_line_of_many_dashed_flags_reads_its_help_strings_once(tmp_path: Path):
    """A planted .rs of 1,999-character lines of `"--e1" "--e2" …` (blank lines between, so the file is no
    minified bundle): each of a line's ~280 flags read the whole line again for its help strings, 3.5 s of
    CPU in `leafwise reconcile` for one file. The line's help strings are read once."""
    import time

    from leafwise.commands.reconcile import generic_source
    from leafwise.commands.reconcile.artifacts import Index, Source

    line = " ".join(f'"--e{j}"' for j in range(300))[:1999] + "\n" * 20
    text = line * (399_000 // len(line))
    write_files(tmp_path, {"src/main.rs": text})
    commit_all(tmp_path)
    index = Index(tmp_path, ["src/main.rs"])
    started = time.process_time()
    generic_source.scan(index, Source("src/main.rs", (tmp_path / "src/main.rs").read_text()))
    spent = time.process_time() - started
    assert spent < 0.8, f"{spent:.2f} s of CPU for one file"  # 3.3 s before
