"""File-based routes as evidence (file_routes.py): Next.js app and pages dirs, Remix, SvelteKit,
Nuxt and TanStack Router; each page or handler is a `page` or `route` artifact named by its
path, with words from its segments, at the default export's line (or line 1), only where the
nearest package.json uses that framework; and the CLI shows them as evidence."""

from __future__ import annotations

from pathlib import Path

from testkit import node, write_plan
from testkit.repos import commit_all, reconcile, write_files

PAGE = "export default function Page() {\n  return <main />;\n}\n"


def index_of(root: Path, files: dict[str, str]):
    from leafwise.commands.reconcile.scan import build_index

    write_files(root, files)
    commit_all(root)
    return build_index(root, use_cache=False)


def found(index, kind: str) -> dict[str, tuple[str, int]]:
    return {a.name: (a.path, a.line) for a in index.artifacts if a.kind == kind}


def concepts(text: str) -> frozenset[str]:
    from leafwise.commands.reconcile.text import identifier_concepts

    return identifier_concepts(text)


def words(index, name: str) -> frozenset[str]:
    return next(a.words for a in index.artifacts if a.name == name and a.kind in ("page", "route"))


def test_next_app_dir_pages_groups_dynamic_segments_and_route_handlers(tmp_path):
    index = index_of(tmp_path, {
        "package.json": '{"dependencies": {"next": "14.1.0", "react": "18.2.0"}}',
        "src/app/page.tsx": PAGE,
        "src/app/(marketing)/pricing/page.tsx": "import x from 'y';\n\n" + PAGE,
        "src/app/dashboard/billing/[invoiceId]/page.tsx": PAGE,
        "src/app/docs/[...slug]/page.mdx": "# not a script page\n",
        "src/app/@modal/(.)photos/[id]/page.tsx": PAGE,  # intercepting route: a view of /photos/[id]
        "src/app/_components/page.tsx": PAGE,  # a private folder
        "src/app/dashboard/layout.tsx": PAGE,  # a layout is not a route
        "src/app/api/teams/[teamId]/members/route.ts": (
            "import { db } from '@/db';\n\nexport async function GET(req: Request) {\n  return Response.json([]);\n}\n\n"
            "export const POST = async (req: Request) => new Response(null);\n"),
    })
    pages = found(index, "page")
    assert pages["/"] == ("src/app/page.tsx", 1)
    assert pages["/pricing"] == ("src/app/(marketing)/pricing/page.tsx", 3)  # the default export's line
    assert pages["/dashboard/billing/[invoiceId]"] == ("src/app/dashboard/billing/[invoiceId]/page.tsx", 1)
    assert not any("photos" in p or "components" in p or "docs" in p for p in pages)
    assert not any(a.path.endswith("layout.tsx") for a in index.artifacts if a.kind == "page")
    routes = found(index, "route")
    assert routes["GET /api/teams/[teamId]/members"] == ("src/app/api/teams/[teamId]/members/route.ts", 3)
    assert routes["POST /api/teams/[teamId]/members"] == ("src/app/api/teams/[teamId]/members/route.ts", 7)
    assert words(index, "/dashboard/billing/[invoiceId]") == concepts("dashboard billing invoice")
    assert words(index, "/") == concepts("home")
    assert words(index, "/pricing") == concepts("pricing")  # a route group adds no word


MIDDLEWARE = (
    "import { NextResponse } from 'next/server'\n\nexport default function middleware(req) {\n"
    "  if (!req.cookies.get('token')) return NextResponse.redirect(new URL(`/login?from=${req.url}`, req.url))\n"
    "}\n\nexport const config = { matcher: ['/dashboard/:path*', '/editor/:path*'] }\n")


def test_next_middleware_is_one_route_named_by_the_paths_it_matches_and_redirects_to(tmp_path):
    index = index_of(tmp_path, {
        "package.json": '{"dependencies": {"next": "14.1.0"}}',
        "middleware.ts": MIDDLEWARE,
        "lib/middleware.ts": MIDDLEWARE,  # a helper of that name elsewhere is not Next's middleware
        "other/package.json": '{"dependencies": {"express": "4.0.0"}}',
        "other/middleware.ts": MIDDLEWARE,  # nor one under a package that does not use Next
    })
    routes = {a.path: a for a in index.artifacts if a.kind == "route"}
    assert set(routes) == {"middleware.ts"}
    assert (routes["middleware.ts"].name, routes["middleware.ts"].line) == ("ANY /* (middleware)", 3)
    assert concepts("login dashboard editor") <= routes["middleware.ts"].words


