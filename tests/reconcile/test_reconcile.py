"""Reconcile: evidence from real files, verdicts, and --apply through the real complete path.

The labelled benchmark lives in bench/reconcile_eval (it measures; these tests assert behaviour).
"""

from __future__ import annotations

import pytest
import json
import os
import subprocess
import textwrap
from pathlib import Path

import yaml
from leafwise.commands.reconcile.engine import closed_by_commits
from leafwise.commands.registry import REGISTRY, Ctx, load_all
from leafwise.commands.runner import execute
from leafwise.store import PlanPaths, load_plan
from testkit import node, run_cli, write_plan

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}


def files(root: Path, tree: dict[str, str]) -> None:
    for rel, text in tree.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=GIT_ENV)


def commit_all(root: Path, message: str = "snapshot") -> None:
    if not (root / ".git").exists():
        git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def reconcile(root: Path, **args) -> dict:
    load_all()
    outcome = execute(REGISTRY["reconcile"], Ctx(root=str(root)), args)
    assert outcome.envelope["status"] == "ok", outcome.envelope
    return outcome.envelope


def by_id(env: dict) -> dict[str, dict]:
    return {s["id"]: s for s in env["result"]["suggestions"]}


INVOICES = {
    "app/routers/invoices.py": '''
        from fastapi import APIRouter

        router = APIRouter(prefix="/invoices", tags=["billing"])


        @router.get("")
        def list_invoices():
            return []


        @router.post("/{invoice_id}/refund")
        def refund_invoice(invoice_id: int):
            return {"refunded": invoice_id}
        ''',
    "tests/test_invoices.py": '''
        def test_refund_invoice_returns_the_money(client):
            assert client.post("/invoices/1/refund").status_code == 200
        ''',
}


def test_declared_checks_passing_make_a_node_shipped(tmp_path):
    files(tmp_path, {"src/report.py": "def build_report(rows):\n    return rows\n", "ok.txt": "yes\n"})
    write_plan(tmp_path, [
        node("T-1", "Managers get a quarterly report", release="R1",
             done_when=[{"file": "src/**/report.py"}, {"symbol": "build_report"}, {"command": "test -f ok.txt"}]),
        node("T-2", "Managers get a yearly report", release="R1",
             done_when=[{"symbol": "build_report"}, {"route": "GET /reports/yearly"},
                        {"command": "test -f missing.txt"}]),
    ])
    # commands from plan files run only once the person trusts them (store/trust.py)
    listing = json.loads(run_cli("trust", "--json", cwd=tmp_path).stdout)["result"]["commands"]
    for entry in listing:
        assert run_cli("trust", "--allow", entry["hash"], "--yes", cwd=tmp_path).code == 0
    found = by_id(reconcile(tmp_path))
    shipped = found["T-1"]
    assert shipped["verdict"] == "shipped" and shipped["confidence"] >= 0.9
    declared = [e for e in shipped["evidence"] if e["kind"] == "declared"]
    assert {(e["path"], e["line"]) for e in declared} >= {("src/report.py", 1)}
    assert all(c["passed"] for c in shipped["checks"])
    partial = found["T-2"]
    assert partial["verdict"] == "partial"
    assert any("route: GET /reports/yearly" in m for m in partial["missing"])
    assert any("command: test -f missing.txt" in m and "exit 1" in m for m in partial["missing"])


def test_a_route_and_its_test_make_a_node_shipped_with_file_and_line(tmp_path):
    files(tmp_path, INVOICES)
    write_plan(tmp_path, [node("T-1", "Accountants can refund an invoice", release="R1")])
    found = by_id(reconcile(tmp_path))["T-1"]
    assert found["verdict"] == "likely"
    kinds = {(e["kind"], e["path"], e["line"]) for e in found["evidence"]}
    assert ("route", "app/routers/invoices.py", 11) in kinds
    assert ("test", "tests/test_invoices.py", 1) in kinds
    route = next(e for e in found["evidence"] if e["kind"] == "route")
    assert route["name"] == "POST /invoices/{invoice_id}/refund"
    assert route["snippet"].startswith("@router.post")


