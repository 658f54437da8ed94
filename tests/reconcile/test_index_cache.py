"""The reconcile index cache (index_cache.py, scan.py): the index is the same with and without it,
cold or warm, parsed in one process or two; an edited file, a changed mount prefix, a deleted
file, a corrupt or foreign cache each give the index a fresh scan gives; the CLI's answer is the
same with the cache turned off."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from testkit import node, run_cli, walked, write_plan
from testkit.repos import commit_all, write_files

from leafwise.commands.reconcile.index_cache import IndexCache
from leafwise.store.cache import write_sealed


def cache_of(root: Path) -> IndexCache:
    """The index cache of the plan at `root`: in the person's cache folder, never in the work tree."""
    cache = IndexCache.for_repo(root)
    assert cache is not None and root not in cache.path.parents
    return cache

REPO = {
    "app/main.py": textwrap.dedent('''\
        from fastapi import FastAPI
        from app import items

        app = FastAPI()
        app.include_router(items.router, prefix="/api/items")
        '''),
    "app/items.py": textwrap.dedent('''\
        from fastapi import APIRouter

        router = APIRouter()


        @router.get("/{item_id}")
        def read_item(item_id: int):
            """Read one item of the shop's catalogue."""
            return {}


        class Item(BaseModel):
            title: str
            price: float
        '''),
    "tests/test_items.py": "def test_read_item_returns_the_item():\n    assert True\n",
    "server/index.js": "const app = express();\nconst tasks = require('./tasks');\napp.use('/api/tasks', tasks);\n",
    "server/tasks.js": "const router = express.Router();\nrouter.get('/:id', showTask);\nmodule.exports = router;\n",
    "web/package.json": '{"dependencies": {"nuxt": "^2.17.0"}}',
    "web/pages/recipes/_slug.vue": "<template><h1>Recipe</h1></template>\n<script>\nexport default {}\n</script>\n",
    "web/src/routes.jsx": "export const routes = [{ path: '/reports', element: <ReportsPage /> }];\n",
    "web/src/ReportsPage.jsx": "export default function ReportsPage() {\n  return <h1>Monthly reports</h1>;\n}\n",
    "web/static/vendor.min.js": "!function(e){var t={};function n(r){return t[r]}" + "x" * 5000 + "}\n",
    "README.md": "# Shop\n\nBrowse the catalogue and read each item's page.\n",
    "docs/guide.md": "Export your orders as a spreadsheet from the orders page.\n",
}


def dump(index) -> tuple:
    """Everything the matching layer reads from an index, in order."""
    def pack(a):
        return (a.kind, a.name, a.path, a.line, a.snippet, a.words, a.context, a.side, a.method, a.route)
    return ([pack(a) for a in index.artifacts], [pack(a) for a in index.docs], index.files, index.in_git,
            index.has_ui, sorted(index.texts.items()))


def fresh(root: Path) -> tuple:
    from leafwise.commands.reconcile.scan import build_index

    return dump(build_index(root, use_cache=False))


def cached(root: Path) -> tuple:
    from leafwise.commands.reconcile.scan import build_index

    return dump(build_index(root))


def repo(tmp_path: Path) -> Path:
    write_files(tmp_path, REPO)
    commit_all(tmp_path)
    write_plan(tmp_path, [node("T-1", "Shoppers can read an item of the catalogue", release="R1")])
    return tmp_path


def test_cold_and_warm_indexes_equal_a_fresh_scan(tmp_path):
    root = repo(tmp_path)
    want = fresh(root)
    assert not cache_of(root).path.exists()  # use_cache=False neither reads nor writes it
    assert cached(root) == want  # cold: every file scanned, the cache written
    assert cache_of(root).path.stat().st_size > 0
    assert cached(root) == want  # warm: every file from the cache
    arts = {(a[0], a[1], a[2]) for a in want[0]}
    assert ("route", "GET /api/items/{item_id}", "app/items.py") in arts  # mount prefix from main.py
    assert ("route", "GET /api/tasks/:id", "server/tasks.js") in arts  # mount prefix from index.js
    assert ("page", "ReportsPage", "web/src/ReportsPage.jsx") in arts  # client route from routes.jsx
    assert ("page", "/recipes/:slug", "web/pages/recipes/_slug.vue") in arts  # Nuxt, from web/package.json


def test_an_edited_file_is_scanned_again_and_the_others_come_from_the_cache(tmp_path):
    root = repo(tmp_path)
    cached(root)
    items = root / "app/items.py"
    items.write_text(items.read_text().replace("read_item", "fetch_item"))
    got = cached(root)
    assert got == fresh(root)
    names = {a[1] for a in got[0]}
    assert "fetch_item" in names and "read_item" not in names


def test_a_new_mount_prefix_moves_the_routes_of_an_unchanged_file(tmp_path):
    root = repo(tmp_path)
    cached(root)
    main = root / "app/main.py"
    main.write_text(main.read_text().replace('"/api/items"', '"/v2/goods"'))
    (root / "server/index.js").write_text((root / "server/index.js").read_text().replace("/api/tasks", "/todo"))
    got = cached(root)
    assert got == fresh(root)
    routes = {a[1] for a in got[0] if a[0] == "route"}
    assert {"GET /v2/goods/{item_id}", "GET /todo/:id"} <= routes
    assert not any("/api/items" in r or "/api/tasks" in r for r in routes)