def test_next_pages_dir_and_a_folder_called_pages_elsewhere(tmp_path):
    index = index_of(tmp_path, {
        "package.json": '{"dependencies": {"next": "12.3.0"}}',
        "pages/index.tsx": PAGE,
        "pages/_app.tsx": PAGE,
        "pages/settings/notifications.tsx": PAGE,
        "pages/api/webhooks/stripe.ts": "export default async function handler(req, res) {}\n",
        "components/pages/Hero.tsx": PAGE,  # not the pages dir: a folder of components
    })
    pages = found(index, "page")
    assert pages["/"] == ("pages/index.tsx", 1)
    assert pages["/settings/notifications"] == ("pages/settings/notifications.tsx", 1)
    assert not any(p.startswith("/_app") or "Hero" in p or "components" in p for p in pages)
    assert found(index, "route")["ANY /api/webhooks/stripe"] == ("pages/api/webhooks/stripe.ts", 1)


def test_file_routes_need_the_framework_in_the_nearest_package_json(tmp_path):
    index = index_of(tmp_path, {
        "package.json": '{"devDependencies": {"next": "14.0.0"}}',  # the monorepo root
        "apps/docs/package.json": '{"dependencies": {"@sveltejs/kit": "2.0.0"}}',
        "apps/docs/src/routes/guides/+page.svelte": "<h1>Guides</h1>\n",
        "apps/docs/app/about/page.tsx": PAGE,  # under the SvelteKit app: not a Next page
        "apps/site/app/about/page.tsx": PAGE,  # no package.json of its own: the root's Next
        "tools/src/routes/+page.svelte": "<h1>not SvelteKit here</h1>\n",
    })
    pages = found(index, "page")
    assert pages["/guides"] == ("apps/docs/src/routes/guides/+page.svelte", 1)
    assert "/apps/site/app/about" not in pages and "/about" not in pages  # Next app dir is app/ at its root
    assert not any(path.startswith("tools/") for path, _ in pages.values())
    assert not any(path.startswith("apps/docs/app/") for path, _ in pages.values())


def test_remix_flat_routes_folder_routes_and_resource_routes(tmp_path):
    index = index_of(tmp_path, {
        "package.json": '{"dependencies": {"@remix-run/react": "2.8.0", "@remix-run/node": "2.8.0"}}',
        "app/routes/_index.tsx": PAGE,
        "app/routes/concerts.$city.tsx": "export async function loader() { return null; }\n\n" + PAGE,
        "app/routes/_auth.login.tsx": PAGE + "\nexport async function action() { return null; }\n",
        "app/routes/concerts_.mine.tsx": PAGE,
        "app/routes/($lang).about.tsx": PAGE,
        "app/routes/[sitemap.xml].tsx": "export const loader = async () => new Response('');\n",
        "app/routes/settings.billing/route.tsx": PAGE,
        "app/routes/settings.billing/invoice-table.tsx": PAGE,  # a module beside the route
        "app/root.tsx": PAGE,
    })
    pages = found(index, "page")
    assert pages["/"] == ("app/routes/_index.tsx", 1)
    assert pages["/concerts/:city"] == ("app/routes/concerts.$city.tsx", 3)
    assert pages["/login"] == ("app/routes/_auth.login.tsx", 1)
    assert pages["/concerts/mine"] == ("app/routes/concerts_.mine.tsx", 1)
    assert pages["/:lang?/about"] == ("app/routes/($lang).about.tsx", 1)
    assert pages["/settings/billing"] == ("app/routes/settings.billing/route.tsx", 1)
    assert not any("invoice" in p for p in pages)
    routes = found(index, "route")
    assert routes["POST /login"] == ("app/routes/_auth.login.tsx", 5)
    assert routes["GET /sitemap.xml"] == ("app/routes/[sitemap.xml].tsx", 1)
    assert words(index, "/concerts/:city") == concepts("concerts city")


def test_sveltekit_pages_endpoints_and_form_actions(tmp_path):
    index = index_of(tmp_path, {
        "package.json": '{"devDependencies": {"@sveltejs/kit": "^2.5.0", "svelte": "^4.2.0"}}',
        "src/routes/+page.svelte": "<h1>Home</h1>\n",
        "src/routes/(app)/projects/[projectId=integer]/+page.svelte": "<script>\n  export let data;\n</script>\n",
        "src/routes/(app)/projects/+page.server.ts": "import { fail } from '@sveltejs/kit';\n\nexport const actions = {\n  default: async () => {}\n};\n",
        "src/routes/api/exports/+server.ts": "export async function GET() {\n  return new Response('');\n}\n\nexport const DELETE = () => new Response(null);\n",
        "src/routes/(app)/+layout.svelte": "<slot />\n",
        "src/lib/Button.svelte": "<button>Save</button>\n",
    })
    pages = found(index, "page")
    assert pages["/"] == ("src/routes/+page.svelte", 1)
    assert pages["/projects/[projectId]"] == ("src/routes/(app)/projects/[projectId=integer]/+page.svelte", 1)
    assert len(pages) == 2
    routes = found(index, "route")
    assert routes["POST /projects"] == ("src/routes/(app)/projects/+page.server.ts", 3)
    assert routes["GET /api/exports"] == ("src/routes/api/exports/+server.ts", 1)
    assert routes["DELETE /api/exports"] == ("src/routes/api/exports/+server.ts", 5)