def test_only_a_model_is_partial_and_says_what_is_missing(tmp_path):
    files(tmp_path, {"app/models.py": '''
        class LoyaltyAccount(Base):
            __tablename__ = "loyalty_accounts"

            id: Mapped[int] = mapped_column(primary_key=True)
            points_balance: Mapped[int] = mapped_column(default=0)
        '''})
    write_plan(tmp_path, [node("T-1", "Shoppers can see their loyalty points balance", release="R1")])
    found = by_id(reconcile(tmp_path))["T-1"]
    assert found["verdict"] == "partial"
    assert any(e["kind"] == "field" and e["name"] == "LoyaltyAccount.points_balance" for e in found["evidence"])
    assert any("no route, page or command" in m for m in found["missing"])
    assert "no test" in found["missing"]
    assert found["exists"]


def test_words_in_another_sense_are_not_evidence(tmp_path):
    files(tmp_path, {
        "app/banners.py": '''
            from fastapi import APIRouter

            router = APIRouter(prefix="/banners")


            @router.post("")
            def schedule_banner(body: dict):
                return body
            ''',
        "app/pricing.py": "BULK_DISCOUNT_FACTOR = 0.95\n\n\ndef discount_factor(count):\n    return 1\n",
        "tests/test_banners.py": "def test_schedule_banner(client):\n    pass\n",
    })
    write_plan(tmp_path, [
        node("T-1", "Admins can ban users who post abusive reviews", release="R1"),
        node("T-2", "Users can sign in with two-factor authentication", release="R1"),
        node("T-3", "Admins can schedule banners", release="R1"),
    ])
    found = by_id(reconcile(tmp_path))
    for trap in ("T-1", "T-2"):
        assert found[trap]["verdict"] == "none", found[trap]
        assert found[trap]["evidence"] == []
        assert found[trap]["missing"][0].startswith("nothing in the code names")
    assert found["T-3"]["verdict"] == "likely"  # the same code, in its own sense, is evidence


def test_files_git_ignores_are_skipped(tmp_path):
    files(tmp_path, {**{f"generated/{k}": v for k, v in INVOICES.items()}, ".gitignore": "generated/\n",
                     "README.md": "billing\n"})
    write_plan(tmp_path, [node("T-1", "Accountants can refund an invoice", release="R1")])
    commit_all(tmp_path)
    env = reconcile(tmp_path)
    assert by_id(env)["T-1"]["verdict"] == "none"
    assert env["result"]["scanned_files"] == 2  # .gitignore and README.md; never .leafwise/ itself
    (tmp_path / ".gitignore").unlink()
    commit_all(tmp_path)  # the same files, now tracked
    assert by_id(reconcile(tmp_path))["T-1"]["verdict"] == "likely"


def test_without_git_dependency_folders_are_skipped(tmp_path):
    files(tmp_path, {f"node_modules/billing/{k}": v for k, v in INVOICES.items()})
    write_plan(tmp_path, [node("T-1", "Accountants can refund an invoice", release="R1")])
    env = reconcile(tmp_path)
    assert by_id(env)["T-1"]["verdict"] == "none"
    assert env["result"]["scanned_files"] == 0


def test_a_commit_that_closes_a_node_is_evidence(tmp_path):
    write_plan(tmp_path, [node("T-1", "Finance can export the ledger", release="R1"),
                          node("T-2", "Finance can import the ledger", release="R1")])
    commit_all(tmp_path, "plan")
    files(tmp_path, {"app/books.py": "def write_rows(rows, out):\n    out.write(','.join(rows))\n"})
    commit_all(tmp_path, "Ledger export, closes T-1")
    (tmp_path / "notes.txt").write_text("y\n")
    commit_all(tmp_path, "T-2: first steps towards the import")
    found = by_id(reconcile(tmp_path))
    assert found["T-1"]["verdict"] == "shipped"
    assert found["T-1"]["evidence"][0]["kind"] == "commit"
    assert found["T-1"]["evidence"][0]["path"].startswith("git:")
    assert found["T-2"]["verdict"] == "partial"
    assert found["T-2"]["commits"][0]["closes"] is False
    assert [n.id for n in closed_by_commits(load_plan(PlanPaths(tmp_path)))] == ["T-1"]  # progress's cheap check