def test_a_deleted_file_leaves_the_index_and_the_cache(tmp_path):
    root = repo(tmp_path)
    cached(root)
    (root / "docs/guide.md").unlink()
    subprocess.run(["git", "rm", "-q", "--cached", "docs/guide.md"], cwd=root, check=True)
    got = cached(root)
    assert got == fresh(root)
    assert not any(d[2] == "docs/guide.md" for d in got[1])
    entries = cache_of(root).read()
    assert "docs/guide.md" not in {key[0] for key in entries}
    assert "README.md" in {key[0] for key in entries}


def test_a_corrupt_or_foreign_cache_is_ignored_and_replaced(tmp_path):
    root = repo(tmp_path)
    want = fresh(root)
    cache = cache_of(root)
    cache.path.parent.mkdir(parents=True, exist_ok=True)
    cache.path.write_bytes(b"\x00garbage, not marshal")
    assert cached(root) == want
    entries = cache.read()
    assert entries
    # an unsealed marshal file (what anyone else could write) is never unmarshalled
    from leafwise.commands.reconcile.index_cache import version

    cache.path.write_bytes(marshal.dumps((version(), entries)))
    assert cache.read() == {}
    assert cached(root) == want
    # sealed, same keys, entries that are not what the scanners write: parsed again, never used
    write_sealed(cache.path, cache.purpose, (version(), {key: b"\x00bad" for key in entries}))
    assert cached(root) == want
    # another scanner version (an upgrade, an edited scanner): every entry ignored
    bogus = {key: marshal.dumps(((), (), (), (), (), ())) for key in entries}
    write_sealed(cache.path, cache.purpose, (b"another version", bogus))
    assert cached(root) == want


def test_a_linked_cache_folder_is_never_written_through(tmp_path):
    root = repo(tmp_path)
    elsewhere = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    elsewhere.mkdir()
    folder = cache_of(root).path.parent
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.symlink_to(elsewhere, target_is_directory=True)
    assert cached(root) == fresh(root)
    assert list(elsewhere.iterdir()) == []


def test_a_minified_bundle_is_kept_for_checks_but_not_parsed(tmp_path):
    root = repo(tmp_path)
    got = fresh(root)
    assert "web/static/vendor.min.js" in dict(got[5])
    assert not any(a[2] == "web/static/vendor.min.js" and a[0] != "module" for a in got[0])


def test_two_processes_give_the_index_one_gives(tmp_path):
    """The forked worker (many files to parse, no other thread) yields exactly what one process does."""
    root = repo(tmp_path)
    for k in range(40):  # enough files that the split is not trivial
        write_files(root, {f"pkg/mod{k}.py": f"def handle_order_{k}(order):\n    '''Ship order {k}.'''\n    return order\n",
                           f"web/src/Widget{k}.tsx": f"export function Widget{k}() {{\n  return <p>Widget {k} label</p>;\n}}\n"})
    script = textwrap.dedent(f"""
        import marshal, sys
        from pathlib import Path
        import leafwise.commands.reconcile.scan as scan
        scan.PARALLEL_FILES = 1
        forks = []
        import multiprocessing.context as ctx
        real = ctx.ForkContext.Pool
        def pool(self, *a, **k):
            forks.append(1)
            return real(self, *a, **k)
        ctx.ForkContext.Pool = pool
        index = scan.build_index(Path({str(root)!r}), use_cache=False)
        def pack(a):
            return (a.kind, a.name, a.path, a.line, a.snippet, a.words, a.context, a.side, a.method, a.route)
        sys.stdout.buffer.write(marshal.dumps((len(forks), [pack(a) for a in index.artifacts],
                                               [pack(a) for a in index.docs])))
    """)
    env = {**os.environ, "LEAFWISE_RECONCILE_WORKERS": "2"}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr.decode()
    forks, arts, docs = marshal.loads(proc.stdout)
    assert forks == 1  # it did fork
    want = fresh(root)
    assert (arts, docs) == (want[0], want[1])


def test_the_cli_answers_the_same_with_the_cache_turned_off(tmp_path):
    root = repo(tmp_path)
    write_plan(root, [node("T-1", "Shoppers can read an item of the catalogue", release="R1"),
                      node("T-2", "Export orders as a spreadsheet", release="R1"),
                      node("T-3", "Users can see monthly reports", release="R1")])

    def answer(env: dict[str, str]) -> list:
        res = run_cli("reconcile", "--json", cwd=root, env=env)
        assert res.code == 0, res.stderr
        got = json.loads(res.stdout)["result"]
        return [{k: v for k, v in s.items()} for s in got["suggestions"]] + [got["indexed"], got["scanned_files"]]

    off = answer({"LEAFWISE_RECONCILE_CACHE": "0"})
    assert not cache_of(root).path.exists()
    cold = answer({})
    assert cache_of(root).path.exists()
    warm = answer({})
    assert off == cold == warm


def test_the_cache_version_covers_every_module_the_scan_imports():
    """An edit to any module that decides what a file yields must start the cache afresh."""
    import ast

    from leafwise.commands.reconcile import index_cache

    package = Path(index_cache.__file__).parent
    prefix = "leafwise.commands.reconcile"
    seen, todo = set(), ["scan"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for item in walked((package / f"{name}.py").read_text()):
            if isinstance(item, ast.ImportFrom) and item.module and item.module.startswith(prefix):
                rest = item.module[len(prefix):].lstrip(".")
                todo += [rest] if rest else [a.name for a in item.names]
    assert seen == set(index_cache.SCANNERS)