def test_nuxt_pages_of_nuxt_2_and_3_and_server_handlers(tmp_path):
    index = index_of(tmp_path, {
        "frontend/package.json": '{"dependencies": {"nuxt": "^3.10.0"}}',
        "frontend/pages/index.vue": "<template><h1>Home</h1></template>\n",
        "frontend/pages/shopping-lists/_id.vue": "<template><div /></template>\n<script>\nexport default {}\n</script>\n",
        "frontend/pages/recipes/[slug]/edit.vue": "<template><div /></template>\n",
        "frontend/pages/(admin)/users/index.vue": "<template><div /></template>\n",
        "frontend/components/RecipeCard.vue": "<template><div /></template>\n",
        "frontend/server/api/recipes/[id].delete.ts": "export default defineEventHandler(() => null)\n",
        "frontend/server/routes/sitemap.xml.ts": "\nexport default defineEventHandler(() => '')\n",
    })
    pages = found(index, "page")
    assert pages["/"] == ("frontend/pages/index.vue", 1)
    assert pages["/shopping-lists/:id"] == ("frontend/pages/shopping-lists/_id.vue", 3)
    assert pages["/recipes/[slug]/edit"] == ("frontend/pages/recipes/[slug]/edit.vue", 1)
    assert pages["/users"] == ("frontend/pages/(admin)/users/index.vue", 1)
    assert not any("RecipeCard" in p or "components" in p for p in pages)
    routes = found(index, "route")
    assert routes["DELETE /api/recipes/[id]"] == ("frontend/server/api/recipes/[id].delete.ts", 1)
    assert routes["ANY /sitemap.xml"] == ("frontend/server/routes/sitemap.xml.ts", 2)
    assert words(index, "/shopping-lists/:id") == concepts("shopping lists")


def test_tanstack_router_file_routes_name_their_path(tmp_path):
    index = index_of(tmp_path, {
        "package.json": '{"dependencies": {"@tanstack/react-router": "1.20.0"}}',
        "src/routes/posts.$postId.tsx": ("import { createFileRoute } from '@tanstack/react-router'\n\n"
                                         "export const Route = createFileRoute('/posts/$postId')({\n"
                                         "  component: PostComponent,\n})\n"),
        "src/routes/_auth/settings.tsx": "export const Route = createFileRoute('/_auth/settings')({})\n",
        "src/routes/__root.tsx": "export const Route = createRootRoute({})\n",
    })
    pages = found(index, "page")
    assert pages["/posts/$postId"] == ("src/routes/posts.$postId.tsx", 3)
    assert pages["/settings"] == ("src/routes/_auth/settings.tsx", 1)
    assert len(pages) == 2


def test_tests_beside_routes_are_not_routes(tmp_path):
    index = index_of(tmp_path, {
        "package.json": '{"dependencies": {"@remix-run/react": "2.8.0"}}',
        "app/routes/invoices.tsx": PAGE,
        "app/routes/invoices.test.tsx": "it('lists invoices', () => {});\n",
    })
    assert found(index, "page") == {"/invoices": ("app/routes/invoices.tsx", 1)}


def test_the_cli_gives_a_file_route_page_as_evidence_at_its_file_and_line(tmp_path):
    # Nothing but the file's place names the feature: the page is the evidence.
    app = {
        "src/routes/settings/notifications/+page.svelte": (
            "<script>\n  import Form from '$lib/Form.svelte';\n</script>\n\n<Form />\n"),
        "src/lib/Form.svelte": "<form><input name='x' /></form>\n",
    }
    for name, deps in (("kit", '{"devDependencies": {"@sveltejs/kit": "^2.5.0"}}'), ("plain", '{"dependencies": {}}')):
        root = tmp_path / name
        write_files(root, {**app, "package.json": deps})
        commit_all(root)
        write_plan(root, [node("T-1", "Users can change their notification settings", release="R1")])
        got = reconcile(root)["T-1"]
        pages = [(e["kind"], e["path"], e["line"]) for e in got["evidence"] if e["kind"] == "page"]
        if name == "kit":
            assert got["verdict"] != "none"
            assert pages == [("page", "src/routes/settings/notifications/+page.svelte", 1)]
        else:  # without SvelteKit the same file is only a component
            assert pages == []