def test_each_closing_phrase_of_a_message_closes_its_id_in_one_pass(tmp_path):
    """"T-1 closes T-2" closes both (the word after an id stays unread for the next), any case of the id;
    an id merely named does not close."""
    from leafwise.commands.reconcile.checks import commits_by_node

    write_plan(tmp_path, [node(f"T-{i}", f"Task {i}", release="R1") for i in range(1, 5)])
    commit_all(tmp_path, "plan")
    (tmp_path / "notes.txt").write_text("x\n")
    commit_all(tmp_path, "T-1 closes t-2, see T-3\n\nT-4 (done)")
    closes = {nid: commits[0].closes for nid, commits in commits_by_node(tmp_path).items() if nid != "T-0"}
    assert {k: v for k, v in closes.items() if k in ("T-1", "T-3", "T-4")} == {"T-1": True, "T-3": False, "T-4": True}


def test_express_and_react_need_the_ui_too(tmp_path):
    files(tmp_path, {
        "server/app.js": "const app = express();\napp.use('/api/tasks', require('./routes/tasks'));\n",
        "server/routes/tasks.js": '''
            const router = express.Router();
            router.patch('/:id/assign', (req, res) => res.json({}));
            router.post('/:id/archive', (req, res) => res.json({}));
            module.exports = router;
            ''',
        "server/__tests__/tasks.test.js": '''
            test('assigns a task to a teammate', async () => {});
            test('archives a task', async () => {});
            ''',
        "client/src/App.jsx": '''
            export default function App() {
              return <Routes><Route path="/tasks/:id" element={<TaskPage />} /></Routes>;
            }
            ''',
        "client/src/components/AssigneeSelect.jsx": "export default function AssigneeSelect() {\n"
                                                    "  return <select />;\n}\n",
    })
    write_plan(tmp_path, [node("T-1", "Users can assign a task to a teammate", release="R1"),
                          node("T-2", "Users can archive a task", release="R1")])
    found = by_id(reconcile(tmp_path))
    assert found["T-1"]["verdict"] == "likely"
    assert any(e["name"] == "PATCH /api/tasks/:id/assign" for e in found["T-1"]["evidence"])
    assert any(e["kind"] == "component" for e in found["T-1"]["evidence"])
    assert found["T-1"]["lead"] == "rule"
    # a route and a test, no UI: no rule's bar is met; the words make it a lead, saying what is missing
    assert (found["T-2"]["verdict"], found["T-2"]["lead"]) == ("likely", "words")
    assert found["T-2"]["confidence"] < found["T-1"]["confidence"]
    assert "no UI (page or component) for it" in found["T-2"]["missing"]


@pytest.mark.slow
def test_apply_closes_shipped_through_complete_and_notes_partial(tmp_path):
    files(tmp_path, {**INVOICES, "app/models.py": '''
        class LoyaltyAccount(Base):
            __tablename__ = "loyalty_accounts"

            points_balance: Mapped[int] = mapped_column(default=0)
        '''})
    write_plan(tmp_path, [
        node("T-1", "Billing", release="R1"),
        # the author's check makes it shipped; the words alone would make it likely, which --apply leaves
        node("T-2", "Accountants can refund an invoice", parent="T-1",
             done_when=[{"route": "POST /invoices/{id}/refund"}]),
        node("T-3", "Loyalty"),
        node("T-4", "Shoppers can see their loyalty points balance", parent="T-3", release="R2"),
        node("T-5", "Shoppers can earn loyalty points on every order", parent="T-3", release="R2"),
    ])
    res = run_cli("reconcile", "--json", cwd=tmp_path)
    assert res.code == 0, res.stderr
    assert res.json["_next_action"]["command"] == "leafwise reconcile --node T-2 --apply"
    assert res.json["mutation"]["applied"] is False

    res = run_cli("reconcile", "--apply", "--json", cwd=tmp_path)
    assert res.code == 0, res.stderr
    env = res.json
    applied = {a["id"]: a for a in env["result"]["applied"]}
    assert set(applied) == {"T-2"}
    assert applied["T-2"]["cascade"] == [{"id": "T-1", "title": "Billing", "from": "draft", "to": "done"}]
    assert {r["id"]: r["verdict"] for r in env["result"]["refused"]} == {"T-4": "partial"}
    assert env["mutation"]["applied"] is True
    assert env["_next_action"]["command"] == "leafwise next"

    shipped = yaml.safe_load((tmp_path / ".leafwise/nodes/T-2.yaml").read_text())
    assert shipped["status"] == "done"
    assert shipped["summary"].startswith("reconciled: declared route: POST /invoices/{id}/refund (app/routers/invoices.py:11)")
    assert {"kind": "route", "path": "app/routers/invoices.py", "line": 11,
            "note": "POST /invoices/{invoice_id}/refund"} in shipped["evidence"]
    assert yaml.safe_load((tmp_path / ".leafwise/nodes/T-1.yaml").read_text())["status"] == "done"
    partial = yaml.safe_load((tmp_path / ".leafwise/nodes/T-4.yaml").read_text())
    assert partial["status"] == "draft"
    assert partial["reconcile_note"].startswith("missing: ")
    assert "no test" in partial["reconcile_note"]
    untouched = yaml.safe_load((tmp_path / ".leafwise/nodes/T-5.yaml").read_text())
    assert "reconcile_note" not in untouched and untouched["status"] == "draft"
    journal = [json.loads(line) for line in (tmp_path / ".leafwise/journal.jsonl").read_text().splitlines()]
    assert [(e["command"], e["node"]) for e in journal] == [("reconcile", "T-2"), ("complete", "T-2"),
                                                            ("reconcile", "T-4")]  # nearest release first

    again = run_cli("reconcile", "--apply", cwd=tmp_path)
    assert again.code == 0
    assert again.stdout.rstrip().splitlines()[-1] == "Next: leafwise next"
    assert "T-2" not in again.stdout


def test_apply_refuses_below_min_confidence(tmp_path):
    files(tmp_path, INVOICES)
    write_plan(tmp_path, [node("T-1", "Accountants can refund an invoice", release="R1",
                               done_when=[{"route": "POST /invoices/{id}/refund"}])])
    env = reconcile(tmp_path, apply=True, min_confidence=0.99)
    assert env["result"]["applied"] == []
    assert "below 0.99" in env["result"]["refused"][0]["reason"]
    assert yaml.safe_load((tmp_path / ".leafwise/nodes/T-1.yaml").read_text())["status"] == "draft"


def test_node_and_release_filters_and_their_errors(tmp_path):
    files(tmp_path, INVOICES)
    write_plan(tmp_path, [node("T-1", "Billing", release="R1"),
                          node("T-2", "Accountants can refund an invoice", parent="T-1"),
                          node("T-3", "Accountants can void an invoice", release="R2")])
    assert [s["id"] for s in reconcile(tmp_path, node="T-1")["result"]["suggestions"]] == ["T-2"]
    assert [s["id"] for s in reconcile(tmp_path, release="R2")["result"]["suggestions"]] == ["T-3"]
    assert [s["id"] for s in reconcile(tmp_path)["result"]["suggestions"]] == ["T-2", "T-3"]
    missing = run_cli("reconcile", "--node", "T-99", cwd=tmp_path)
    assert missing.code == 5 and missing.last_lines[-1].startswith("Fix: leafwise list")
    unknown = run_cli("reconcile", "--release", "R9", "--json", cwd=tmp_path)
    assert unknown.code == 5 and unknown.json["error"]["code"] == "unknown_release"


def test_apply_leaves_alone_what_a_running_cycle_puts_off_limits(tmp_path):
    files(tmp_path, INVOICES)
    write_plan(tmp_path, [node("T-1", "Accountants can refund an invoice", release="R1")])
    started = run_cli("cycle", "start", "polish", "--kind", "until-goal", "--max-iterations", "3",
                      "--token-cap", "1000", "--verify", "true", "--off-limits", ".leafwise/nodes/T-1.yaml",
                      cwd=tmp_path)
    assert started.code == 0, started.stderr
    env = run_cli("reconcile", "--apply", "--json", cwd=tmp_path).json
    assert env["result"]["applied"] == []
    assert env["result"]["off_limits"] == [".leafwise/nodes/T-1.yaml"]
    assert env["result"]["refused"][0]["id"] == "T-1"
    assert yaml.safe_load((tmp_path / ".leafwise/nodes/T-1.yaml").read_text())["status"] == "draft"


def test_routes_pages_and_commands_of_each_framework_are_indexed(tmp_path):
    from leafwise.commands.reconcile.scan import build_index

    files(tmp_path, {
        "package.json": '{"dependencies": {"next": "14.0.0"}, "bin": {"acme": "bin/acme.js"},'
                        ' "scripts": {"test": "jest", "seed-db": "node scripts/seed.js"}}',
        "billing/views.py": '''
            bp = Blueprint("billing", __name__, url_prefix="/billing")


            @bp.route("/invoices/<int:invoice_id>/pay", methods=["POST", "PUT"])
            def pay_invoice(invoice_id):
                return ""
            ''',
        "reports/urls.py": 'urlpatterns = [path("reports/<int:pk>/", views.report_detail, name="report")]\n',
        "tools/cli.py": '''
            @cli.command("sync-users")
            def sync_users():
                pass
            ''',
        "app/api/teams/[id]/route.ts": "export async function DELETE(req) {\n  return new Response(null);\n}\n",
        "app/(marketing)/pricing/page.tsx": "export default function Pricing() {\n  return <main />;\n}\n",
        "pages/settings/billing.tsx": "export default function Billing() {\n  return <div />;\n}\n",
        "server/index.js": "const app = express();\napp.use('/api/items', itemsRouter);\n"
                           "const itemsRouter = require('./items');\n",
        "server/items.js": "const router = express.Router();\n"
                           "router.route('/:id').get(show).put(update);\nmodule.exports = router;\n",
        "client/src/routes.jsx": "export const routes = [{ path: '/reports', element: <ReportsPage /> }];\n",
        "client/src/ReportsPage.jsx": "export default function ReportsPage() {\n  return <h1>Reports</h1>;\n}\n",
        "bin/acme.js": "#!/usr/bin/env node\nconsole.log('hi');\n",
        "scripts/seed.js": "console.log('seed');\n",
        "tests/billing.spec.ts": "describe('billing', () => {\n  it('pays an invoice', () => {});\n});\n",
    })
    index = build_index(tmp_path)
    routes = {(a.name, a.path, a.line) for a in index.artifacts if a.kind == "route"}
    assert {("POST /billing/invoices/<int:invoice_id>/pay", "billing/views.py", 4),
            ("PUT /billing/invoices/<int:invoice_id>/pay", "billing/views.py", 4),
            ("ANY /reports/<int:pk>", "reports/urls.py", 1),
            ("DELETE /api/teams/[id]", "app/api/teams/[id]/route.ts", 1),
            ("GET /api/items/:id", "server/items.js", 2),
            ("PUT /api/items/:id", "server/items.js", 2)} <= routes
    pages = {(a.name, a.route) for a in index.artifacts if a.kind == "page"}
    assert {("/pricing", "/pricing"), ("/settings/billing", "/settings/billing"),
            ("ReportsPage", "/reports")} <= pages
    commands = {a.name for a in index.artifacts if a.kind == "cli"}
    assert {"sync-users", "acme", "seed-db"} <= commands and "test" not in commands
    tests = {(a.name, a.path) for a in index.artifacts if a.kind == "test"}
    assert ("pays an invoice", "tests/billing.spec.ts") in tests
